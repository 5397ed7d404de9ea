// BPE merges over one pre-token, in the order of tokenizers' Word::merge_all: a min-heap of
// (rank, position) candidates; a popped candidate whose symbols changed since it was pushed is
// stale and skipped.
#include "tokenizer/bpe.h"

#include <queue>

#include "error.h"
#include "tokenizer/byte_level.h"

namespace attnscope::tok {
namespace {

uint64_t pair_key(int32_t left, int32_t right) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) | static_cast<uint32_t>(right);
}

struct Symbol {
  int32_t id;
  int32_t prev;  // index of the previous live symbol, -1 at the start
  int32_t next;  // index of the next live symbol, -1 at the end
  uint32_t begin, end;  // bytes of the pre-token; begin == end once merged into its left neighbour
};

struct Candidate {
  uint32_t rank;
  int32_t pos;
  int32_t merged_id;
  // std::priority_queue pops the largest: invert so the lowest rank, then leftmost, comes first.
  bool operator<(const Candidate& o) const { return rank != o.rank ? rank > o.rank : pos > o.pos; }
};

}  // namespace

BpeModel::BpeModel(const VocabMap& vocab, const std::vector<BpeMerge>& merges, BpeOptions options)
    : vocab_(vocab), options_(std::move(options)) {
  const auto& mapped = byte_to_unicode();
  for (int b = 0; b < 256; ++b) {
    auto it = vocab_.find(mapped[b]);
    byte_ids_[b] = it == vocab_.end() ? -1 : it->second;
  }
  if (!options_.unk_token.empty()) {
    auto it = vocab_.find(options_.unk_token);
    if (it == vocab_.end()) {
      throw Error("E_TOKENIZER", "unk_token '" + options_.unk_token + "' is not in the vocabulary");
    }
    unk_id_ = it->second;
  }
  ranks_.reserve(merges.size());
  for (size_t rank = 0; rank < merges.size(); ++rank) {
    const BpeMerge& m = merges[rank];
    auto id_of = [&](const std::string& token) {
      auto it = vocab_.find(token);
      if (it == vocab_.end()) {
        throw Error("E_TOKENIZER", "merge " + std::to_string(rank) + " '" + m.left + " " + m.right +
                                       "' uses '" + token + "', which is not in the vocabulary");
      }
      return it->second;
    };
    const int32_t left = id_of(m.left), right = id_of(m.right), merged = id_of(m.left + m.right);
    // A repeated merge keeps its last rank, as tokenizers' HashMap collect does.
    ranks_[pair_key(left, right)] = {static_cast<uint32_t>(rank), merged};
  }
}

BpeModel::BpeModel(const BpeModel& o)
    : vocab_(o.vocab_), options_(o.options_), unk_id_(o.unk_id_), byte_ids_(o.byte_ids_), ranks_(o.ranks_) {}
BpeModel& BpeModel::operator=(const BpeModel& o) {
  if (this != &o) {
    vocab_ = o.vocab_; options_ = o.options_; unk_id_ = o.unk_id_; byte_ids_ = o.byte_ids_; ranks_ = o.ranks_;
    std::lock_guard<std::mutex> lock(cache_mutex_);
    cache_.clear();
  }
  return *this;
}
BpeModel::BpeModel(BpeModel&& o) noexcept
    : vocab_(std::move(o.vocab_)), options_(std::move(o.options_)), unk_id_(o.unk_id_),
      byte_ids_(o.byte_ids_), ranks_(std::move(o.ranks_)) {}
BpeModel& BpeModel::operator=(BpeModel&& o) noexcept {
  vocab_ = std::move(o.vocab_); options_ = std::move(o.options_); unk_id_ = o.unk_id_;
  byte_ids_ = o.byte_ids_; ranks_ = std::move(o.ranks_);
  std::lock_guard<std::mutex> lock(cache_mutex_);
  cache_.clear();
  return *this;
}

std::vector<BpePiece> BpeModel::tokenize(std::string_view bytes) const {
  if (bytes.empty()) return {};
  if (options_.ignore_merges) {
    std::string mapped;
    for (char c : bytes) mapped += byte_to_unicode()[static_cast<uint8_t>(c)];
    auto it = vocab_.find(mapped);
    if (it != vocab_.end()) return {BpePiece{it->second, 0, static_cast<uint32_t>(bytes.size())}};
  }
  const bool cacheable = bytes.size() <= kMaxCachedBytes;
  if (cacheable) {
    std::lock_guard<std::mutex> lock(cache_mutex_);
    auto it = cache_.find(std::string(bytes));
    if (it != cache_.end()) return it->second;
  }
  std::vector<BpePiece> pieces = merge_word(bytes);
  if (cacheable) {
    std::lock_guard<std::mutex> lock(cache_mutex_);
    if (cache_.size() < kCacheCapacity) cache_.emplace(std::string(bytes), pieces);
  }
  return pieces;
}

std::vector<BpePiece> BpeModel::merge_word(std::string_view bytes) const {
  // One symbol per byte; bytes missing from the vocabulary become unk (fused if asked) or, with
  // no unk token, vanish — the merges then see their neighbours as adjacent, as in tokenizers.
  std::vector<Symbol> symbols;
  symbols.reserve(bytes.size());
  auto add = [&](int32_t id, uint32_t begin, uint32_t end) {
    const auto n = static_cast<int32_t>(symbols.size());
    if (n > 0) symbols.back().next = n;
    symbols.push_back(Symbol{id, n - 1, -1, begin, end});
  };
  bool last_was_unk = false;
  for (uint32_t i = 0; i < bytes.size(); ++i) {
    const int32_t id = byte_ids_[static_cast<uint8_t>(bytes[i])];
    if (id >= 0) {
      add(id, i, i + 1);
      last_was_unk = false;
    } else if (unk_id_ >= 0) {
      if (options_.fuse_unk && last_was_unk) symbols.back().end = i + 1;
      else add(unk_id_, i, i + 1);
      last_was_unk = true;
    }
  }

  std::priority_queue<Candidate> queue;
  auto push = [&](int32_t pos) {
    const Symbol& s = symbols[static_cast<size_t>(pos)];
    if (s.next < 0) return;
    auto it = ranks_.find(pair_key(s.id, symbols[static_cast<size_t>(s.next)].id));
    if (it != ranks_.end()) queue.push(Candidate{it->second.first, pos, it->second.second});
  };
  for (int32_t pos = 0; pos + 1 < static_cast<int32_t>(symbols.size()); ++pos) push(pos);

  while (!queue.empty()) {
    const Candidate top = queue.top();
    queue.pop();
    Symbol& left = symbols[static_cast<size_t>(top.pos)];
    if (left.begin == left.end || left.next < 0) continue;  // merged away, or now the last symbol
    Symbol& right = symbols[static_cast<size_t>(left.next)];
    auto it = ranks_.find(pair_key(left.id, right.id));
    if (it == ranks_.end() || it->second.second != top.merged_id) continue;  // stale candidate
    left.id = top.merged_id;
    left.end = right.end;
    left.next = right.next;
    right.begin = right.end;  // tombstone
    if (left.next >= 0) symbols[static_cast<size_t>(left.next)].prev = top.pos;
    if (left.prev >= 0) push(left.prev);
    push(top.pos);
  }

  std::vector<BpePiece> out;
  for (const Symbol& s : symbols) {
    if (s.begin != s.end) out.push_back(BpePiece{s.id, s.begin, s.end});
  }
  return out;
}

}  // namespace attnscope::tok
