// The pre-tokenizer stage: each step maps the list of words to a new one, as tokenizers'
// PreTokenizedString::split does; empty words are dropped.
#include "tokenizer/pre_tokenizer_stage.h"

#include <algorithm>
#include <array>

#include "build_features.h"
#include "tokenizer/byte_level.h"
#include "tokenizer/json_fields.h"
#include "tokenizer/pre_tokenizer.h"
#include "tokenizer/unicode_tables.h"

namespace attnscope::tok {

using namespace json_fields;

namespace {

using Step = PreTokenizerStep;

Step::Behavior parse_behavior(const std::string& name) {
  if (name == "Removed") return Step::Behavior::Removed;
  if (name == "Isolated") return Step::Behavior::Isolated;
  if (name == "MergedWithPrevious") return Step::Behavior::MergedWithPrevious;
  if (name == "MergedWithNext") return Step::Behavior::MergedWithNext;
  if (name == "Contiguous") return Step::Behavior::Contiguous;
  fail("pre_tokenizer Split behavior '" + name + "' is not one of Removed, Isolated, MergedWithPrevious, "
       "MergedWithNext, Contiguous");
}

// Split patterns known to end a match at every space cut, whatever surrounds it: no alternative
// matches a letter or digit followed by a space, nothing looks behind, and a lookahead follows
// whitespace only. Llama 3's, and Qwen2's and Qwen3's (single digits).
bool cuts_at_spaces(const json& pattern) {
  static const char* const known[] = {
      R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)",
      R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)",
  };
  if (!pattern.is_object() || !pattern.contains("Regex") || !pattern["Regex"].is_string()) return false;
  const std::string& regex = pattern["Regex"].get_ref<const std::string&>();
  return std::any_of(std::begin(known), std::end(known), [&](const char* k) { return regex == k; });
}

Step parse_step(const json& section) {
  const std::string type = type_name(section, "pre_tokenizer");
  Step step;
  // The encoder build's tokenizers are WordPiece ones: BERT's splits, whitespace and digits.
  if (kBuildHasWordPieceOnly && (type == "ByteLevel" || type == "Split" || type == "Metaspace"))
    throw_not_in_build("the " + type + " pre_tokenizer");
  if (type == "BertPreTokenizer") {
    step.kind = Step::Kind::Bert;
  } else if (type == "ByteLevel") {
    step.kind = Step::Kind::ByteLevel;
    step.add_prefix_space = get_bool(section, "add_prefix_space", true, "pre_tokenizer");
    step.use_regex = get_bool(section, "use_regex", true, "pre_tokenizer");
  } else if (type == "Split") {
    step.kind = Step::Kind::Split;
    step.pattern = parse_pattern(member(section, "pattern"), "pre_tokenizer Split pattern");
    step.behavior = parse_behavior(get_string(section, "behavior", "", "pre_tokenizer Split"));
    step.invert = get_bool(section, "invert", false, "pre_tokenizer Split");
    step.pattern_cuts_at_spaces = cuts_at_spaces(member(section, "pattern"));
  } else if (type == "WhitespaceSplit") {
    step.kind = Step::Kind::WhitespaceSplit;
  } else if (type == "Metaspace") {
    step.kind = Step::Kind::Metaspace;
    const std::vector<SpannedChar> replacement = decode_utf8(get_string(section, "replacement", "\u2581", "pre_tokenizer Metaspace"));
    if (replacement.size() != 1) fail("pre_tokenizer Metaspace replacement must be one character");
    step.replacement = replacement[0].cp;
    const bool legacy_prefix = get_bool(section, "add_prefix_space", true, "pre_tokenizer Metaspace");
    const std::string scheme = get_string(section, "prepend_scheme", legacy_prefix ? "always" : "never", "pre_tokenizer Metaspace");
    if (scheme == "always") step.prepend = Step::Prepend::Always;
    else if (scheme == "first") step.prepend = Step::Prepend::First;
    else if (scheme == "never") step.prepend = Step::Prepend::Never;
    else fail("pre_tokenizer Metaspace prepend_scheme '" + scheme + "' is not always, first or never");
    step.split = get_bool(section, "split", true, "pre_tokenizer Metaspace");
  } else if (type == "Digits") {
    step.kind = Step::Kind::Digits;
    step.individual_digits = get_bool(section, "individual_digits", false, "pre_tokenizer Digits");
  } else {
    fail("pre_tokenizer '" + type + "' is not supported: AttnScope reproduces BertPreTokenizer, ByteLevel, Split, "
         "Metaspace, Digits, WhitespaceSplit and Sequences of them");
  }
  return step;
}

