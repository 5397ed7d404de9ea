// A token as the tokenizer stages hand it on: text, vocabulary id and [start, end) UTF-16 span in
// the original input, and for byte-level tokens a readable form. Shared by WordPiece, BPE, the
// added-token splitter and the post-processor.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>

namespace attnscope::tok {

struct Token {
  std::string text;
  int32_t id;
  int32_t start;
  int32_t end;
  std::string readable = {};  // label form when it differs from text (byte-level tokens); else empty
};

using VocabMap = std::unordered_map<std::string, int32_t>;

}  // namespace attnscope::tok
