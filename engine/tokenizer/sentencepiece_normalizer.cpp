// Normalizer::Normalize of SentencePiece, over spanned characters: the text is walked as UTF-8
// (the charsmap's keys are byte strings), each step consuming the longest key or one character.
#include "tokenizer/sentencepiece_normalizer.h"

#include <string>
#include <string_view>

namespace attnscope::tok {
namespace {

constexpr char32_t kSpaceSymbol = 0x2581;  // '▁'

}  // namespace

std::vector<SpannedChar> normalize_sentencepiece(const std::vector<SpannedChar>& text, const PrecompiledCharsmap* charsmap,
                                                 const SpmNormalizerOptions& options) {
  std::string bytes;
  std::vector<size_t> char_at;  // byte → index of the character it belongs to
  bytes.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const size_t before = bytes.size();
    append_utf8(bytes, text[i].cp);
    char_at.insert(char_at.end(), bytes.size() - before, i);
  }
  // NormalizePrefix: what the text at `pos` becomes and how many bytes that consumes.
  std::string one;
  auto prefix = [&](size_t pos) -> std::pair<std::string_view, size_t> {
    if (charsmap) {
      if (auto match = charsmap->longest_prefix(std::string_view(bytes).substr(pos))) return {match->second, match->first};
    }
    one.clear();
    append_utf8(one, text[char_at[pos]].cp);
    return {one, one.size()};
  };
  auto span_of = [&](size_t pos, size_t length) {
    const SpannedChar& first = text[char_at[pos]];
    const SpannedChar& last = text[char_at[pos + length - 1]];
    return SpannedChar{0, first.start, last.end};
  };

  size_t pos = 0;
  if (options.remove_extra_whitespaces) {
    while (pos < bytes.size()) {
      const auto [replacement, length] = prefix(pos);
      if (replacement != " ") break;
      pos += length;
    }
  }
  std::vector<SpannedChar> out;
  if (pos >= bytes.size()) return out;
  const char32_t space = options.escape_whitespaces ? kSpaceSymbol : U' ';
  if (options.add_dummy_prefix) out.push_back({space, text[char_at[pos]].start, text[char_at[pos]].end});
  bool previous_space = options.remove_extra_whitespaces;
  while (pos < bytes.size()) {
    auto [replacement, length] = prefix(pos);
    const SpannedChar span = span_of(pos, length);
    if (previous_space) {
      while (!replacement.empty() && replacement.front() == ' ') replacement.remove_prefix(1);
    }
    if (!replacement.empty()) {
      for (const SpannedChar& c : decode_utf8(replacement)) {
        out.push_back({c.cp == U' ' && options.escape_whitespaces ? kSpaceSymbol : c.cp, span.start, span.end});
      }
      previous_space = replacement.back() == ' ';
    }
    pos += length;
    if (!options.remove_extra_whitespaces) previous_space = false;
  }
  if (options.remove_extra_whitespaces) {
    while (!out.empty() && out.back().cp == space) out.pop_back();
  }
  return out;
}

}  // namespace attnscope::tok
