// The BPE model of tokenizers' models/bpe: a word's characters start as one symbol each (the
// vocabulary id of the character; with byte_fallback, a character missing from the vocabulary
// becomes its UTF-8 bytes as <0xNN> tokens; otherwise unk, fused if asked, or nothing), then the
// lowest-ranked merge among adjacent symbols is applied, leftmost first on ties, until none
// applies — the order of tokenizers' Word::merge_all. Byte-level tokenizers (GPT-2, Llama 3) reach
// it with characters the ByteLevel pre-tokenizer already mapped from bytes ('Ġ' for a space), so
// the model itself knows nothing of bytes. Results are cached per word. It does not split text.
#pragma once
#include <array>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tokenizer/token.h"

namespace attnscope::tok {

// One merge rule "a b" → "ab"; its priority is its index in the list (lower first).
struct BpeMerge {
  std::string left;
  std::string right;
};

struct BpeOptions {
  bool ignore_merges = false;  // a word that is itself in the vocabulary is emitted whole
  std::string unk_token;       // empty: characters missing from the vocabulary are dropped, as HF does
  bool fuse_unk = false;       // consecutive unknown characters become one unk token
  bool byte_fallback = false;  // a missing character becomes its bytes' <0xNN> tokens
};

// A piece of a word: vocabulary id and [begin, end) range of the word's characters.
struct BpePiece {
  int32_t id;
  uint32_t begin;
  uint32_t end;
};

class BpeModel {
 public:
  BpeModel() = default;
  // Throws Error("E_TOKENIZER") if a merge names a token (or a merged result) that is not in the
  // vocabulary, or unk_token is not in it, as tokenizers does.
  BpeModel(const VocabMap& vocab, const std::vector<BpeMerge>& merges, BpeOptions options);
  BpeModel(const BpeModel& other);
  BpeModel& operator=(const BpeModel& other);
  BpeModel(BpeModel&&) noexcept;
  BpeModel& operator=(BpeModel&&) noexcept;

  // Pieces of one word given as UTF-8; ranges count code points.
  std::vector<BpePiece> tokenize(std::string_view word) const;

  const VocabMap& vocab() const { return vocab_; }
  size_t merge_count() const { return ranks_.size(); }

 private:
  std::vector<BpePiece> merge_word(const std::u32string& chars) const;
  void copy_tables(const BpeModel& o);

  VocabMap vocab_;
  BpeOptions options_;
  int32_t unk_id_ = -1;
  std::unordered_map<char32_t, int32_t> char_ids_;  // vocabulary entries of one code point
  std::array<int32_t, 256> byte_fallback_ids_{};    // id of "<0xNN>", -1 when absent
  // (left id << 32 | right id) → (rank, merged id).
  std::unordered_map<uint64_t, std::pair<uint32_t, int32_t>> ranks_;

  // Words repeat (" the", ","), so their pieces are kept; bounded like tokenizers' cache.
  static constexpr size_t kCacheCapacity = 10000;
  static constexpr size_t kMaxCachedBytes = 256;
  mutable std::mutex cache_mutex_;
  mutable std::unordered_map<std::string, std::vector<BpePiece>> cache_;
};

}  // namespace attnscope::tok
