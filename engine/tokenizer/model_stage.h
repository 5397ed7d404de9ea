// The model stage of the pipeline, read from tokenizer.json's "model" section (or built from
// vocab.txt / vocab.json + merges.txt): WordPiece (wordpiece.h), BPE (bpe.h) or Unigram
// (unigram.h) turning one word
// into tokens with vocabulary ids and input spans. A model type or option not reproduced here is
// an E_TOKENIZER error naming it. It does not split text into words; the pre-tokenizer does.
#pragma once
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "tokenizer/bpe.h"
#include "tokenizer/pre_tokenizer_stage.h"
#include "tokenizer/token.h"
#include "tokenizer/unigram.h"
#include "tokenizer/wordpiece.h"

namespace attnscope::tok {

struct WordPieceModel {
  VocabMap vocab;
  WordPieceConfig config;
};

class Model {
 public:
  Model() = default;
  // id_to_token lists the vocabulary by id (vocab.txt keeps a repeated line at each of its ids).
  static Model wordpiece(VocabMap vocab, std::vector<std::string> id_to_token, WordPieceConfig config);
  static Model bpe(const VocabMap& vocab, const std::vector<BpeMerge>& merges, BpeOptions options);
  static Model unigram(std::vector<UnigramPiece> vocab, int32_t unk_id, bool byte_fallback);
  // The "model" section; an old file without "type" is BPE when it has merges, else WordPiece.
  static Model from_json(const nlohmann::json& section);

  void tokenize(const Word& word, std::vector<Token>& out) const;
  int32_t token_to_id(std::string_view token) const;  // -1 when absent
  const std::vector<std::string>& tokens() const { return tokens_; }  // id → token ("" for gaps)
  bool is_wordpiece() const { return std::holds_alternative<WordPieceModel>(impl_); }
  const std::string& unk_token() const { return unk_token_; }

 private:
  std::variant<WordPieceModel, BpeModel, UnigramModel> impl_;
  std::vector<std::string> tokens_;
  std::string unk_token_;
};

// The file formats the legacy loaders share with tokenizer.json: vocab.json's {token: id} object
// and merges.txt's "a b" lines.
VocabMap parse_vocab_object(const nlohmann::json& vocab, const std::string& where);
std::vector<BpeMerge> parse_merges_txt(std::string_view text);

}  // namespace attnscope::tok
