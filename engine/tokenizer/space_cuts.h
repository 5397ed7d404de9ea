// Where a long text may be cut so that tokenizing the pieces one after another gives exactly the
// tokens of the whole: at a "space cut", a single ASCII space with an ASCII letter or digit on
// each side ("a b"), the cut made just before the space. Every stage of the bundled tokenizers
// (BERT, GPT-2, T5) ends a word there whatever comes before or after, so a text longer than the
// model can take is tokenized piece by piece in bounded memory, the tokens past the limit counted
// and dropped (Tokenizer::encode). Whether a tokenizer's stages allow it is each stage's to say
// (Normalizer::keeps_space_cuts, PreTokenizer::cuts_at_spaces, and the added tokens in
// Tokenizer); one that does not is tokenized whole, as before.
#pragma once
#include <cstddef>
#include <string_view>

namespace attnscope::tok {

// Pieces are about this long: large enough that cutting costs nothing, small enough that a
// piece's characters, words and tokens stay a few MB.
inline constexpr size_t kPieceBytes = 1 << 16;

// The byte index of the first space cut at or after `from` (the index of its space), or
// text.size() when there is none.
size_t next_space_cut(std::string_view text, size_t from);

// The cut's neighbours: an ASCII letter or digit.
bool is_ascii_alphanumeric(char32_t c);

}  // namespace attnscope::tok
