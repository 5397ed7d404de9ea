// BertPreTokenizer stage: whitespace splits (removed), each punctuation character is its own word,
// with BERT's punctuation = ASCII non-alphanumeric symbols + Unicode P*.
#include <catch2/catch.hpp>

#include "tokenizer/pre_tokenizer.h"

using namespace attnscope::tok;

namespace {
std::vector<std::string> words(const std::string& text) {
  const auto chars = decode_utf8(text);
  std::vector<std::string> out;
  for (const WordRange& w : pre_tokenize_bert(chars)) {
    std::string s;
    for (size_t i = w.begin; i < w.end; ++i) append_utf8(s, chars[i].cp);
    out.push_back(s);
  }
  return out;
}
using V = std::vector<std::string>;
}  // namespace

TEST_CASE("pre_tokenizer: whitespace separates words and disappears", "[tokenizer][pre_tokenizer]") {
  CHECK(words("  hello   world ") == V{"hello", "world"});
  CHECK(words("a\tb\nc") == V{"a", "b", "c"});
  CHECK(words("").empty());
  CHECK(words("   ").empty());
}

TEST_CASE("pre_tokenizer: each punctuation character is isolated", "[tokenizer][pre_tokenizer]") {
  CHECK(words("Hello, world!") == V{"Hello", ",", "world", "!"});
  CHECK(words("don't") == V{"don", "'", "t"});
  CHECK(words("...") == V{".", ".", "."});
  CHECK(words("a$b+c<d=e>f^g`h|i~j") == V{"a", "$", "b", "+", "c", "<", "d", "=", "e", ">", "f", "^", "g", "`", "h", "|", "i", "~", "j"});
  CHECK(words("\xC2\xBFQu\xC3\xA9?") == V{"\xC2\xBF", "Qu\xC3\xA9", "?"});            // ¿ is Po
  CHECK(words("\xE3\x80\x8C" "a" "\xE3\x80\x8D") == V{"\xE3\x80\x8C", "a", "\xE3\x80\x8D"});  // 「a」 Ps/Pe
  CHECK(words("a\xE2\x80\x94" "b") == V{"a", "\xE2\x80\x94", "b"});                  // em dash Pd
}

TEST_CASE("pre_tokenizer: non-ASCII symbols are not punctuation", "[tokenizer][pre_tokenizer]") {
  CHECK(words("5\xE2\x82\xAC") == V{"5\xE2\x82\xAC"});        // € is Sc
  CHECK(words("a\xC2\xA9" "b") == V{"a\xC2\xA9" "b"});        // © is So
  CHECK(words("x\xF0\x9F\x98\x80y") == V{"x\xF0\x9F\x98\x80y"});  // 😀 is So
  CHECK(is_bert_punctuation(U'_'));
  CHECK_FALSE(is_bert_punctuation(U'a'));
}
