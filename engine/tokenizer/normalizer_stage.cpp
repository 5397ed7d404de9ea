// The normalizer stage: its steps read from tokenizer.json and run in order.
#include "tokenizer/normalizer_stage.h"

#include "build_features.h"
#include "tokenizer/json_fields.h"
#include "tokenizer/space_cuts.h"
#include "tokenizer/unicode_tables.h"

namespace attnscope::tok {

using namespace json_fields;

namespace {

std::u32string code_points(const std::string& utf8) {
  std::u32string out;
  for (const SpannedChar& c : decode_utf8(utf8)) out += c.cp;
  return out;
}

NormalizerStep parse_step(const json& section) {
  const std::string type = type_name(section, "normalizer");
  NormalizerStep step;
  if (type == "BertNormalizer") {
    step.kind = NormalizerStep::Kind::Bert;
    const bool lowercase = get_bool(section, "lowercase", true, "normalizer");
    step.bert = NormalizerOptions{get_bool(section, "clean_text", true, "normalizer"),
                                  get_bool(section, "handle_chinese_chars", true, "normalizer"),
                                  get_optional_bool(section, "strip_accents", "normalizer").value_or(lowercase),
                                  lowercase};
  } else if (type == "Prepend") {
    step.kind = NormalizerStep::Kind::Prepend;
    step.text = code_points(get_string(section, "prepend", "", "normalizer Prepend"));
  } else if (type == "Replace") {
    step.kind = NormalizerStep::Kind::Replace;
    step.pattern = parse_pattern(member(section, "pattern"), "normalizer Replace pattern");
    step.text = code_points(get_string(section, "content", "", "normalizer Replace"));
  } else if (type == "NFC") {
    // The encoder build leaves out the composition table (BERT's normalizer decomposes only).
    if constexpr (kBuildHasWordPieceOnly) throw_not_in_build("the NFC normalizer");
    step.kind = NormalizerStep::Kind::Nfc;
  } else if (type == "NFD") {
    step.kind = NormalizerStep::Kind::Nfd;
  } else if (type == "Lowercase") {
    step.kind = NormalizerStep::Kind::Lowercase;
  } else if (type == "Strip") {
    step.kind = NormalizerStep::Kind::Strip;
    step.left = get_bool(section, "strip_left", true, "normalizer Strip");
    step.right = get_bool(section, "strip_right", true, "normalizer Strip");
  } else if (type == "Precompiled") {
    if constexpr (kBuildHasWordPieceOnly) throw_not_in_build("SentencePiece's Precompiled normalizer");
    step.kind = NormalizerStep::Kind::Precompiled;
    const json& charsmap = member(section, "precompiled_charsmap");
    if (!charsmap.is_string()) fail("normalizer Precompiled.precompiled_charsmap must be a base64 string");
    step.charsmap = std::make_shared<const PrecompiledCharsmap>(
        PrecompiledCharsmap::from_base64(charsmap.get_ref<const std::string&>()));
  } else {
    fail("normalizer '" + type + "' is not supported: AttnScope reproduces BertNormalizer, Prepend, Replace, NFC, "
         "NFD, Lowercase, Strip, Precompiled and Sequences of them");
  }
  return step;
}

std::vector<SpannedChar> replace(const std::vector<SpannedChar>& text, const NormalizerStep& step) {
  std::u32string cps;
  cps.reserve(text.size());
  for (const SpannedChar& c : text) cps += c.cp;
  std::vector<SpannedChar> out;
  out.reserve(text.size());
  size_t done = 0;
  for (const auto& [begin, end] : step.pattern.find_all(cps.data(), cps.size())) {
    out.insert(out.end(), text.begin() + static_cast<std::ptrdiff_t>(done), text.begin() + static_cast<std::ptrdiff_t>(begin));
    // tokenizers' NormalizedString::replace inserts the replacement after removing the match, so
    // it takes the span of the last character it replaced (of the one before an empty match).
    const SpannedChar span = end > begin ? text[end - 1] : begin > 0 ? text[begin - 1]
                   : text.empty() ? SpannedChar{0, 0, 0} : SpannedChar{0, text[0].start, text[0].start};
    for (char32_t cp : step.text) out.push_back({cp, span.start, span.end});
    done = end;
  }
  out.insert(out.end(), text.begin() + static_cast<std::ptrdiff_t>(done), text.end());
  return out;
}

// Each character replaced by what `map` writes for it (up to 4 code points), keeping its span.
template <class Map>
std::vector<SpannedChar> expand(const std::vector<SpannedChar>& text, Map map) {
  std::vector<SpannedChar> out;
  out.reserve(text.size());
  char32_t parts[kMaxDecomposition > kMaxLowercase ? kMaxDecomposition : kMaxLowercase];
  for (const SpannedChar& c : text) {
    const int n = map(c.cp, parts);
    for (int k = 0; k < n; ++k) out.push_back({parts[k], c.start, c.end});
  }
  return out;
}

// NFD. Canonical reordering moves code points but not spans: tokenizers' alignments stay with the
// positions, so a reordered mark reports where it now stands (measured against the Rust library).
std::vector<SpannedChar> decompose(const std::vector<SpannedChar>& text) {
  std::vector<SpannedChar> out = expand(text, canonical_decomposition);
  std::vector<SpannedChar> positions = out;
  order_non_starters(out, 0);
  for (size_t i = 0; i < out.size(); ++i) {
    out[i].start = positions[i].start;
    out[i].end = positions[i].end;
  }
  return out;
}

std::vector<SpannedChar> apply_step(const NormalizerStep& step, std::vector<SpannedChar> text) {
  switch (step.kind) {
    case NormalizerStep::Kind::Bert: return normalize_bert(text, step.bert);
    case NormalizerStep::Kind::Prepend:
      if (!text.empty()) {  // tokenizers prepends to non-empty text only
        std::vector<SpannedChar> out;
        out.reserve(text.size() + step.text.size());
        for (char32_t cp : step.text) out.push_back({cp, text.front().start, text.front().end});
        out.insert(out.end(), text.begin(), text.end());
        return out;
      }
      return text;
    case NormalizerStep::Kind::Replace: return replace(text, step);
    case NormalizerStep::Kind::Nfd: return decompose(text);
    case NormalizerStep::Kind::Nfc:
      if constexpr (kBuildHasWordPieceOnly) throw_not_in_build("the NFC normalizer");
      else return compose(decompose(text));
    case NormalizerStep::Kind::Lowercase: return expand(text, to_lowercase);
    case NormalizerStep::Kind::Precompiled:
      if constexpr (kBuildHasWordPieceOnly) throw_not_in_build("SentencePiece's Precompiled normalizer");
      else return step.charsmap->apply(text);
    case NormalizerStep::Kind::SentencePiece: return normalize_sentencepiece(text, step.charsmap.get(), step.spm);
    case NormalizerStep::Kind::Strip: {
      size_t b = 0, e = text.size();
      while (step.left && b < e && is_white_space(text[b].cp)) ++b;
      while (step.right && e > b && is_white_space(text[e - 1].cp)) --e;
      return std::vector<SpannedChar>(text.begin() + static_cast<std::ptrdiff_t>(b), text.begin() + static_cast<std::ptrdiff_t>(e));
    }
  }
  return text;
}

}  // namespace

Normalizer Normalizer::bert(const NormalizerOptions& options) {
  Normalizer n;
  NormalizerStep step;
  step.bert = options;
  n.steps_.push_back(std::move(step));
  return n;
}

Normalizer Normalizer::sentencepiece(std::string_view charsmap, const SpmNormalizerOptions& options) {
  Normalizer n;
  NormalizerStep step;
  step.kind = NormalizerStep::Kind::SentencePiece;
  if (!charsmap.empty()) step.charsmap = std::make_shared<const PrecompiledCharsmap>(charsmap);
  step.spm = options;
  n.steps_.push_back(std::move(step));
  return n;
}

Normalizer Normalizer::from_json(const json& section) {
  Normalizer n;
  for (const json& member : sequence_members(section, "normalizers", "normalizer")) n.steps_.push_back(parse_step(member));
  return n;
}

std::vector<SpannedChar> Normalizer::apply(const SpannedChar* begin, const SpannedChar* end) const {
  // BertNormalizer alone (the common case) reads the input in place.
  if (steps_.size() == 1 && steps_[0].kind == NormalizerStep::Kind::Bert) return normalize_bert(begin, end, steps_[0].bert);
  std::vector<SpannedChar> text(begin, end);
  for (const NormalizerStep& step : steps_) text = apply_step(step, std::move(text));
  return text;
}

bool Normalizer::keeps_space_cuts() const {
  for (const NormalizerStep& step : steps_) {
    switch (step.kind) {
      case NormalizerStep::Kind::Bert:
      case NormalizerStep::Kind::Nfc:
      case NormalizerStep::Kind::Nfd:
      case NormalizerStep::Kind::Lowercase:
      case NormalizerStep::Kind::Precompiled:  // per grapheme cluster: one ends on each side of the space
        break;  // character by character; an ASCII space neither composes nor reorders
      case NormalizerStep::Kind::Replace:  // a match of spaces only cannot cover the letter beside one
        if (!step.pattern.matches_only_white_space()) return false;
        break;
      case NormalizerStep::Kind::Strip:  // the piece after a cut starts with the space: left would strip it
        if (step.left) return false;
        break;
      case NormalizerStep::Kind::Prepend:        // every piece would get the prefix
      case NormalizerStep::Kind::SentencePiece:  // its dummy prefix and whitespace rules see the whole text
        return false;
    }
  }
  // What the steps do to the cut's own characters, seen on every "x y" of ASCII letters and digits.
  std::string probe;
  for (char32_t c = '0'; c <= 'z'; ++c) {
    if (!is_ascii_alphanumeric(c)) continue;
    probe += static_cast<char>(c);
    probe += ' ';
  }
  probe += 'a';
  const std::vector<SpannedChar> in = decode_utf8(probe);
  const std::vector<SpannedChar> out = apply(in.data(), in.data() + in.size());
  if (out.size() != in.size()) return false;
  for (size_t i = 0; i < in.size(); ++i) {
    if (out[i].start != in[i].start) return false;
    if (in[i].cp == ' ' ? out[i].cp != ' ' : is_white_space(out[i].cp)) return false;
  }
  return true;
}

}  // namespace attnscope::tok