Word slice(const Word& w, size_t begin, size_t end, bool keep_prefix) {
  Word out;
  out.chars.assign(w.chars.begin() + static_cast<std::ptrdiff_t>(begin), w.chars.begin() + static_cast<std::ptrdiff_t>(end));
  out.prefixed = keep_prefix && begin == 0 && w.prefixed;
  return out;
}

// tokenizers' NormalizedString::split: the pieces (match or not) covering the word, combined as
// the behaviour says, empty ones dropped.
void split_by_matches(const Word& w, const std::vector<std::pair<size_t, size_t>>& matches, Step::Behavior behavior,
                      bool invert, std::vector<Word>& out) {
  struct Piece { size_t begin, end; bool match; };
  std::vector<Piece> pieces;
  size_t done = 0;
  for (const auto& [b, e] : matches) {
    if (done < b) pieces.push_back({done, b, invert});
    pieces.push_back({b, e, !invert});
    done = e;
  }
  if (done < w.chars.size()) pieces.push_back({done, w.chars.size(), invert});
  std::vector<Piece> kept;
  bool previous_match = false;
  switch (behavior) {
    case Step::Behavior::Removed:
      for (const Piece& p : pieces) if (!p.match) kept.push_back(p);
      break;
    case Step::Behavior::Isolated:
      kept = pieces;
      break;
    case Step::Behavior::MergedWithPrevious:
      for (const Piece& p : pieces) {
        if (p.match && !previous_match && !kept.empty()) kept.back().end = p.end;
        else kept.push_back(p);
        previous_match = p.match;
      }
      break;
    case Step::Behavior::MergedWithNext:
      for (size_t i = pieces.size(); i-- > 0;) {
        const Piece& p = pieces[i];
        if (p.match && !previous_match && !kept.empty()) kept.back().begin = p.begin;
        else kept.push_back(p);
        previous_match = p.match;
      }
      std::reverse(kept.begin(), kept.end());
      break;
    case Step::Behavior::Contiguous:
      for (size_t i = 0; i < pieces.size(); ++i) {
        const Piece& p = pieces[i];
        if (i > 0 && p.match == previous_match) kept.back().end = p.end;
        else kept.push_back(p);
        previous_match = p.match;
      }
      break;
  }
  for (const Piece& p : kept) {
    if (p.begin < p.end) out.push_back(slice(w, p.begin, p.end, true));
  }
}

const std::array<char32_t, 256>& byte_chars() {
  static const std::array<char32_t, 256> table = [] {
    std::array<char32_t, 256> t{};
    for (int b = 0; b < 256; ++b) t[b] = decode_utf8(byte_to_unicode()[b]).front().cp;
    return t;
  }();
  return table;
}

[[maybe_unused]] void byte_level(const Step& step, Word w, std::vector<Word>& out) {  // not in the encoder build
  // The prepended space takes the span of the word's first character, as tokenizers'
  // NormalizedString::prepend aligns it.
  if (step.add_prefix_space && w.chars.front().cp != ' ') {
    w.chars.insert(w.chars.begin(), SpannedChar{' ', w.chars.front().start, w.chars.front().end});
    w.prefixed = true;
  }
  std::vector<Word> pieces;
  if (step.use_regex) {
    for (const CharRange& r : split_gpt2_pattern(w.chars, 0, w.chars.size())) pieces.push_back(slice(w, r.begin, r.end, true));
  } else {
    pieces.push_back(std::move(w));
  }
  // Each byte of a character becomes one mapped character carrying that character's span.
  std::string bytes;
  for (Word& piece : pieces) {
    Word mapped;
    mapped.prefixed = piece.prefixed;
    mapped.chars.reserve(piece.chars.size() * 2);
    for (const SpannedChar& c : piece.chars) {
      bytes.clear();
      append_utf8(bytes, c.cp);
      for (char b : bytes) mapped.chars.push_back({byte_chars()[static_cast<uint8_t>(b)], c.start, c.end});
    }
    out.push_back(std::move(mapped));
  }
}

[[maybe_unused]] void metaspace(const Step& step, Word w, std::vector<Word>& out) {  // not in the encoder build
  for (SpannedChar& c : w.chars) if (c.cp == ' ') c.cp = step.replacement;
  const bool prepend = step.prepend == Step::Prepend::Always ||
                       (step.prepend == Step::Prepend::First && w.chars.front().start == 0);
  if (prepend && w.chars.front().cp != step.replacement) {
    w.chars.insert(w.chars.begin(), SpannedChar{step.replacement, w.chars.front().start, w.chars.front().end});
  }
  if (!step.split) {
    out.push_back(std::move(w));
    return;
  }
  std::vector<std::pair<size_t, size_t>> matches;
  for (size_t i = 0; i < w.chars.size(); ++i) if (w.chars[i].cp == step.replacement) matches.emplace_back(i, i + 1);
  split_by_matches(w, matches, Step::Behavior::MergedWithNext, false, out);
}

