// BertPreTokenizer: one pass over the characters, cutting at whitespace and around punctuation.
#include "tokenizer/pre_tokenizer.h"

#include "tokenizer/unicode_tables.h"

namespace attnscope::tok {

bool is_bert_punctuation(char32_t cp) {
  if ((cp >= 33 && cp <= 47) || (cp >= 58 && cp <= 64) || (cp >= 91 && cp <= 96) ||
      (cp >= 123 && cp <= 126)) {
    return true;
  }
  switch (general_category(cp)) {
    case Category::Pc: case Category::Pd: case Category::Ps: case Category::Pe:
    case Category::Pi: case Category::Pf: case Category::Po:
      return true;
    default:
      return false;
  }
}

std::vector<WordRange> pre_tokenize_bert(const std::vector<SpannedChar>& text) {
  return pre_tokenize_bert(text, 0, text.size());
}

std::vector<WordRange> pre_tokenize_bert(const std::vector<SpannedChar>& text, size_t begin, size_t end) {
  std::vector<WordRange> words;
  size_t word_start = begin;
  bool in_word = false;
  for (size_t i = begin; i < end; ++i) {
    const char32_t cp = text[i].cp;
    // Rust's char::is_whitespace: the White_Space property, which already covers \t \n \r.
    const bool space = is_white_space(cp);
    const bool punct = !space && is_bert_punctuation(cp);
    if (space || punct) {
      if (in_word) words.push_back({word_start, i});
      in_word = false;
      if (punct) words.push_back({i, i + 1});
    } else if (!in_word) {
      word_start = i;
      in_word = true;
    }
  }
  if (in_word) words.push_back({word_start, end});
  return words;
}

}  // namespace attnscope::tok
