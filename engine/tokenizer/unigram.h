// The Unigram model of tokenizers' models/unigram (SentencePiece's unigram_model.cc): a word is
// split into the vocabulary pieces whose scores sum highest (Viterbi over a lattice of every piece
// that starts at every character). A character no piece covers costs the unknown piece's score
// (the lowest matchable score minus 10) and consecutive unknown characters fuse into one unk token, which
// keeps the text it covers; with byte_fallback that text becomes its <0xNN> byte tokens when all
// exist. Ties between equal scores keep the split found first, as Rust does. It does not split text.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tokenizer/token.h"

namespace attnscope::tok {

struct UnigramPiece {
  std::string token;
  double score;
  // False for the pieces a SentencePiece model keeps out of its lattice (unknown, control and
  // unused pieces): they have ids but never match text. tokenizer.json's pieces all match.
  bool matchable = true;
};

// A Unigram token: vocabulary id, its text (the covered text itself for an unknown piece, as Rust
// reports it) and the [begin, end) byte range of the word it covers (a byte token: the whole
// unknown text).
struct UnigramToken {
  int32_t id;
  std::string text;
  uint32_t begin;
  uint32_t end;
};

class UnigramModel {
 public:
  UnigramModel() = default;
  // unk_id < 0: none. Throws E_TOKENIZER when unk_id is outside the vocabulary, as tokenizers does.
  UnigramModel(std::vector<UnigramPiece> vocab, int32_t unk_id, bool byte_fallback);

  // Throws E_TOKENIZER where Rust fails: an unknown character and no unk_id.
  std::vector<UnigramToken> tokenize(std::string_view word) const;

  const VocabMap& token_to_ids() const { return token_to_ids_; }
  const std::vector<UnigramPiece>& vocab() const { return vocab_; }

 private:
  // The pieces' bytes as a trie: (node << 8 | byte) → child node; node 0 is the root.
  int32_t child(int32_t node, uint8_t byte) const;

  std::vector<UnigramPiece> vocab_;
  VocabMap token_to_ids_;  // a repeated token maps to its last id, as Rust's HashMap insert does
  int32_t unk_id_ = -1;
  bool byte_fallback_ = false;
  double unk_score_ = 0;
  std::unordered_map<uint64_t, int32_t> edges_;
  std::vector<int32_t> piece_at_;  // node → id of the piece ending there, -1 for none
};

}  // namespace attnscope::tok
