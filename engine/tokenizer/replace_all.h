// Every occurrence of `from` in `s` replaced by `to`, left to right, never rescanning what was put
// in — Python's str.replace and Rust's str::replace, which the decoders reproduce. `from` must not
// be empty (the callers' patterns are fixed or refused when empty at parse time).
#pragma once
#include <string>

namespace attnscope::tok {

inline std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
  return s;
}

}  // namespace attnscope::tok
