// The ByteLevel stage of GPT-2/RoBERTa tokenizers, as Hugging Face `tokenizers` implements it:
// GPT-2's split pattern (run as a hand-written scanner, not a regex), the byte → printable
// character mapping ('Ġ' for a space), ByteLevel/RobertaProcessing offset trimming, and the
// readable form of a byte-level token for labels. It does not merge; that is bpe.h's job.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/token.h"
#include "tokenizer/utf8_text.h"

namespace attnscope::tok {

// [begin, end) indexes into the characters the scanner was given.
struct CharRange {
  size_t begin;
  size_t end;
};

// Splits text[begin, end) as Oniguruma (what tokenizers runs) matches GPT-2's pattern
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// left to right, first alternative that matches wins; \s is White_Space, \p{L}/\p{N} the L*/N*
// general categories. Every character lands in exactly one piece.
std::vector<CharRange> split_gpt2_pattern(const std::vector<SpannedChar>& text, size_t begin, size_t end);

// GPT-2's bytes_to_unicode: the printable bytes map to themselves, the other 68 to U+0100.. in
// byte order (so ' ' → 'Ġ' U+0120, '\n' → 'Ċ' U+010A). Entries are UTF-8.
const std::array<std::string, 256>& byte_to_unicode();
// The inverse over a UTF-8 string of mapped characters: false if some character is not one.
bool unicode_to_bytes(std::string_view mapped, std::string& bytes);

// The readable form of raw bytes for labels: UTF-8 decoded, a space shown as '␣', tab '⇥',
// newline '↵', other C0 controls and DEL as their Control Pictures (U+2400..), and bytes that do
// not form a whole character (a token that ends inside an emoji) as <0xF0> per byte.
std::string readable_bytes(std::string_view bytes);

// ByteLevel/RobertaProcessing trim_offsets over one sequence's tokens, as tokenizers'
// process_offsets: leading/trailing 'Ġ' (or whitespace) of a token move its start/end inward,
// except one leading 'Ġ' that add_prefix_space put there. tokenizers recognises that space only
// on the sequence's first token (or one at offset 0), so after an added token ("<s>hello") it
// trims a character that is not a space ("ello"); here prefixed[i] marks the tokens that begin
// with a prepended space, so their spans keep the word — a deliberate difference in offsets only.
// Spans are then widened to whole characters of `chars` (the input): the prepended space carries
// its word's first character's span, and trimming it off must not cut a surrogate pair.
// starts_sequence: tokens[0] is the sequence's first token (false for a later piece of a text cut
// at spaces, space_cuts.h); chars may then begin past offset 0.
void trim_byte_level_offsets(std::vector<Token>& tokens, const std::vector<bool>& prefixed,
                             bool add_prefix_space, const std::vector<SpannedChar>& chars,
                             bool starts_sequence = true);

}  // namespace attnscope::tok
