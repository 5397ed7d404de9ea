// WordPiece stage with tiny vocabularies: greedy longest match, "##" continuation, a missing piece
// makes the whole word [UNK], max_input_chars_per_word, and piece offsets.
#include <catch2/catch.hpp>

#include "tokenizer/wordpiece.h"

using namespace attnscope::tok;

namespace {
struct Tiny {
  VocabMap vocab;
  WordPieceConfig config;
  explicit Tiny(std::initializer_list<const char*> tokens, int max_chars = 100) {
    int32_t id = 0;
    for (const char* t : tokens) vocab[t] = id++;
    config.unk_id = vocab.at("[UNK]");
    config.max_input_chars_per_word = max_chars;
    config.longest_entry_chars = longest_entry_chars(vocab);
  }
  std::vector<Token> run(const std::string& word) const {
    const auto chars = decode_utf8(word);
    std::vector<Token> out;
    wordpiece_tokenize(chars, WordRange{0, chars.size()}, vocab, config, out);
    return out;
  }
  std::vector<std::string> texts(const std::string& word) const {
    std::vector<std::string> out;
    for (const Token& t : run(word)) out.push_back(t.text);
    return out;
  }
};
using V = std::vector<std::string>;
}  // namespace

TEST_CASE("wordpiece: greedy longest match with ## continuations", "[tokenizer][wordpiece]") {
  const Tiny tiny({"[UNK]", "ba", "##na", "b", "##a", "##n"});
  CHECK(tiny.texts("banana") == V{"ba", "##na", "##na"});
  CHECK(tiny.texts("ban") == V{"ba", "##n"});
  const Tiny longer({"[UNK]", "ba", "##na", "ban", "##ana"});
  CHECK(longer.texts("banana") == V{"ban", "##ana"});  // longest first, not fewest pieces
}

TEST_CASE("wordpiece: one missing piece makes the whole word UNK", "[tokenizer][wordpiece]") {
  const Tiny tiny({"[UNK]", "ba", "##na"});
  CHECK(tiny.texts("banan") == V{"[UNK]"});  // "##n" is missing
  CHECK(tiny.texts("xbanana") == V{"[UNK]"});
  CHECK(tiny.texts("na") == V{"[UNK]"});     // "na" only exists as a continuation
  const auto unk = tiny.run("banan");
  CHECK(unk[0].id == 0);
}

TEST_CASE("wordpiece: words longer than max_input_chars_per_word are UNK", "[tokenizer][wordpiece]") {
  const Tiny tiny({"[UNK]", "a", "##a", "\xC3\xA9", "##\xC3\xA9"});
  CHECK(tiny.texts(std::string(100, 'a')).size() == 100);
  CHECK(tiny.texts(std::string(101, 'a')) == V{"[UNK]"});
  std::string e100;
  for (int i = 0; i < 100; ++i) e100 += "\xC3\xA9";  // 100 characters, 200 bytes: counted in chars
  CHECK(tiny.texts(e100).size() == 100);
  CHECK(tiny.texts(e100 + "\xC3\xA9") == V{"[UNK]"});
  const Tiny three({"[UNK]", "a", "##a"}, 3);
  CHECK(three.texts("aaa").size() == 3);
  CHECK(three.texts("aaaa") == V{"[UNK]"});
}

TEST_CASE("wordpiece: a word in the vocabulary is one token with its vocabulary id", "[tokenizer][wordpiece]") {
  const Tiny tiny({"[UNK]", "hello", "##hello"});
  const auto out = tiny.run("hello");
  REQUIRE(out.size() == 1);
  CHECK(out[0].text == "hello");
  CHECK(out[0].id == 1);
}

TEST_CASE("wordpiece: piece offsets are the UTF-16 spans of their characters", "[tokenizer][wordpiece]") {
  const Tiny tiny({"[UNK]", "\xF0\x9F\x98\x80", "##a", "##\xF0\x9F\x98\x80"});  // 😀
  const auto out = tiny.run("\xF0\x9F\x98\x80" "a" "\xF0\x9F\x98\x80");
  REQUIRE(out.size() == 3);
  CHECK(out[0].start == 0); CHECK(out[0].end == 2);
  CHECK(out[1].start == 2); CHECK(out[1].end == 3);
  CHECK(out[2].start == 3); CHECK(out[2].end == 5);
  const auto unk = tiny.run("\xF0\x9F\x98\x80" "b");
  REQUIRE(unk.size() == 1);
  CHECK(unk[0].start == 0); CHECK(unk[0].end == 3);  // [UNK] spans the whole word
}
