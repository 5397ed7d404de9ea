// The Precompiled normalizer: the double-array walk of spm_precompiled's DoubleArray and the
// grapheme loop of tokenizers' Precompiled::normalize.
#include "tokenizer/precompiled.h"

#include "error.h"
#include "tokenizer/grapheme.h"

namespace attnscope::tok {
namespace {

[[noreturn]] void fail(const std::string& what) { throw Error("E_TOKENIZER", "normalizer Precompiled: " + what); }

// A double-array unit: label (the byte that leads here, bit 31 set for non-leaves), whether a
// value hangs below, and the offset to the children.
bool has_leaf(uint32_t unit) { return ((unit >> 8) & 1) == 1; }
uint32_t value(uint32_t unit) { return unit & ((1u << 31) - 1); }
uint32_t label(uint32_t unit) { return unit & ((1u << 31) | 0xFF); }
size_t offset(uint32_t unit) { return static_cast<size_t>((unit >> 10) << ((unit & (1u << 9)) >> 6)); }

int base64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

// Standard base64 with padding, as Rust's base64 STANDARD engine requires.
std::string decode_base64(std::string_view text) {
  if (text.size() % 4 != 0) fail("precompiled_charsmap is not base64 (its length is not a multiple of 4)");
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    int v[4];
    int pad = 0;
    for (int k = 0; k < 4; ++k) {
      if (last && k >= 2 && text[i + k] == '=' && (k == 3 || text[i + 3] == '=')) { v[k] = 0; ++pad; continue; }
      v[k] = base64_value(text[i + k]);
      if (v[k] < 0) fail("precompiled_charsmap is not base64 (character " + std::to_string(i + k) + ")");
    }
    const uint32_t n = (static_cast<uint32_t>(v[0]) << 18) | (static_cast<uint32_t>(v[1]) << 12) |
                       (static_cast<uint32_t>(v[2]) << 6) | static_cast<uint32_t>(v[3]);
    out += static_cast<char>(n >> 16);
    if (pad < 2) out += static_cast<char>((n >> 8) & 0xFF);
    if (pad < 1) out += static_cast<char>(n & 0xFF);
  }
  return out;
}

bool valid_utf8(std::string_view s) {
  std::string back;
  for (const SpannedChar& c : decode_utf8(s)) append_utf8(back, c.cp);
  return back == s;
}

}  // namespace

PrecompiledCharsmap::PrecompiledCharsmap(std::string_view bytes) {
  if (bytes.size() < 4) fail("precompiled_charsmap is shorter than its 4-byte trie size");
  const uint32_t trie_size = static_cast<uint8_t>(bytes[0]) | static_cast<uint32_t>(static_cast<uint8_t>(bytes[1])) << 8 |
                             static_cast<uint32_t>(static_cast<uint8_t>(bytes[2])) << 16 |
                             static_cast<uint32_t>(static_cast<uint8_t>(bytes[3])) << 24;
  if (trie_size % 4 != 0 || trie_size > bytes.size() - 4) {
    fail("precompiled_charsmap's trie size " + std::to_string(trie_size) + " does not fit its " +
         std::to_string(bytes.size()) + " bytes");
  }
  trie_.resize(trie_size / 4);
  for (size_t i = 0; i < trie_.size(); ++i) {
    const auto* p = reinterpret_cast<const uint8_t*>(bytes.data()) + 4 + 4 * i;
    trie_[i] = p[0] | static_cast<uint32_t>(p[1]) << 8 | static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
  }
  normalized_ = std::string(bytes.substr(4 + trie_size));
  if (!valid_utf8(normalized_)) fail("precompiled_charsmap's replacement strings are not UTF-8");
}

PrecompiledCharsmap PrecompiledCharsmap::from_base64(std::string_view text) { return PrecompiledCharsmap(decode_base64(text)); }

uint32_t PrecompiledCharsmap::unit(size_t pos) const {
  if (pos >= trie_.size()) fail("precompiled_charsmap's trie leads outside itself (unit " + std::to_string(pos) + ")");
  return trie_[pos];
}

