// Unigram Viterbi, line for line tokenizers' Unigram::encode_optimized and Unigram::tokenize.
#include "tokenizer/unigram.h"

#include <cmath>
#include <limits>

#include "error.h"

namespace attnscope::tok {
namespace {

constexpr double kUnkPenalty = 10.0;  // tokenizers' K_UNK_PENALTY (SentencePiece's kUnkPenalty)

uint32_t utf8_length(uint8_t lead) {
  if (lead < 0x80) return 1;
  if (lead >= 0xF0) return 4;
  if (lead >= 0xE0) return 3;
  return lead >= 0xC0 ? 2 : 1;
}

}  // namespace

UnigramModel::UnigramModel(std::vector<UnigramPiece> vocab, int32_t unk_id, bool byte_fallback)
    : vocab_(std::move(vocab)), unk_id_(unk_id), byte_fallback_(byte_fallback) {
  if (unk_id_ >= 0 && vocab_.empty()) throw Error("E_TOKENIZER", "the Unigram vocabulary is empty");
  if (unk_id_ >= 0 && static_cast<size_t>(unk_id_) >= vocab_.size()) {
    throw Error("E_TOKENIZER", "Unigram unk_id " + std::to_string(unk_id_) + " is outside the vocabulary of " +
                                   std::to_string(vocab_.size()));
  }
  double min_score = std::numeric_limits<double>::infinity();
  piece_at_.push_back(-1);
  for (size_t id = 0; id < vocab_.size(); ++id) {
    const UnigramPiece& p = vocab_[id];
    token_to_ids_[p.token] = static_cast<int32_t>(id);
    if (!p.matchable) continue;
    int32_t node = 0;
    for (char c : p.token) {
      const uint64_t key = (static_cast<uint64_t>(node) << 8) | static_cast<uint8_t>(c);
      auto [it, inserted] = edges_.emplace(key, static_cast<int32_t>(piece_at_.size()));
      if (inserted) piece_at_.push_back(-1);
      node = it->second;
    }
    if (node != 0) piece_at_[static_cast<size_t>(node)] = token_to_ids_[p.token];
    if (p.score < min_score) min_score = p.score;
  }
  unk_score_ = (std::isfinite(min_score) ? min_score : 0.0) - kUnkPenalty;
}

int32_t UnigramModel::child(int32_t node, uint8_t byte) const {
  auto it = edges_.find((static_cast<uint64_t>(node) << 8) | byte);
  return it == edges_.end() ? -1 : it->second;
}

std::vector<UnigramToken> UnigramModel::tokenize(std::string_view word) const {
  if (word.empty()) return {};
  struct BestPath {
    int32_t id = 0;
    double score = 0;
    int64_t starts_at = -1;  // none yet
  };
  const size_t size = word.size();
  std::vector<BestPath> ends_at(size + 1);
  auto offer = [&](size_t end, size_t start, int32_t id, double score) {
    BestPath& target = ends_at[end];
    // Strictly better only: of equal scores the first offered stays (earlier start, shorter piece).
    if (target.starts_at < 0 || score > target.score) target = BestPath{id, score, static_cast<int64_t>(start)};
  };
  for (size_t start = 0; start < size;) {
    const double here = ends_at[start].score;
    const size_t char_len = std::min<size_t>(utf8_length(static_cast<uint8_t>(word[start])), size - start);
    bool has_single_char_piece = false;
    int32_t node = 0;
    for (size_t k = start; k < size; ++k) {
      node = child(node, static_cast<uint8_t>(word[k]));
      if (node < 0) break;
      const int32_t id = piece_at_[static_cast<size_t>(node)];
      if (id < 0) continue;
      offer(k + 1, start, id, here + vocab_[static_cast<size_t>(id)].score);
      if (k + 1 - start == char_len) has_single_char_piece = true;
    }
    if (!has_single_char_piece) {
      if (unk_id_ < 0) {
        throw Error("E_TOKENIZER", "the Unigram model has no unk_id for '" + std::string(word.substr(start, char_len)) +
                                       "', which no piece covers");
      }
      offer(start + char_len, start, unk_id_, here + unk_score_);
    }
    start += char_len;
  }

  // Back from the end; consecutive unknown pieces fuse into one.
  std::vector<std::pair<size_t, size_t>> pieces;  // [begin, end) bytes, last first
  std::vector<bool> unknown;
  for (size_t end = size; end > 0;) {
    const BestPath& node = ends_at[end];
    const auto begin = static_cast<size_t>(node.starts_at);
    const bool is_unk = unk_id_ >= 0 && node.id == unk_id_;
    if (is_unk && !unknown.empty() && unknown.back()) pieces.back().first = begin;
    else {
      pieces.emplace_back(begin, end);
      unknown.push_back(is_unk);
    }
    end = begin;
  }

  std::vector<UnigramToken> out;
  out.reserve(pieces.size());
  static const char* hex = "0123456789ABCDEF";
  for (size_t i = pieces.size(); i-- > 0;) {
    const auto [begin, end] = pieces[i];
    std::string text(word.substr(begin, end - begin));
    auto known = token_to_ids_.find(text);
    if (known != token_to_ids_.end()) {
      out.push_back(UnigramToken{known->second, std::move(text), static_cast<uint32_t>(begin), static_cast<uint32_t>(end)});
      continue;
    }
    if (byte_fallback_) {
      std::vector<UnigramToken> bytes;
      for (char c : text) {
        const auto b = static_cast<uint8_t>(c);
        std::string name = std::string("<0x") + hex[b >> 4] + hex[b & 15] + ">";
        auto it = token_to_ids_.find(name);
        if (it == token_to_ids_.end()) break;
        bytes.push_back(UnigramToken{it->second, std::move(name), static_cast<uint32_t>(begin), static_cast<uint32_t>(end)});
      }
      if (bytes.size() == text.size()) {
        for (UnigramToken& t : bytes) out.push_back(std::move(t));
        continue;
      }
    }
    if (unk_id_ < 0) throw Error("E_TOKENIZER", "the Unigram model has no unk_id for '" + text + "'");
    out.push_back(UnigramToken{unk_id_, std::move(text), static_cast<uint32_t>(begin), static_cast<uint32_t>(end)});
  }
  return out;
}

}  // namespace attnscope::tok
