// A small backtracking regular-expression matcher over code points, for the patterns tokenizer.json
// writes in Split pre-tokenizers and Replace normalizers (GPT-4/Llama 3/Qwen splits and the like).
// It follows Oniguruma, which Hugging Face `tokenizers` runs: leftmost match, first alternative
// that matches wins, greedy quantifiers backtrack. Supported: literals and escapes (\r \n \t \f \v
// \xHH \x{H..} \uHHHH, escaped punctuation), `.`, classes [...] with ranges and negation,
// \s \S \d \D \w \W, \p{..}/\P{..} general categories (L, Lu, N, Nd, P, ...), groups ( ) (?: ),
// (?i: ) and (?i), alternation, ? * + {m} {m,} {m,n} {,n} (and lazy forms), lookahead (?= ) (?! ),
// ^ $ \A \z. Anything else (lookbehind, backreferences, \b, scripts like \p{Han}) is an
// E_TOKENIZER error naming it. Matching is bounded: an input that would make a pattern
// backtrack without end is an E_TOKENIZER error, never a hang.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attnscope::tok {

struct RegexProgram;  // the parsed pattern (regex.cpp)

class Regex {
 public:
  // Throws Error("E_TOKENIZER") naming the first construct it does not support.
  static Regex compile(std::string_view pattern);
  // A pattern that matches exactly this text (tokenizer.json's {"String": ...} patterns).
  static Regex literal(const std::u32string& text);

  // Non-overlapping leftmost matches in text[0, n), left to right; [begin, end) in code points.
  // Empty matches are skipped (tokenizers drops the empty pieces they would make).
  std::vector<std::pair<size_t, size_t>> find_all(const char32_t* text, size_t n) const;
  bool valid() const { return program_ != nullptr; }
  // Whether every match is whitespace only and depends on nothing around it (no lookahead or
  // anchor): such a pattern never reaches across a space cut (space_cuts.h).
  bool matches_only_white_space() const;

 private:
  std::shared_ptr<const RegexProgram> program_;
};

}  // namespace attnscope::tok
