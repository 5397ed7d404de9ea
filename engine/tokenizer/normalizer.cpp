// BertNormalizer over spanned characters: clean_text → handle_chinese_chars → strip_accents
// (NFD + canonical ordering, then drop Mn) → lowercase.
#include "tokenizer/normalizer.h"

#include <algorithm>
#include <cstdint>

#include "tokenizer/unicode_tables.h"

namespace attnscope::tok {

// Rust tokenizers' is_control is unicode_categories' is_other, whose tables list assigned
// characters only: an unassigned code point (Cn) is kept, and becomes [UNK] (measured against
// the Rust library in tests/js/tokenizer-rust-parity.test.js).
bool is_bert_control(char32_t cp) {
  if (cp == '\t' || cp == '\n' || cp == '\r') return false;
  switch (general_category(cp)) {
    case Category::Cc: case Category::Cf: case Category::Co: case Category::Cs:
      return true;
    default:
      return false;
  }
}

bool is_bert_whitespace(char32_t cp) {
  return cp == '\t' || cp == '\n' || cp == '\r' || is_white_space(cp);
}

// tokenizers' (Rust) ranges. Its Extension E range starts at U+2B920 where Google's BERT and
// transformers' slow tokenizer have U+2B820; we follow tokenizers, which the fast tokenizers use.
bool is_cjk_ideograph(char32_t cp) {
  return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
         (cp >= 0x20000 && cp <= 0x2A6DF) || (cp >= 0x2A700 && cp <= 0x2B73F) ||
         (cp >= 0x2B740 && cp <= 0x2B81F) || (cp >= 0x2B920 && cp <= 0x2CEAF) ||
         (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x2F800 && cp <= 0x2FA1F);
}

// Canonical ordering (the last step of NFD): stable sort of each run of non-starters by combining
// class. Must run before the Mn marks are dropped: an Mn mark of class 0 ends a run.
void order_non_starters(std::vector<SpannedChar>& text, size_t from) {
  for (size_t i = from; i < text.size();) {
    if (text[i].cp < 0x300 || canonical_combining_class(text[i].cp) == 0) { ++i; continue; }
    size_t j = i;
    while (j < text.size() && canonical_combining_class(text[j].cp) != 0) ++j;
    if (j - i > 1) {
      std::stable_sort(text.begin() + static_cast<std::ptrdiff_t>(i), text.begin() + static_cast<std::ptrdiff_t>(j),
                       [](const SpannedChar& a, const SpannedChar& b) {
                         return canonical_combining_class(a.cp) < canonical_combining_class(b.cp);
                       });
    }
    i = j;
  }
}

// Spans follow tokenizers' alignment bookkeeping: every output character takes the span of the
// next input position, and a composite skips the positions of the characters it absorbed (as
// its change of -n says). So after "c U+0323 U+0301" → "ć U+0323" the mark reports the third
// position, as the Rust library does.
std::vector<SpannedChar> compose(const std::vector<SpannedChar>& text) {
  std::vector<SpannedChar> out;
  std::vector<size_t> absorbed;  // per output character: input characters composed into it
  out.reserve(text.size());
  absorbed.reserve(text.size());
  size_t starter = SIZE_MAX;
  for (const SpannedChar& c : text) {
    const uint8_t cc = canonical_combining_class(c.cp);
    if (starter != SIZE_MAX) {
      const uint8_t last = canonical_combining_class(out.back().cp);
      const bool blocked = out.size() - 1 != starter && (last == 0 || last >= cc);
      if (!blocked) {
        if (const char32_t composite = primary_composite(out[starter].cp, c.cp)) {
          out[starter].cp = composite;
          ++absorbed[starter];
          continue;
        }
      }
    }
    if (cc == 0) starter = out.size();
    out.push_back(c);
    absorbed.push_back(0);
  }
  size_t position = 0;
  for (size_t k = 0; k < out.size(); ++k) {
    out[k].start = text[position].start;
    out[k].end = text[position].end;
    position += 1 + absorbed[k];
  }
  return out;
}

// One pass per character doing the four steps in tokenizers' order (clean → pad CJK → NFD →
// lowercase); canonical ordering and dropping the Mn marks follow in two passes over the output.
// Lowercasing before ordering is safe: no mark with a non-zero class has a lowercase mapping.
// One output vector instead of one per step keeps 100k-character inputs cheap.
std::vector<SpannedChar> normalize_bert(const SpannedChar* begin, const SpannedChar* end,
                                        const NormalizerOptions& options) {
  std::vector<SpannedChar> out;
  out.reserve(static_cast<size_t>(end - begin) + 16);
  char32_t parts[kMaxDecomposition];
  char32_t lower[kMaxLowercase];
  auto emit = [&](char32_t cp, const SpannedChar& src) {
    if (!options.lowercase) {
      out.push_back({cp, src.start, src.end});
      return;
    }
    const int n = to_lowercase(cp, lower);
    for (int k = 0; k < n; ++k) out.push_back({lower[k], src.start, src.end});
  };
  for (const SpannedChar* it = begin; it != end; ++it) {
    SpannedChar c = *it;
    if (options.clean_text) {
      if (c.cp == 0 || c.cp == 0xFFFD || is_bert_control(c.cp)) continue;
      if (is_bert_whitespace(c.cp)) c.cp = ' ';
    }
    const bool pad = options.handle_chinese_chars && is_cjk_ideograph(c.cp);
    if (pad) out.push_back({' ', c.start, c.end});
    if (options.strip_accents) {
      const int n = canonical_decomposition(c.cp, parts);
      for (int k = 0; k < n; ++k) emit(parts[k], c);  // marks are dropped after ordering
    } else {
      emit(c.cp, c);
    }
    if (pad) out.push_back({' ', c.start, c.end});
  }
  if (options.strip_accents) {
    order_non_starters(out, 0);
    out.erase(std::remove_if(out.begin(), out.end(),
                             [](const SpannedChar& c) { return c.cp >= 0x300 && general_category(c.cp) == Category::Mn; }),
              out.end());
  }
  return out;
}

std::vector<SpannedChar> normalize_bert(const std::vector<SpannedChar>& text,
                                        const NormalizerOptions& options) {
  return normalize_bert(text.data(), text.data() + text.size(), options);
}

}  // namespace attnscope::tok
