// The pre-tokenizer stage of the pipeline, read from tokenizer.json's "pre_tokenizer" section:
// steps that cut normalized text into words for the model, run in order over every word so far —
// BertPreTokenizer (pre_tokenizer.h), ByteLevel (GPT-2's split and the byte → character mapping,
// byte_level.h), Split (a regex with tokenizers' delimiter behaviours, regex.h), Metaspace
// ('▁' for spaces, SentencePiece style), WhitespaceSplit, Digits (SmolLM's), or a Sequence of them. A type or option not reproduced
// here is an E_TOKENIZER error naming it. It does not look words up; the model does.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tokenizer/regex.h"
#include "tokenizer/utf8_text.h"

namespace attnscope::tok {

// A word for the model: its characters, each with the span of the input character it came from.
// prefixed: ByteLevel put a space in front of it (offset trimming must not count that space).
struct Word {
  std::vector<SpannedChar> chars;
  bool prefixed = false;
};

struct PreTokenizerStep {
  enum class Kind { Bert, ByteLevel, Split, Metaspace, Digits, WhitespaceSplit };
  // tokenizers' SplitDelimiterBehavior: what happens to the pattern's matches.
  enum class Behavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };
  enum class Prepend { Always, First, Never };  // Metaspace's prepend_scheme
  Kind kind = Kind::Bert;
  bool add_prefix_space = false;  // ByteLevel
  bool use_regex = true;          // ByteLevel: GPT-2's split, else one piece
  Regex pattern;                  // Split
  Behavior behavior = Behavior::Isolated;
  bool invert = false;            // Split: the pieces between matches are the delimiters
  bool pattern_cuts_at_spaces = false;  // Split: a known pattern that ends a match at every space cut
  char32_t replacement = 0x2581;  // Metaspace '▁'
  Prepend prepend = Prepend::Always;
  bool split = true;              // Metaspace: cut before each replacement character
  bool individual_digits = false; // Digits: every digit alone (else runs of digits)
};

class PreTokenizer {
 public:
  PreTokenizer() = default;  // no steps: the whole text is one word
  static PreTokenizer bert();
  static PreTokenizer byte_level(bool add_prefix_space);
  // The "pre_tokenizer" section; null means none.
  static PreTokenizer from_json(const nlohmann::json& section);

  std::vector<Word> split(const SpannedChar* begin, const SpannedChar* end) const;
  // Whether the words of the two sides of a space cut (space_cuts.h), split apart, are the words
  // of the whole: a step ends a word at the cut before any other step could join across it.
  bool cuts_at_spaces() const;
  // Whether a ByteLevel step maps bytes to characters (the model's tokens are then byte strings).
  bool byte_level() const;

 private:
  std::vector<PreTokenizerStep> steps_;
};

}  // namespace attnscope::tok
