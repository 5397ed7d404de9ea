// The one tokenizer the rest of AttnScope uses: WordPiece (BERT family) or byte-level BPE
// (GPT-2, RoBERTa) behind the same interface, picked from the files a model folder ships.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "tokenizer/bert_tokenizer.h"
#include "tokenizer/bpe_tokenizer.h"
#include "tokenizer/encoding.h"

namespace attnscope::tok {

// The tokenizer files of a Hugging Face model folder; absent ones are empty.
struct TokenizerFiles {
  std::string_view vocab_txt;              // WordPiece
  std::string_view vocab_json;             // BPE, with merges_txt
  std::string_view merges_txt;
  std::string_view tokenizer_json;         // either kind; wins over the others
  std::string_view tokenizer_config_json;  // settings and special tokens for the older files
};

// Names of the special tokens ("" when the tokenizer has none of that role).
struct SpecialTokens {
  std::string cls, sep, pad, mask, unk;
};

class Tokenizer {
 public:
  // tokenizer.json decides by its model.type; otherwise vocab.json + merges.txt mean BPE and
  // vocab.txt WordPiece. Throws Error("E_TOKENIZER") when no usable set is given.
  static Tokenizer from_files(const TokenizerFiles& files);

  Encoding encode(std::string_view text, const std::optional<std::string_view>& pair = std::nullopt,
                  int max_length = 0) const;
  int32_t token_to_id(std::string_view token) const;  // -1 when absent
  const std::string& id_to_token(int32_t id) const;    // throws Error("E_INPUT") out of range
  // Readable form of a vocabulary entry for labels: byte-level entries decoded ("Ġthe" → "␣the");
  // WordPiece entries as they are.
  std::string token_text(int32_t id) const;
  // The text of a sequence of ids, as Hugging Face's decode (special tokens kept): byte-level
  // tokens' bytes joined and read as UTF-8 (a sequence cut inside a character gives U+FFFD, like
  // errors="replace"); WordPiece tokens joined with spaces, "##" pieces glued to the one before.
  // Throws Error("E_INPUT") for an id outside the vocabulary.
  std::string decode(const std::vector<int32_t>& ids) const;
  size_t vocab_size() const;
  SpecialTokens special_tokens() const;
  bool is_byte_level() const { return std::holds_alternative<BpeTokenizer>(impl_); }

 private:
  explicit Tokenizer(std::variant<BertTokenizer, BpeTokenizer> impl) : impl_(std::move(impl)) {}
  std::variant<BertTokenizer, BpeTokenizer> impl_;
};

}  // namespace attnscope::tok
