// What every tokenizer returns (WordPiece and byte-level BPE alike): one entry per token, the
// template's special tokens included, in Hugging Face's Encoding layout.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace attnscope::tok {

struct Encoding {
  std::vector<std::string> tokens;       // vocabulary strings, as Hugging Face reports them ("Ġthe")
  std::vector<std::string> token_texts;  // readable form for labels ("␣the"; WordPiece: the token)
  std::vector<int32_t> ids;
  std::vector<int32_t> type_ids;
  std::vector<std::pair<int32_t, int32_t>> offsets;  // [start, end) UTF-16 units; (0,0) for template tokens
  std::vector<uint8_t> special_tokens_mask;          // 1 for template-added tokens ([CLS], <s>, ...)
  // For a pair, the offsets of B's tokens index into the pair string (as in Hugging Face).
  int32_t num_truncated = 0;                          // tokens dropped to fit max_length
};

}  // namespace attnscope::tok
