// The decoder stage of the pipeline, read from tokenizer.json's "decoder" section: how a list of
// tokens becomes text again, as tokenizers' decoders do it — ByteLevel (mapped characters back to
// bytes, read as UTF-8 with U+FFFD for broken sequences), WordPiece ("##" glued, spaces between
// words, optional cleanup), Metaspace ('▁' back to spaces), Replace, ByteFallback (<0xNN> tokens
// to bytes), Fuse, Strip, or a Sequence of them; Marian's .spm files decode as MarianTokenizer
// does (sentencepiece_decoder.h). With no decoder the tokens are joined with
// spaces. A type not reproduced here is an E_TOKENIZER error naming it.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tokenizer/sentencepiece_decoder.h"

namespace attnscope::tok {

struct DecoderStep {
  enum class Kind { ByteLevel, WordPiece, Metaspace, Replace, ByteFallback, Fuse, Strip, Marian };
  Kind kind = Kind::ByteLevel;
  std::string prefix = "##";       // WordPiece
  bool cleanup = true;             // WordPiece: tokenizers' cleanup of " ." " ," " n't" ...
  std::string pattern, content;    // Replace (a string pattern), Strip's content character
  char32_t replacement = 0x2581;   // Metaspace
  bool prepend = true;             // Metaspace: the first token's replacement characters are dropped
  size_t start = 0, stop = 0;      // Strip: how many leading/trailing content characters to remove
  std::shared_ptr<const MarianDecoding> marian;  // Marian (shared: copies of a Tokenizer)
};

class Decoder {
 public:
  Decoder() = default;  // none: tokens joined with spaces
  static Decoder byte_level();
  static Decoder wordpiece(const std::string& prefix, bool cleanup);
  static Decoder marian(MarianDecoding decoding);
  static Decoder from_json(const nlohmann::json& section);

  std::string decode(std::vector<std::string> tokens) const;

 private:
  std::vector<DecoderStep> steps_;
};

}  // namespace attnscope::tok
