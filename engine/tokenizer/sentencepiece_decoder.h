// Decoding as MarianTokenizer.convert_tokens_to_string does it: runs of ordinary tokens go
// through SentencePiece's DecodePieces (sentencepiece_processor.cc, as python3-sentencepiece
// 0.1.97 runs it: control pieces vanish, a piece the model lacks is kept as it is, the text's
// first '▁' is dropped when the model adds a dummy prefix or removes extra whitespace, every other
// '▁' becomes a space); each special token is written as itself followed by a space; any '▁' left
// becomes a space and the result loses its outer whitespace (Python's str.strip). With
// tokenizer_config's clean_up_tokenization_spaces, transformers' clean-up (" ." → ".") follows.
#pragma once
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "tokenizer/sentencepiece_model.h"

namespace attnscope::tok {

struct MarianDecoding {
  std::unordered_map<std::string, SpmPiece::Type> piece_types;  // the .spm's pieces
  std::string unk_piece, unk_surface;
  bool strip_first_space = true;          // add_dummy_prefix || remove_extra_whitespaces
  bool remove_extra_whitespaces = true;   // every leading '▁' piece loses its '▁', not just the first
  std::unordered_set<std::string> special_tokens;  // MarianTokenizer.all_special_tokens
  bool clean_up_tokenization_spaces = false;

  MarianDecoding() = default;
  MarianDecoding(const SpmModel& model, std::unordered_set<std::string> specials, bool clean_up);
};

std::string decode_marian(const std::vector<std::string>& tokens, const MarianDecoding& d);

}  // namespace attnscope::tok
