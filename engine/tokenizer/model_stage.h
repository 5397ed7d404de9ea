// The model stage of the pipeline, read from tokenizer.json's "model" section (or built from
// vocab.txt / vocab.json + merges.txt, or a .spm file with Marian's vocab.json): WordPiece
// (wordpiece.h), BPE (bpe.h) or Unigram (unigram.h) turning one word
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

// A SentencePiece model whose pieces get their ids from a separate vocabulary, as MarianTokenizer
// does: the .spm's Unigram finds the pieces, vocab.json numbers them (a piece it lacks: unk_id).
struct SentencePieceVocabModel {
  UnigramModel pieces;
  VocabMap vocab;
  int32_t unk_id;
};

class Model {
 public:
  Model() = default;
  // id_to_token lists the vocabulary by id (vocab.txt keeps a repeated line at each of its ids).
  static Model wordpiece(VocabMap vocab, std::vector<std::string> id_to_token, WordPieceConfig config);
  static Model bpe(const VocabMap& vocab, const std::vector<BpeMerge>& merges, BpeOptions options);
  static Model unigram(std::vector<UnigramPiece> vocab, int32_t unk_id, bool byte_fallback);
  // pieces/spm_unk_id: the .spm's; vocab: piece → id; unk_token must be in vocab.
  static Model sentencepiece_with_vocab(std::vector<UnigramPiece> pieces, int32_t spm_unk_id, VocabMap vocab,
                                        const std::string& unk_token);
  // The "model" section; an old file without "type" is BPE when it has merges, else WordPiece.
  static Model from_json(const nlohmann::json& section);

  void tokenize(const Word& word, std::vector<Token>& out) const;
  int32_t token_to_id(std::string_view token) const;  // -1 when absent
  const std::vector<std::string>& tokens() const { return tokens_; }  // id → token ("" for gaps)
  bool is_wordpiece() const { return std::holds_alternative<WordPieceModel>(impl_); }
  const std::string& unk_token() const { return unk_token_; }

 private:
  std::variant<WordPieceModel, BpeModel, UnigramModel, SentencePieceVocabModel> impl_;
  std::vector<std::string> tokens_;
  std::string unk_token_;
};

// The file formats the legacy loaders share with tokenizer.json: vocab.json's {token: id} object
// and merges.txt's "a b" lines.
VocabMap parse_vocab_object(const nlohmann::json& vocab, const std::string& where);
std::vector<BpeMerge> parse_merges_txt(std::string_view text);

}  // namespace attnscope::tok