// Rust's char::is_numeric: the N* categories.
bool is_numeric(char32_t cp) {
  if (cp < 128) return cp >= '0' && cp <= '9';
  const Category c = general_category(cp);
  return c == Category::Nd || c == Category::Nl || c == Category::No;
}

// tokenizers' Digits: numeric characters isolated one by one, or as runs (Contiguous).
void digits(const Step& step, const Word& w, std::vector<Word>& out) {
  std::vector<std::pair<size_t, size_t>> matches;
  for (size_t i = 0; i < w.chars.size(); ++i) {
    if (!is_numeric(w.chars[i].cp)) continue;
    if (!step.individual_digits && !matches.empty() && matches.back().second == i) matches.back().second = i + 1;
    else matches.emplace_back(i, i + 1);
  }
  split_by_matches(w, matches, Step::Behavior::Isolated, false, out);
}

void run_step(const Step& step, Word w, std::vector<Word>& out) {
  switch (step.kind) {
    case Step::Kind::Bert:
      for (const WordRange& r : pre_tokenize_bert(w.chars)) out.push_back(slice(w, r.begin, r.end, false));
      return;
    case Step::Kind::ByteLevel:
      if constexpr (kBuildHasWordPieceOnly) throw_not_in_build("the ByteLevel pre_tokenizer");
      else byte_level(step, std::move(w), out);
      return;
    case Step::Kind::Metaspace:
      if constexpr (kBuildHasWordPieceOnly) throw_not_in_build("the Metaspace pre_tokenizer");
      else metaspace(step, std::move(w), out);
      return;
    case Step::Kind::WhitespaceSplit: {  // tokenizers' WhitespaceSplit: split on char::is_whitespace, dropping it
      std::vector<std::pair<size_t, size_t>> matches;
      for (size_t i = 0; i < w.chars.size(); ++i) if (is_white_space(w.chars[i].cp)) matches.emplace_back(i, i + 1);
      split_by_matches(w, matches, Step::Behavior::Removed, false, out);
      return;
    }
    case Step::Kind::Digits: digits(step, w, out); return;
    case Step::Kind::Split: {
      if constexpr (kBuildHasWordPieceOnly) throw_not_in_build("the Split pre_tokenizer");
      std::u32string cps;
      cps.reserve(w.chars.size());
      for (const SpannedChar& c : w.chars) cps += c.cp;
      split_by_matches(w, step.pattern.find_all(cps.data(), cps.size()), step.behavior, step.invert, out);
      return;
    }
  }
}

}  // namespace

PreTokenizer PreTokenizer::bert() {
  PreTokenizer p;
  p.steps_.push_back(Step{});
  return p;
}

PreTokenizer PreTokenizer::byte_level(bool add_prefix_space) {
  if constexpr (kBuildHasWordPieceOnly) throw_not_in_build("the ByteLevel pre_tokenizer");
  PreTokenizer p;
  Step step;
  step.kind = Step::Kind::ByteLevel;
  step.add_prefix_space = add_prefix_space;
  p.steps_.push_back(std::move(step));
  return p;
}

PreTokenizer PreTokenizer::from_json(const json& section) {
  PreTokenizer p;
  for (const json& member : sequence_members(section, "pretokenizers", "pre_tokenizer")) p.steps_.push_back(parse_step(member));
  return p;
}

bool PreTokenizer::cuts_at_spaces() const {
  for (const Step& s : steps_) {
    switch (s.kind) {
      case Step::Kind::Digits: continue;  // a run of digits never holds a space: it splits the same either way
      case Step::Kind::Bert:
      case Step::Kind::WhitespaceSplit: return true;
      case Step::Kind::ByteLevel: return s.use_regex;  // GPT-2's pattern: ` ?\p{L}+` ends at the space
      case Step::Kind::Metaspace: return s.split;      // a word starts at each '▁'
      case Step::Kind::Split:
        return s.pattern_cuts_at_spaces && !s.invert &&
               (s.behavior == Step::Behavior::Isolated || s.behavior == Step::Behavior::Removed);
    }
  }
  return false;
}

bool PreTokenizer::byte_level() const {
  for (const Step& s : steps_) if (s.kind == Step::Kind::ByteLevel) return true;
  return false;
}

std::vector<Word> PreTokenizer::split(const SpannedChar* begin, const SpannedChar* end) const {
  std::vector<Word> words;
  if (begin == end) return words;
  words.push_back(Word{std::vector<SpannedChar>(begin, end), false});
  for (const Step& step : steps_) {
    std::vector<Word> next;
    next.reserve(words.size());
    for (Word& w : words) {
      if (!w.chars.empty()) run_step(step, std::move(w), next);
    }
    words = std::move(next);
  }
  return words;
}

}  // namespace attnscope::tok
