// tokenizers' Precompiled normalizer: SentencePiece's normalization rules as its model file
// stores them (normalizer_spec.precompiled_charsmap, base64 in tokenizer.json) — a double-array
// trie of UTF-8 keys whose values index NUL-terminated replacement strings — read as the
// spm_precompiled crate reads it and applied as tokenizers' normalizers/precompiled.rs applies it:
// per grapheme cluster, the whole cluster (when under 6 bytes) by its shortest matching key, else
// each character by its own; spans realigned as that file's `replace` and
// NormalizedString::transform do. A charsmap that sends the walk outside its arrays is an
// E_TOKENIZER error (Rust panics).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenizer/utf8_text.h"

namespace attnscope::tok {

class PrecompiledCharsmap {
 public:
  PrecompiledCharsmap() = default;
  // The decoded charsmap bytes; throws E_TOKENIZER when they are not a trie size, the trie and
  // UTF-8 replacement strings.
  explicit PrecompiledCharsmap(std::string_view bytes);
  static PrecompiledCharsmap from_base64(std::string_view text);

  std::vector<SpannedChar> apply(const std::vector<SpannedChar>& text) const;

  // The replacement for the shortest key that prefixes `key`, if any (spm_precompiled's transform).
  std::optional<std::string_view> transform(std::string_view key) const;
  // SentencePiece's own lookup (normalizer.cc NormalizePrefix): the longest key that prefixes
  // `text`, as {its length in bytes, its replacement}.
  std::optional<std::pair<size_t, std::string_view>> longest_prefix(std::string_view text) const;

 private:
  uint32_t unit(size_t pos) const;
  std::string_view replacement_at(size_t node) const;
  // Calls on_key(length, replacement) for each key prefixing `key`, shortest first, while it returns true.
  template <class OnKey>
  void common_prefixes(std::string_view key, OnKey on_key) const;

  std::vector<uint32_t> trie_;
  std::string normalized_;
};

}  // namespace attnscope::tok
