// Stage 3 of the BERT tokenizer: the WordPiece model. Greedy longest-match-first over one word:
// pieces after the first carry the "##" prefix; if any position has no match the whole word is
// [UNK]; words longer than max_input_chars_per_word characters are [UNK] without lookup.
// It does not split text into words; that is the pre-tokenizer's job.
#pragma once
#include <string>
#include <vector>

#include "tokenizer/pre_tokenizer.h"
#include "tokenizer/token.h"
#include "tokenizer/utf8_text.h"

namespace attnscope::tok {

struct WordPieceConfig {
  std::string unk_token = "[UNK]";
  int32_t unk_id = -1;
  std::string continuing_subword_prefix = "##";
  int max_input_chars_per_word = 100;
  // Longest vocabulary entry in code points: no longer candidate can match, so the search
  // never tries one (keeps a 100-character word at ~100 × this lookups, not 100²).
  size_t longest_entry_chars = 0;
};

// Counts code points of the longest vocabulary entry (for WordPieceConfig::longest_entry_chars).
size_t longest_entry_chars(const VocabMap& vocab);

// Appends the pieces of text[word.begin, word.end) to out.
void wordpiece_tokenize(const std::vector<SpannedChar>& text, WordRange word, const VocabMap& vocab,
                        const WordPieceConfig& config, std::vector<Token>& out);

}  // namespace attnscope::tok
