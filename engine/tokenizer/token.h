// A token as the tokenizer stages hand it on: text, vocabulary id and [start, end) UTF-16 span in
// the original input, and for byte-level tokens a readable form. Shared by WordPiece, BPE, the
// added-token splitter and the post-processor.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace attnscope::tok {

struct Token {
  std::string text;
  int32_t id;
  int32_t start;
  int32_t end;
  std::string readable = {};  // label form when it differs from text (byte-level tokens); else empty
};

// One sequence's tokens as far as they were kept, and how many it has in all: a text longer than
// the model can take keeps only its first tokens; the rest are counted for num_truncated.
struct SequenceTokens {
  std::vector<Token> kept;
  size_t total = 0;
};

using VocabMap = std::unordered_map<std::string, int32_t>;

}  // namespace attnscope::tok