std::string_view PrecompiledCharsmap::replacement_at(size_t node) const {
  const size_t index = value(unit(node));
  // Rust slices normalized[index..]: the very end is an empty replacement, beyond it a panic.
  if (index > normalized_.size()) fail("a replacement index " + std::to_string(index) + " is outside the strings");
  if (index < normalized_.size() && (static_cast<uint8_t>(normalized_[index]) & 0xC0) == 0x80) {
    fail("a replacement starts inside a character");
  }
  const size_t stop = normalized_.find('\0', index);
  return std::string_view(normalized_).substr(index, stop == std::string::npos ? std::string::npos : stop - index);
}

template <class OnKey>
void PrecompiledCharsmap::common_prefixes(std::string_view key, OnKey on_key) const {
  // DoubleArray::common_prefix_search: every key that prefixes `key`, shortest first. A NUL byte
  // never matches (its label is the leaf marker's).
  size_t node = 0;
  uint32_t u = unit(node);
  node ^= offset(u);
  for (size_t i = 0; i < key.size(); ++i) {
    const auto c = static_cast<uint8_t>(key[i]);
    if (c == 0) return;
    node ^= c;
    u = unit(node);
    if (label(u) != c) return;
    node ^= offset(u);
    if (has_leaf(u) && !on_key(i + 1, replacement_at(node))) return;
  }
}

std::optional<std::string_view> PrecompiledCharsmap::transform(std::string_view key) const {
  // spm_precompiled keeps the first result (the shortest key).
  std::optional<std::string_view> out;
  common_prefixes(key, [&](size_t, std::string_view replacement) {
    out = replacement;
    return false;
  });
  return out;
}

std::optional<std::pair<size_t, std::string_view>> PrecompiledCharsmap::longest_prefix(std::string_view text) const {
  std::optional<std::pair<size_t, std::string_view>> out;
  common_prefixes(text, [&](size_t length, std::string_view replacement) {
    out = std::pair{length, replacement};
    return true;
  });
  return out;
}

std::vector<SpannedChar> PrecompiledCharsmap::apply(const std::vector<SpannedChar>& text) const {
  // tokenizers' list of (character, change): 0 replaces the next input character, 1 is inserted
  // (taking the previous character's span), -n also swallows n more input characters.
  struct Change {
    char32_t cp;
    int64_t change;
  };
  std::vector<Change> changes;
  changes.reserve(text.size());
  auto replace = [&](size_t old_count, std::string_view part) {
    const size_t first = changes.size();
    for (const SpannedChar& c : decode_utf8(part)) changes.push_back({c.cp, 0});
    const int64_t diff = static_cast<int64_t>(changes.size() - first) - static_cast<int64_t>(old_count);
    if (diff > 0) {
      for (size_t k = changes.size() - static_cast<size_t>(diff); k < changes.size(); ++k) changes[k].change = 1;
    } else if (diff < 0 && !changes.empty()) {
      changes.back().change += diff;  // possibly a character of an earlier cluster
    }
  };
  std::u32string cps;
  cps.reserve(text.size());
  for (const SpannedChar& c : text) cps += c.cp;
  std::string key;
  for (size_t begin = 0; begin < cps.size();) {
    const size_t end = grapheme_end(cps.data(), begin, cps.size());
    key.clear();
    for (size_t i = begin; i < end; ++i) append_utf8(key, cps[i]);
    std::optional<std::string_view> whole;
    if (key.size() < 6) whole = transform(key);
    if (whole) {
      replace(end - begin, *whole);
    } else {
      for (size_t i = begin; i < end; ++i) {
        key.clear();
        append_utf8(key, cps[i]);
        if (auto part = transform(key)) replace(1, *part);
        else changes.push_back({cps[i], 0});
      }
    }
    begin = end;
  }

  // NormalizedString::transform: walk the input alongside.
  std::vector<SpannedChar> out;
  out.reserve(changes.size());
  size_t at = 0;
  for (const Change& c : changes) {
    if (c.change > 0) {
      const SpannedChar& prev = at > 0 ? text[at - 1] : text.front();
      out.push_back({c.cp, prev.start, at > 0 ? prev.end : prev.start});
      continue;
    }
    if (at >= text.size()) fail("internal: the replacements outran the text");
    out.push_back({c.cp, text[at].start, text[at].end});
    at += 1 + static_cast<size_t>(-c.change);
  }
  return out;
}

}  // namespace attnscope::tok
