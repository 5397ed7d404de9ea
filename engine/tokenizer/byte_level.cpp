// GPT-2's split pattern as a scanner, the byte ↔ character mapping, readable labels and offset
// trimming. The scanner mirrors how Oniguruma backtracks through the pattern's alternatives.
#include "tokenizer/byte_level.h"

#include <algorithm>

#include "tokenizer/unicode_tables.h"

namespace attnscope::tok {
namespace {

// What each alternative of the pattern tests a character for.
enum class CharClass : uint8_t { Letter, Number, Space, Other };

CharClass classify(char32_t cp) {
  if (cp < 128) {  // the common case without a table lookup
    if ((cp | 0x20) >= 'a' && (cp | 0x20) <= 'z') return CharClass::Letter;
    if (cp >= '0' && cp <= '9') return CharClass::Number;
    if (cp == ' ' || (cp >= 0x09 && cp <= 0x0D)) return CharClass::Space;
    return CharClass::Other;
  }
  if (is_white_space(cp)) return CharClass::Space;
  switch (general_category(cp)) {
    case Category::Lu: case Category::Ll: case Category::Lt: case Category::Lm: case Category::Lo:
      return CharClass::Letter;
    case Category::Nd: case Category::Nl: case Category::No:
      return CharClass::Number;
    default:
      return CharClass::Other;
  }
}

// Length of the contraction ('s 't 're 've 'm 'll 'd, lowercase only) at i, or 0.
size_t contraction_length(const std::vector<SpannedChar>& text, size_t i, size_t end) {
  if (text[i].cp != '\'' || i + 1 >= end) return 0;
  const char32_t a = text[i + 1].cp;
  if (a == 's' || a == 't' || a == 'm' || a == 'd') return 2;
  if (i + 2 >= end) return 0;
  const char32_t b = text[i + 2].cp;
  if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return 3;
  return 0;
}

// Whether the bytes at s start with a well-formed UTF-8 character; its length in n.
bool valid_char_at(std::string_view s, size_t& n) {
  const std::vector<SpannedChar> one = decode_utf8(s.substr(0, std::min<size_t>(4, s.size())));
  const char32_t cp = one.front().cp;
  n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
  // decode_utf8 writes U+FFFD for an invalid subpart; a real U+FFFD is EF BF BD.
  return cp != 0xFFFD || s.substr(0, 3) == "\xEF\xBF\xBD";
}

}  // namespace

std::vector<CharRange> split_gpt2_pattern(const std::vector<SpannedChar>& text, size_t begin, size_t end) {
  std::vector<CharRange> out;
  size_t i = begin;
  auto run_end = [&](size_t from, CharClass c) {
    while (from < end && classify(text[from].cp) == c) ++from;
    return from;
  };
  while (i < end) {
    if (const size_t n = contraction_length(text, i, end)) {
      out.push_back({i, i + n});
      i += n;
      continue;
    }
    const CharClass here = classify(text[i].cp);
    // ` ?\p{L}+`, ` ?\p{N}+`, ` ?[^\s\p{L}\p{N}]+`: an optional U+0020, then a run of one class.
    size_t body = i;
    if (text[i].cp == ' ' && i + 1 < end && classify(text[i + 1].cp) != CharClass::Space) body = i + 1;
    const CharClass body_class = body == i ? here : classify(text[body].cp);
    if (body_class != CharClass::Space) {
      const size_t stop = run_end(body, body_class);
      out.push_back({i, stop});
      i = stop;
      continue;
    }
    // `\s+(?!\S)` backs off one character when the run is followed by a non-space, so that the
    // last space can lead the next word; `\s+` then takes a lone whitespace character.
    const size_t stop = run_end(i, CharClass::Space);
    const size_t take = (stop < end && stop - i >= 2) ? stop - 1 : stop;
    out.push_back({i, take});
    i = take;
  }
  return out;
}

const std::array<std::string, 256>& byte_to_unicode() {
  static const std::array<std::string, 256> table = [] {
    std::array<std::string, 256> t;
    char32_t next_extra = 0x100;
    for (int b = 0; b < 256; ++b) {
      const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
      append_utf8(t[b], printable ? static_cast<char32_t>(b) : next_extra++);
    }
    return t;
  }();
  return table;
}

bool unicode_to_bytes(std::string_view mapped, std::string& bytes) {
  bytes.clear();
  for (const SpannedChar& c : decode_utf8(mapped)) {
    const char32_t cp = c.cp;
    if ((cp >= '!' && cp <= '~') || (cp >= 0xA1 && cp <= 0xAC) || (cp >= 0xAE && cp <= 0xFF)) {
      bytes += static_cast<char>(cp);
    } else if (cp >= 0x100 && cp < 0x100 + 68) {
      // The 68 unprintable bytes, in order: 0x00-0x20, 0x7F-0xA0, 0xAD.
      const unsigned k = cp - 0x100;
      bytes += static_cast<char>(k <= 0x20 ? k : k <= 0x20 + 34 ? 0x7F + (k - 0x21) : 0xAD);
    } else {
      return false;
    }
  }
  return true;
}

std::string readable_bytes(std::string_view bytes) {
  std::string out;
  size_t i = 0;
  while (i < bytes.size()) {
    size_t n = 1;
    if (!valid_char_at(bytes.substr(i), n)) {
      static const char* hex = "0123456789ABCDEF";
      const auto b = static_cast<uint8_t>(bytes[i]);
      out += "<0x";
      out += hex[b >> 4];
      out += hex[b & 15];
      out += '>';
      ++i;
      continue;
    }
    const auto c = static_cast<unsigned char>(bytes[i]);
    if (c == ' ') out += "\u2423";        // ␣
    else if (c == '\t') out += "\u21E5";  // ⇥
    else if (c == '\n') out += "\u21B5";  // ↵
    else if (c < 0x20) append_utf8(out, 0x2400 + c);  // Control Pictures ␀..␟
    else if (c == 0x7F) out += "\u2421";  // ␡
    else out.append(bytes.substr(i, n));
    i += n;
  }
  return out;
}

void trim_byte_level_offsets(std::vector<Token>& tokens, const std::vector<bool>& prefixed,
                             bool add_prefix_space, const std::vector<SpannedChar>& chars,
                             bool starts_sequence) {
  auto is_space = [](char32_t cp) { return cp == 0x120 || is_white_space(cp); };  // 'Ġ' or whitespace
  for (size_t i = 0; i < tokens.size(); ++i) {
    Token& t = tokens[i];
    const std::vector<SpannedChar> chars = decode_utf8(t.text);
    int32_t leading = 0, trailing = 0;
    while (leading < static_cast<int32_t>(chars.size()) && is_space(chars[leading].cp)) ++leading;
    while (trailing < static_cast<int32_t>(chars.size()) && is_space(chars[chars.size() - 1 - trailing].cp)) ++trailing;
    if (leading > 0) {
      const bool is_first = (i == 0 && starts_sequence) || t.start == 0 || prefixed[i];
      if (is_first && add_prefix_space && leading == 1) leading = 0;  // the space we prepended
      t.start = std::min(t.start + leading, t.end);
    }
    if (trailing > 0 && t.end >= trailing) t.end = std::max(t.end - trailing, t.start);
  }
  // Widen to whole characters: unit → [start, end) of the character holding it.
  if (chars.empty()) return;
  const int32_t first = chars.front().start;  // owner[u - first]: the units of chars only
  std::vector<std::pair<int32_t, int32_t>> owner(static_cast<size_t>(chars.back().end - first));
  for (const SpannedChar& c : chars) {
    for (int32_t u = c.start; u < c.end; ++u) owner[static_cast<size_t>(u - first)] = {c.start, c.end};
  }
  const auto units = static_cast<int32_t>(owner.size()) + first;
  for (Token& t : tokens) {
    if (t.start >= first && t.start < units) t.start = owner[static_cast<size_t>(t.start - first)].first;
    if (t.end > t.start && t.end > first && t.end <= units) {
      t.end = owner[static_cast<size_t>(t.end - 1 - first)].second;
    }
    t.end = std::max(t.end, t.start);
  }
}

}  // namespace attnscope::tok
