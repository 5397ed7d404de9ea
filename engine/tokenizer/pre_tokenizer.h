// Stage 2 of the BERT tokenizer: Hugging Face's BertPreTokenizer. Splits normalized text into
// words on whitespace (removed) and isolates every punctuation character as its own word. It
// does not look words up; that is WordPiece's job.
#pragma once
#include <cstddef>
#include <vector>

#include "tokenizer/utf8_text.h"

namespace attnscope::tok {

struct WordRange {
  size_t begin;  // index into the normalized characters
  size_t end;
};

// BERT's punctuation: ASCII 33–47, 58–64, 91–96, 123–126 (so $ + < = > ^ ` | ~ count) plus
// every Unicode P* category.
bool is_bert_punctuation(char32_t cp);

std::vector<WordRange> pre_tokenize_bert(const std::vector<SpannedChar>& text);
// The same over text[begin, end); ranges index into text.
std::vector<WordRange> pre_tokenize_bert(const std::vector<SpannedChar>& text, size_t begin, size_t end);

}  // namespace attnscope::tok
