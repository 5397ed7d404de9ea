// The BPE model of byte-level tokenizers (GPT-2, RoBERTa): a pre-token's bytes start as one
// symbol each (the vocabulary id of the byte's mapped character), then the lowest-ranked merge
// among adjacent symbols is applied, leftmost first on ties, until none applies — the order of
// tokenizers' Word::merge_all. Results are cached per pre-token. It does not split text; that is
// byte_level.h's job.
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

// One merge rule "a b" → "ab" with its priority (line number in merges.txt, lower first).
struct BpeMerge {
  std::string left;
  std::string right;
};

struct BpeOptions {
  bool ignore_merges = false;  // a pre-token that is itself in the vocabulary is emitted whole
  std::string unk_token;       // empty: characters missing from the vocabulary are dropped, as HF does
  bool fuse_unk = false;       // consecutive unknown characters become one unk token
};

// A piece of a pre-token: vocabulary id and [begin, end) byte range within the pre-token.
struct BpePiece {
  int32_t id;
  uint32_t begin;
  uint32_t end;
};

class BpeModel {
 public:
  BpeModel() = default;
  // vocab maps mapped-character strings ("Ġthe") to ids. Throws Error("E_TOKENIZER") if a merge
  // names a token (or a merged result) that is not in the vocabulary, as tokenizers does.
  BpeModel(const VocabMap& vocab, const std::vector<BpeMerge>& merges, BpeOptions options);
  BpeModel(const BpeModel& other);
  BpeModel& operator=(const BpeModel& other);
  BpeModel(BpeModel&&) noexcept;
  BpeModel& operator=(BpeModel&&) noexcept;

  // Pieces of one pre-token given as raw bytes (before the byte → character mapping).
  std::vector<BpePiece> tokenize(std::string_view bytes) const;

  const VocabMap& vocab() const { return vocab_; }
  size_t merge_count() const { return ranks_.size(); }

 private:
  std::vector<BpePiece> merge_word(std::string_view bytes) const;

  VocabMap vocab_;
  BpeOptions options_;
  int32_t unk_id_ = -1;
  std::array<int32_t, 256> byte_ids_{};  // id of each byte's mapped character, -1 when absent
  // (left id << 32 | right id) → (rank, merged id).
  std::unordered_map<uint64_t, std::pair<uint32_t, int32_t>> ranks_;

  // Pre-tokens repeat (" the", ","), so their pieces are kept; bounded like tokenizers' cache.
  static constexpr size_t kCacheCapacity = 10000;
  static constexpr size_t kMaxCachedBytes = 256;
  mutable std::mutex cache_mutex_;
  mutable std::unordered_map<std::string, std::vector<BpePiece>> cache_;
};

}  // namespace attnscope::tok
