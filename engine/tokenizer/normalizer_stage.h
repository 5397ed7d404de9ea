// The normalizer stage of the pipeline, read from tokenizer.json's "normalizer" section: a list
// of steps run in order over spanned characters — BertNormalizer (normalizer.h), Prepend,
// Replace, NFC, NFD, Lowercase, Strip, Precompiled (precompiled.h), or a Sequence of them; a .spm
// file's normalizer is one SentencePiece step (sentencepiece_normalizer.h). Every output character keeps the span of
// the input character it came from (a prepended string takes the first character's span, as
// tokenizers' NormalizedString::prepend aligns it). A type or option not reproduced here is an
// E_TOKENIZER error naming it. It does not split text; the pre-tokenizer does.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "tokenizer/normalizer.h"
#include "tokenizer/precompiled.h"
#include "tokenizer/regex.h"
#include "tokenizer/sentencepiece_normalizer.h"
#include "tokenizer/utf8_text.h"

namespace attnscope::tok {

struct NormalizerStep {
  enum class Kind { Bert, Prepend, Replace, Nfc, Nfd, Lowercase, Strip, Precompiled, SentencePiece };
  Kind kind = Kind::Bert;
  NormalizerOptions bert;   // Bert
  std::u32string text;      // Prepend: what to put in front; Replace: the replacement
  Regex pattern;            // Replace: what to replace (a String pattern is compiled as a literal)
  bool left = false, right = false;  // Strip: which ends lose their whitespace
  std::shared_ptr<const PrecompiledCharsmap> charsmap;  // Precompiled, SentencePiece (shared: copies of a Tokenizer)
  SpmNormalizerOptions spm;  // SentencePiece
};

class Normalizer {
 public:
  Normalizer() = default;  // no steps: the text as it is
  static Normalizer bert(const NormalizerOptions& options);
  // A .spm file's normalizer_spec: charsmap bytes ("" for none) and its whitespace switches.
  static Normalizer sentencepiece(std::string_view charsmap, const SpmNormalizerOptions& options);
  // The "normalizer" section; null means no normalizer.
  static Normalizer from_json(const nlohmann::json& section);

  std::vector<SpannedChar> apply(const SpannedChar* begin, const SpannedChar* end) const;
  // Whether normalizing the two sides of a space cut apart (space_cuts.h) gives what normalizing
  // them together gives, with the space still a space and the letters or digits beside it still
  // one character each that is not whitespace.
  bool keeps_space_cuts() const;

 private:
  std::vector<NormalizerStep> steps_;
};

}  // namespace attnscope::tok
