// SentencePiece's model file (Marian's source.spm / target.spm, any *.model): a serialized
// ModelProto (sentencepiece_model.proto) read by a small bounded protobuf reader that keeps what
// encoding and decoding need — the pieces (text, score, type), the trainer's model type and
// byte_fallback, the normalizer spec (precompiled charsmap and its three whitespace switches).
// Every length and count is checked against the bytes that remain, so malformed, truncated or
// hostile input ends in Error("E_TOKENIZER") naming the file and what is wrong, never a crash. A
// model AttnScope would not reproduce exactly (BPE, word or char models, user-defined symbols,
// byte fallback, whitespace as suffix, denormalization rules) is refused with its feature named.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace attnscope::tok {

struct SpmPiece {
  // ModelProto.SentencePiece.Type: NORMAL pieces are what Viterbi matches; the others are ids
  // only (UNKNOWN <unk>, CONTROL <s> </s>, UNUSED), or rejected (USER_DEFINED, BYTE).
  enum class Type { Normal = 1, Unknown = 2, Control = 3, UserDefined = 4, Unused = 5, Byte = 6 };
  std::string piece;
  float score = 0;
  Type type = Type::Normal;
};

// NormalizerSpec, with proto2's defaults.
struct SpmNormalizerSpec {
  std::string name;                  // "nmt_nfkc", "identity", ... (for messages only)
  std::string precompiled_charsmap;  // the rules as a double-array trie + replacement strings
  bool add_dummy_prefix = true;
  bool remove_extra_whitespaces = true;
  bool escape_whitespaces = true;
};

struct SpmModel {
  std::vector<SpmPiece> pieces;  // id = index
  int32_t unk_id = -1;           // the UNKNOWN piece (exactly one, as SentencePiece requires)
  std::string unk_surface = " \u2047 ";  // trainer_spec.unk_surface: how decoding writes the unknown piece
  SpmNormalizerSpec normalizer;
};

// Parses and validates; `file` names the file in messages ("source.spm").
SpmModel parse_spm_model(std::string_view bytes, const std::string& file);

}  // namespace attnscope::tok
