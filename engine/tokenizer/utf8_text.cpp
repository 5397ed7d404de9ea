// UTF-8 decoding with UTF-16 spans and U+FFFD replacement of maximal invalid subparts, and
// encoding back to UTF-8.
#include "tokenizer/utf8_text.h"

namespace attnscope::tok {

std::vector<SpannedChar> decode_utf8(std::string_view bytes) {
  std::vector<SpannedChar> out;
  out.reserve(bytes.size());
  const size_t n = bytes.size();
  int32_t u16 = 0;
  size_t i = 0;
  auto byte = [&](size_t k) { return static_cast<uint8_t>(bytes[k]); };
  while (i < n) {
    const uint8_t b0 = byte(i);
    char32_t cp = 0;
    size_t need = 0;
    // Allowed range of the second byte; later continuation bytes are always 80..BF. The narrow
    // ranges exclude overlongs, surrogates and code points above U+10FFFF.
    uint8_t lo = 0x80, hi = 0xBF;
    if (b0 < 0x80) {
      cp = b0;
    } else if (b0 >= 0xC2 && b0 <= 0xDF) {
      need = 1; cp = b0 & 0x1F;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
      need = 2; cp = b0 & 0x0F;
      if (b0 == 0xE0) lo = 0xA0;
      if (b0 == 0xED) hi = 0x9F;
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
      need = 3; cp = b0 & 0x07;
      if (b0 == 0xF0) lo = 0x90;
      if (b0 == 0xF4) hi = 0x8F;
    } else {
      need = static_cast<size_t>(-1);  // 80..C1, F5..FF never start a character
    }
    size_t used = 1;
    bool valid = need != static_cast<size_t>(-1);
    for (size_t k = 0; valid && k < need; ++k) {
      if (i + used >= n) { valid = false; break; }
      const uint8_t b = byte(i + used);
      const uint8_t min = k == 0 ? lo : 0x80, max = k == 0 ? hi : 0xBF;
      if (b < min || b > max) { valid = false; break; }  // this byte starts the next character
      cp = (cp << 6) | (b & 0x3F);
      ++used;
    }
    if (!valid) cp = 0xFFFD;  // the bytes consumed so far are one maximal invalid subpart
    const int32_t width = cp >= 0x10000 ? 2 : 1;
    out.push_back({cp, u16, u16 + width});
    u16 += width;
    i += used;
  }
  return out;
}

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

}  // namespace attnscope::tok
