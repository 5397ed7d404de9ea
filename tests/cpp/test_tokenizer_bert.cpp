// The BERT pipeline (vocab.txt stages) end to end: the stages in order, pairs, offsets into the original
// UTF-16 string (expanded characters, Hangul, astral), invalid UTF-8, and a 100 000-character
// input that must stay fast (no quadratic stage).
#include <catch2/catch.hpp>

#include <chrono>
#include <ctime>
#include <iostream>

#include "error.h"
#include "tokenizer/tokenizer.h"

using namespace attnscope::tok;

namespace {
const char* kVocab =
    "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\ncafe\ncaf\n##e\n##\xC3\xA9\n,\n.\n!\n'\nt\ndon\n"
    "\xE1\x84\x92\n##\xE1\x85\xA1\n##\xE1\x86\xAB\n\xED\x95\x9C\n\xE4\xB8\xAD\n\xE6\x96\x87\n"
    "i\n##\xCC\x87\nistanbul\n\xF0\xA0\x80\x80\na\n##a\nb\n##b\nword\n";

BertSettings cased() {
  BertSettings s;
  s.lowercase = false;
  return s;
}
using V = std::vector<std::string>;
using Span = std::pair<int32_t, int32_t>;
}  // namespace

TEST_CASE("bert: uncased end to end", "[tokenizer][bert]") {
  const auto t = Tokenizer::from_vocab_txt(kVocab, BertSettings{});
  const auto e = t.encode("Caf\xC3\xA9, don't!");
  CHECK(e.tokens == V{"[CLS]", "cafe", ",", "don", "'", "t", "!", "[SEP]"});
  CHECK(e.ids == std::vector<int32_t>{2, 6, 10, 15, 13, 14, 12, 3});
  CHECK(e.offsets[1] == Span{0, 4});
  CHECK(e.offsets[2] == Span{4, 5});
  CHECK(e.offsets[6] == Span{11, 12});
}

TEST_CASE("bert: cased keeps accents and case", "[tokenizer][bert]") {
  const auto t = Tokenizer::from_vocab_txt(kVocab, cased());
  CHECK(t.encode("caf\xC3\xA9").tokens == V{"[CLS]", "caf", "##\xC3\xA9", "[SEP]"});
  CHECK(t.encode("Cafe").tokens == V{"[CLS]", "[UNK]", "[SEP]"});
}

TEST_CASE("bert: offsets of expanded characters map to their source character", "[tokenizer][bert]") {
  const auto t = Tokenizer::from_vocab_txt(kVocab, BertSettings{});
  // 한 → ᄒ ##ᅡ ##ᆫ, all three spanning the one syllable.
  const auto k = t.encode("a \xED\x95\x9C");
  REQUIRE(k.tokens == V{"[CLS]", "a", "\xE1\x84\x92", "##\xE1\x85\xA1", "##\xE1\x86\xAB", "[SEP]"});
  for (int i = 2; i <= 4; ++i) CHECK(k.offsets[i] == Span{2, 3});
  // İstanbul → istanbul (İ decomposes to I + U+0307, the dot is dropped).
  const auto s = t.encode("\xC4\xB0stanbul");
  CHECK(s.tokens == V{"[CLS]", "istanbul", "[SEP]"});
  CHECK(s.offsets[1] == Span{0, 8});
  // Lowercase without stripping: İ → i + U+0307, two pieces with İ's span.
  BertSettings keep;
  keep.strip_accents = false;
  const auto ki = Tokenizer::from_vocab_txt(kVocab, keep).encode("\xC4\xB0");
  CHECK(ki.tokens == V{"[CLS]", "i", "##\xCC\x87", "[SEP]"});
  CHECK(ki.offsets[1] == Span{0, 1});
  CHECK(ki.offsets[2] == Span{0, 1});
  // Astral CJK ideograph: padded, one token of two UTF-16 units; BMP ones one unit each.
  const auto c = t.encode("x\xF0\xA0\x80\x80\xE4\xB8\xAD\xE6\x96\x87");
  CHECK(c.tokens == V{"[CLS]", "[UNK]", "\xF0\xA0\x80\x80", "\xE4\xB8\xAD", "\xE6\x96\x87", "[SEP]"});
  CHECK(c.offsets[2] == Span{1, 3});
  CHECK(c.offsets[3] == Span{3, 4});
  CHECK(c.offsets[4] == Span{4, 5});
}

