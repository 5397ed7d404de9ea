// Added (special) tokens written in the text — "[MASK]", "[SEP]", tokenizer.json's added_tokens —
// are split out before the model sees the text and kept whole, as Hugging Face's AddedVocabulary
// does: tokens with normalized=false are matched on the raw input, the others on the normalized
// text; at each position the longest token wins (leftmost-longest); single_word, lstrip and
// rstrip follow tokenizers' Rust rules. This stage only splits; it does not normalize.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "tokenizer/token.h"
#include "tokenizer/utf8_text.h"

namespace attnscope::tok {

struct AddedToken {
  std::string content;
  int32_t id = -1;
  bool single_word = false;
  bool lstrip = false;
  bool rstrip = false;
  bool normalized = false;
  bool special = true;
};

// A piece of text after splitting: either the chars of an added token (token >= 0, an index into
// the matcher's token list) or text still to tokenize (token == -1). [begin, end) indexes chars.
struct TextSegment {
  size_t begin;
  size_t end;
  int token;
};

// A trie over code points of the tokens' contents (raw or normalized) that finds leftmost-longest
// non-overlapping matches.
class AddedTokenMatcher {
 public:
  // contents[i] is what to match for token i (empty contents never match).
  void build(const std::vector<AddedToken>& tokens, const std::vector<std::u32string>& contents);
  std::vector<TextSegment> split(const std::vector<SpannedChar>& text, size_t begin, size_t end) const;

 private:
  struct Node {
    std::map<char32_t, int> next;
    int token = -1;  // token index whose content ends here
  };
  std::vector<Node> nodes_{Node{}};
  std::vector<AddedToken> tokens_;
};

}  // namespace attnscope::tok
