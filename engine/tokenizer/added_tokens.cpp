// Leftmost-longest matching of added tokens over code points, with tokenizers' single_word
// (discard a match touching a word character), lstrip and rstrip (absorb adjacent whitespace).
#include "tokenizer/added_tokens.h"

#include "tokenizer/unicode_tables.h"

namespace attnscope::tok {
namespace {

// Rust regex's \w: alphanumeric, marks, connector punctuation (approximating Alphabetic by the
// letter categories plus Nl; Other_Alphabetic symbols such as Ⓐ are not covered).
bool is_word_char(char32_t cp) {
  switch (general_category(cp)) {
    case Category::Lu: case Category::Ll: case Category::Lt: case Category::Lm: case Category::Lo:
    case Category::Mn: case Category::Mc: case Category::Me: case Category::Nd: case Category::Nl:
    case Category::Pc:
      return true;
    default:
      return cp == 0x200C || cp == 0x200D;  // Join_Control
  }
}

}  // namespace

void AddedTokenMatcher::build(const std::vector<AddedToken>& tokens,
                              const std::vector<std::u32string>& contents) {
  nodes_.assign(1, Node{});
  tokens_ = tokens;
  for (size_t t = 0; t < tokens.size(); ++t) {
    if (contents[t].empty()) continue;
    int node = 0;
    for (char32_t cp : contents[t]) {
      auto it = nodes_[node].next.find(cp);
      if (it == nodes_[node].next.end()) {
        nodes_.push_back(Node{});
        it = nodes_[node].next.emplace(cp, static_cast<int>(nodes_.size() - 1)).first;
      }
      node = it->second;
    }
    if (nodes_[node].token < 0) nodes_[node].token = static_cast<int>(t);  // first one wins
  }
}

std::vector<TextSegment> AddedTokenMatcher::split(const std::vector<SpannedChar>& text,
                                                  size_t begin, size_t end) const {
  std::vector<TextSegment> out;
  size_t pending = begin;  // start of text not yet emitted
  size_t i = begin;
  while (i < end) {
    int node = 0, match = -1;
    size_t match_end = i;
    for (size_t j = i; j < end; ++j) {
      auto it = nodes_[node].next.find(text[j].cp);
      if (it == nodes_[node].next.end()) break;
      node = it->second;
      if (nodes_[node].token >= 0) { match = nodes_[node].token; match_end = j + 1; }
    }
    if (match < 0) { ++i; continue; }
    const AddedToken& token = tokens_[static_cast<size_t>(match)];
    size_t start = i, stop = match_end;
    if (token.single_word) {
      const bool word_before = start > begin && is_word_char(text[start - 1].cp);
      const bool word_after = stop < end && is_word_char(text[stop].cp);
      if (word_before || word_after) { i = match_end; continue; }  // as Rust: search resumes after it
    }
    if (token.lstrip) {
      while (start > pending && is_white_space(text[start - 1].cp)) --start;
    }
    if (token.rstrip) {
      while (stop < end && is_white_space(text[stop].cp)) ++stop;
    }
    if (pending < start) out.push_back({pending, start, -1});
    out.push_back({start, stop, match});
    pending = i = stop;
  }
  if (pending < end) out.push_back({pending, end, -1});
  return out;
}

}  // namespace attnscope::tok
