// UTF-8 in and out for the tokenizer: input bytes become code points that each remember the
// UTF-16 span (JavaScript string indices) of the source character they came from, so every later
// stage can report offsets in the caller's original string. Invalid UTF-8 is not an error here.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace attnscope::tok {

// One code point of (possibly normalized) text and the [start, end) UTF-16 span of the input
// character it came from. Characters produced by expanding one input character (NFD,
// lowercasing İ, Hangul jamo) all carry that character's span.
struct SpannedChar {
  char32_t cp;
  int32_t start;
  int32_t end;
};

// Decodes UTF-8, replacing each maximal invalid subpart (Unicode §3.9, the WHATWG decoder's rule)
// with U+FFFD, which occupies one UTF-16 unit — the same string JavaScript's TextDecoder builds.
std::vector<SpannedChar> decode_utf8(std::string_view bytes);

void append_utf8(std::string& out, char32_t cp);

}  // namespace attnscope::tok
