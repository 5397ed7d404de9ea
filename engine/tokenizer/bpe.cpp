// BPE merges over one word, in the order of tokenizers' Word::merge_all: a min-heap of
// (rank, position) candidates; a popped candidate whose symbols changed since it was pushed is
// stale and skipped.
#include "tokenizer/bpe.h"

#include <queue>

#include "error.h"
#include "tokenizer/utf8_text.h"

namespace attnscope::tok {
namespace {

uint64_t pair_key(int32_t left, int32_t right) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) | static_cast<uint32_t>(right);
}

struct Symbol {
  int32_t id;
  int32_t prev;  // index of the previous live symbol, -1 at the start
  int32_t next;  // index of the next live symbol, -1 at the end
  uint32_t begin, end;  // characters of the word; begin == end once merged into its left neighbour
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
  for (const auto& [token, id] : vocab_) {
    const std::vector<SpannedChar> chars = decode_utf8(token);
    if (chars.size() == 1) {
      std::string back;
      append_utf8(back, chars[0].cp);
      if (back == token) char_ids_[chars[0].cp] = id;  // not an invalid byte read as U+FFFD
    }
  }
  static const char* hex = "0123456789ABCDEF";
  for (int b = 0; b < 256; ++b) {
    const std::string name = std::string("<0x") + hex[b >> 4] + hex[b & 15] + ">";
    auto it = vocab_.find(name);
    byte_fallback_ids_[b] = it == vocab_.end() ? -1 : it->second;
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

void BpeModel::copy_tables(const BpeModel& o) {
  vocab_ = o.vocab_; options_ = o.options_; unk_id_ = o.unk_id_; char_ids_ = o.char_ids_;
  byte_fallback_ids_ = o.byte_fallback_ids_; ranks_ = o.ranks_;
}
BpeModel::BpeModel(const BpeModel& o) { copy_tables(o); }
BpeModel& BpeModel::operator=(const BpeModel& o) {
  if (this != &o) {
    copy_tables(o);
    std::lock_guard<std::mutex> lock(cache_mutex_);
    cache_.clear();
  }
  return *this;
}
BpeModel::BpeModel(BpeModel&& o) noexcept
    : vocab_(std::move(o.vocab_)), options_(std::move(o.options_)), unk_id_(o.unk_id_),
      char_ids_(std::move(o.char_ids_)), byte_fallback_ids_(o.byte_fallback_ids_), ranks_(std::move(o.ranks_)) {}
BpeModel& BpeModel::operator=(BpeModel&& o) noexcept {
  vocab_ = std::move(o.vocab_); options_ = std::move(o.options_); unk_id_ = o.unk_id_;
  char_ids_ = std::move(o.char_ids_); byte_fallback_ids_ = o.byte_fallback_ids_; ranks_ = std::move(o.ranks_);
  std::lock_guard<std::mutex> lock(cache_mutex_);
  cache_.clear();
  return *this;
}

std::vector<BpePiece> BpeModel::tokenize(std::string_view word) const {
  if (word.empty()) return {};
  if (options_.ignore_merges) {
    auto it = vocab_.find(std::string(word));
    if (it != vocab_.end()) {
      return {BpePiece{it->second, 0, static_cast<uint32_t>(decode_utf8(word).size())}};
    }
  }
  const bool cacheable = word.size() <= kMaxCachedBytes;
  if (cacheable) {
    std::lock_guard<std::mutex> lock(cache_mutex_);
    auto it = cache_.find(std::string(word));
    if (it != cache_.end()) return it->second;
  }
  std::u32string chars;
  for (const SpannedChar& c : decode_utf8(word)) chars += c.cp;
  std::vector<BpePiece> pieces = merge_word(chars);
  if (cacheable) {
    std::lock_guard<std::mutex> lock(cache_mutex_);
    if (cache_.size() < kCacheCapacity) cache_.emplace(std::string(word), pieces);
  }
  return pieces;
}

std::vector<BpePiece> BpeModel::merge_word(const std::u32string& chars) const {
  // One symbol per character, as tokenizers' BPE::merge_word. A missing character becomes its
  // <0xNN> byte tokens (byte_fallback, when all exist), else unk (fused if asked) or, with no unk
  // token, vanishes — the merges then see its neighbours as adjacent. Like tokenizers, a pending
  // unk is only flushed by a known character, so it follows any byte tokens emitted meanwhile.
  std::vector<Symbol> symbols;
  symbols.reserve(chars.size());
  auto add = [&](int32_t id, uint32_t begin, uint32_t end) {
    const auto n = static_cast<int32_t>(symbols.size());
    if (n > 0) symbols.back().next = n;
    symbols.push_back(Symbol{id, n - 1, -1, begin, end});
  };
  bool have_unk = false;
  uint32_t unk_begin = 0, unk_end = 0;
  std::string bytes;
  for (uint32_t i = 0; i < chars.size(); ++i) {
    auto known = char_ids_.find(chars[i]);
    if (known != char_ids_.end()) {
      if (have_unk) add(unk_id_, unk_begin, unk_end);
      have_unk = false;
      add(known->second, i, i + 1);
      continue;
    }
    if (options_.byte_fallback) {
      bytes.clear();
      append_utf8(bytes, chars[i]);
      bool all = true;
      for (char b : bytes) all &= byte_fallback_ids_[static_cast<uint8_t>(b)] >= 0;
      if (all) {
        // Each byte token spans the whole character (offsets cannot split a code point).
        for (char b : bytes) add(byte_fallback_ids_[static_cast<uint8_t>(b)], i, i + 1);
        continue;
      }
    }
    if (unk_id_ < 0) continue;
    if (have_unk && options_.fuse_unk) {
      unk_end = i + 1;
    } else {
      if (have_unk) add(unk_id_, unk_begin, unk_end);
      have_unk = true;
      unk_begin = i;
      unk_end = i + 1;
    }
  }
  if (have_unk) add(unk_id_, unk_begin, unk_end);

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
