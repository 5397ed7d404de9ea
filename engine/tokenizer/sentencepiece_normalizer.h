// SentencePiece's own normalization (normalizer.cc Normalizer::Normalize), for models read from
// a .spm file: at each position the longest charsmap key is replaced (a position no key matches
// keeps its character); with remove_extra_whitespaces, leading spaces are dropped, runs of spaces
// become one and trailing ones are dropped; add_dummy_prefix puts one space in front of non-empty
// text; escape_whitespaces writes every space as '▁' (U+2581). This differs from tokenizers'
// Precompiled normalizer (per grapheme cluster, shortest key) — a Marian .spm is read the way
// SentencePiece reads it. Every output character keeps the span of the input it replaced; the
// dummy prefix takes the first kept character's.
#pragma once
#include <vector>

#include "tokenizer/precompiled.h"
#include "tokenizer/utf8_text.h"

namespace attnscope::tok {

struct SpmNormalizerOptions {
  bool add_dummy_prefix = true;
  bool remove_extra_whitespaces = true;
  bool escape_whitespaces = true;
};

// charsmap null: no rules (SentencePiece's "identity").
std::vector<SpannedChar> normalize_sentencepiece(const std::vector<SpannedChar>& text, const PrecompiledCharsmap* charsmap,
                                                 const SpmNormalizerOptions& options);

}  // namespace attnscope::tok
