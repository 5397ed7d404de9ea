// Finding space cuts (space_cuts.h) in UTF-8 bytes: all three bytes are ASCII, so a cut never
// falls inside a character or an invalid sequence.
#include "tokenizer/space_cuts.h"

namespace attnscope::tok {

bool is_ascii_alphanumeric(char32_t c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

size_t next_space_cut(std::string_view text, size_t from) {
  for (size_t i = from == 0 ? 1 : from; i + 1 < text.size(); ++i) {
    if (text[i] == ' ' && is_ascii_alphanumeric(static_cast<unsigned char>(text[i - 1])) &&
        is_ascii_alphanumeric(static_cast<unsigned char>(text[i + 1]))) {
      return i;
    }
  }
  return text.size();
}

}  // namespace attnscope::tok