TEST_CASE("bert: pairs get type ids and per-sequence offsets", "[tokenizer][bert]") {
  const auto t = Tokenizer::from_vocab_txt(kVocab, BertSettings{});
  const auto e = t.encode("the cafe", std::string_view("a word"));
  CHECK(e.tokens == V{"[CLS]", "the", "cafe", "[SEP]", "a", "word", "[SEP]"});
  CHECK(e.type_ids == std::vector<int32_t>{0, 0, 0, 0, 1, 1, 1});
  CHECK(e.offsets[5] == Span{2, 6});  // into the pair string
  const auto empty = t.encode("", std::string_view(""));
  CHECK(empty.tokens == V{"[CLS]", "[SEP]", "[SEP]"});
  CHECK(t.encode("").tokens == V{"[CLS]", "[SEP]"});
  CHECK(t.encode(" \t\n ").tokens == V{"[CLS]", "[SEP]"});
}

TEST_CASE("bert: truncation through the facade", "[tokenizer][bert]") {
  const auto t = Tokenizer::from_vocab_txt(kVocab, BertSettings{});
  const auto e = t.encode("a a a a a a", std::string_view("b b b"), 7);
  CHECK(e.tokens == V{"[CLS]", "a", "a", "[SEP]", "b", "b", "[SEP]"});
  CHECK(e.num_truncated == 5);
  CHECK(t.encode("a a a", std::nullopt, 4).num_truncated == 1);
  CHECK_THROWS_AS(t.encode("a", std::nullopt, 1), attnscope::Error);
}

TEST_CASE("bert: invalid UTF-8 is replaced dropped and offsets stay in range", "[tokenizer][bert]") {
  const auto t = Tokenizer::from_vocab_txt(kVocab, BertSettings{});
  const auto e = t.encode("a\xFF" "b \xC3 the\xED\xA0\x80");
  CHECK(e.tokens == V{"[CLS]", "a", "##b", "the", "[SEP]"});  // U+FFFD dropped by clean_text
  // UTF-16 length of the decoded string: a FFFD b ' ' FFFD ' ' t h e FFFD FFFD FFFD = 12.
  CHECK(e.offsets[1] == Span{0, 1});
  CHECK(e.offsets[2] == Span{2, 3});
  CHECK(e.offsets[3] == Span{6, 9});
  for (const auto& [s, end] : e.offsets) { CHECK(s >= 0); CHECK(end <= 12); CHECK(s <= end); }
}

TEST_CASE("bert: vocab.txt parsing and lookups", "[tokenizer][bert]") {
  const auto t = Tokenizer::from_vocab_txt("[UNK]\r\n[CLS]\r\n[SEP]\r\nx\r\n\r\nx\n", BertSettings{});
  CHECK(t.vocab_size() == 6);
  CHECK(t.token_to_id("x") == 5);        // a repeated token keeps its last line
  CHECK(t.id_to_token(3) == "x");
  CHECK(t.id_to_token(4).empty());       // an empty line is an (unreachable) token
  CHECK(t.token_to_id("missing") == -1);
  CHECK_THROWS_AS(t.id_to_token(6), attnscope::Error);
  CHECK_THROWS_AS(t.id_to_token(-1), attnscope::Error);
}

TEST_CASE("bert: 100 000 characters tokenize in well under a second", "[tokenizer][bert][perf]") {
  const auto t = Tokenizer::from_vocab_txt(kVocab, BertSettings{});
  std::string mixed;
  const std::string unit = "Caf\xC3\xA9 \xED\x95\x9C the, ";  // 12 characters: accents, Hangul, punctuation
  for (int i = 0; i < 8334; ++i) mixed += unit;                   // 100 008 characters
  std::string one_word(100000, 'a');  // one huge word: [UNK] without a quadratic search
  std::string long_words;
  for (int i = 0; i < 1000; ++i) long_words += std::string(99, 'b') + " ";  // 1000 words of 99 pieces
  for (const std::string* input : {&mixed, &one_word, &long_words}) {
    // CPU time, not wall time: the test machines are shared, and a loaded machine must not make
    // this fail; a quadratic stage still would (100k² steps are minutes, not milliseconds).
    const std::clock_t c0 = std::clock();
    const auto t0 = std::chrono::steady_clock::now();
    const auto e = t.encode(*input);
    const double cpu_ms = 1000.0 * static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
    const double wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::cout << "tokenizer: " << input->size() << " bytes -> " << e.ids.size() << " tokens in " << cpu_ms
              << " ms CPU (" << wall_ms << " ms wall)\n";
    CHECK(e.ids.size() > 2);
    CHECK(cpu_ms < 1000.0);  // generous: this binary runs under ASan/UBSan
  }
}
