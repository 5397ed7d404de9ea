// WordPiece greedy longest match. The word is encoded to UTF-8 once; candidates are byte slices
// of it, bounded by the longest vocabulary entry.
#include "tokenizer/wordpiece.h"

#include <algorithm>

namespace attnscope::tok {

size_t longest_entry_chars(const VocabMap& vocab) {
  size_t longest = 0;
  for (const auto& [entry, id] : vocab) {
    size_t chars = 0;
    for (unsigned char b : entry) chars += (b & 0xC0) != 0x80;
    longest = std::max(longest, chars);
  }
  return longest;
}

namespace {

Token span_token(const std::vector<SpannedChar>& text, size_t begin, size_t end, std::string piece,
                 int32_t id) {
  int32_t start = text[begin].start, stop = text[begin].end;
  for (size_t i = begin + 1; i < end; ++i) {  // NFD reordering can put spans out of order
    start = std::min(start, text[i].start);
    stop = std::max(stop, text[i].end);
  }
  return Token{std::move(piece), id, start, stop};
}

}  // namespace

void wordpiece_tokenize(const std::vector<SpannedChar>& text, WordRange word, const VocabMap& vocab,
                        const WordPieceConfig& config, std::vector<Token>& out) {
  const size_t n = word.end - word.begin;
  if (n == 0) return;
  if (n > static_cast<size_t>(std::max(config.max_input_chars_per_word, 0))) {
    out.push_back(span_token(text, word.begin, word.end, config.unk_token, config.unk_id));
    return;
  }
  std::string utf8;
  std::vector<size_t> byte_at(n + 1);  // byte offset of each character in utf8
  for (size_t i = 0; i < n; ++i) {
    byte_at[i] = utf8.size();
    append_utf8(utf8, text[word.begin + i].cp);
  }
  byte_at[n] = utf8.size();

  const size_t first_new = out.size();
  std::string candidate;
  size_t start = 0;
  while (start < n) {
    size_t end = std::min(n, start + config.longest_entry_chars);
    int32_t found = -1;
    for (; end > start; --end) {
      candidate.clear();
      if (start > 0) candidate += config.continuing_subword_prefix;
      candidate.append(utf8, byte_at[start], byte_at[end] - byte_at[start]);
      auto it = vocab.find(candidate);
      if (it != vocab.end()) { found = it->second; break; }
    }
    if (found < 0) {  // one missing piece makes the whole word unknown
      out.resize(first_new, Token{});
      out.push_back(span_token(text, word.begin, word.end, config.unk_token, config.unk_id));
      return;
    }
    out.push_back(span_token(text, word.begin + start, word.begin + end, candidate, found));
    start = end;
  }
}

}  // namespace attnscope::tok
