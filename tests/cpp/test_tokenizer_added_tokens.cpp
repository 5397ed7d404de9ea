// Added-token splitting: special tokens written in the text stay whole and keep their id,
// leftmost-longest matching, case-sensitive raw matching vs normalized matching, and tokenizers'
// single_word / lstrip / rstrip rules.
#include <catch2/catch.hpp>

#include "tokenizer/tokenizer.h"

using namespace attnscope::tok;

namespace {

Tokenizer bert_files(std::string_view vocab_txt, std::string_view tokenizer_json, std::string_view config) {
  return Tokenizer::from_files({vocab_txt, "", "", tokenizer_json, config});
}
const char* kVocab =
    "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\nof\nriver\n.\n[\n]\nmask\na\nb\n##b\nhello\n<\n>\nx\n";

std::vector<std::string> tokens_of(const Tokenizer& t, const std::string& text) {
  auto e = t.encode(text);
  return std::vector<std::string>(e.tokens.begin() + 1, e.tokens.end() - 1);  // without [CLS]/[SEP]
}
using V = std::vector<std::string>;

// A tokenizer.json around kVocab with extra added_tokens entries.
std::string tokenizer_json(const std::string& added) {
  std::string vocab = "{";
  int id = 0;
  std::string line, text = kVocab;
  for (size_t pos = 0; pos < text.size();) {
    size_t eol = text.find('\n', pos);
    line = text.substr(pos, eol - pos);
    if (id > 0) vocab += ",";
    vocab += "\"" + line + "\":" + std::to_string(id);
    ++id;
    pos = eol + 1;
  }
  vocab += "}";
  return R"({"normalizer":{"type":"BertNormalizer","lowercase":true},"pre_tokenizer":{"type":"BertPreTokenizer"},
  "model":{"type":"WordPiece","unk_token":"[UNK]","vocab":)" + vocab + R"(},
  "post_processor":{"type":"BertProcessing","cls":["[CLS]",2],"sep":["[SEP]",3]},
  "added_tokens":[{"id":4,"content":"[MASK]","special":true,"normalized":false}, )" + added + "]}";
}
}  // namespace

TEST_CASE("added tokens: MASK in the text is kept whole with its id", "[tokenizer][added_tokens]") {
  const auto t = Tokenizer::from_vocab_txt(kVocab, BertSettings{});
  const auto e = t.encode("The [MASK] of the river.");
  CHECK(e.tokens == std::vector<std::string>{"[CLS]", "the", "[MASK]", "of", "the", "river", ".", "[SEP]"});
  CHECK(e.ids[2] == 4);
  CHECK(e.offsets[2] == std::pair<int32_t, int32_t>{4, 10});
  CHECK(e.special_tokens_mask[2] == 0);  // written in the text, not added by the template
  CHECK(tokens_of(t, "a[MASK]b") == V{"a", "[MASK]", "b"});
  CHECK(tokens_of(t, "[MASK][SEP][CLS]") == V{"[MASK]", "[SEP]", "[CLS]"});
}

TEST_CASE("added tokens: matching is on the raw text so case matters", "[tokenizer][added_tokens]") {
  const auto t = Tokenizer::from_vocab_txt(kVocab, BertSettings{});
  CHECK(tokens_of(t, "[mask]") == V{"[", "mask", "]"});
  CHECK(tokens_of(t, "[Mask]") == V{"[", "mask", "]"});  // lowercased by the normalizer afterwards
  CHECK(tokens_of(t, "[ MASK ]") == V{"[", "mask", "]"});
  CHECK(tokens_of(t, "[[MASK]]") == V{"[", "[MASK]", "]"});
}

TEST_CASE("added tokens: leftmost-longest wins", "[tokenizer][added_tokens]") {
  const auto t = bert_files("", tokenizer_json(
      R"({"id":19,"content":"<x>","special":true,"normalized":false},
         {"id":20,"content":"<x>>","special":true,"normalized":false},
         {"id":21,"content":"x>","special":true,"normalized":false})"), "");
  CHECK(tokens_of(t, "<x>>") == V{"<x>>"});
  CHECK(tokens_of(t, "<x>a") == V{"<x>", "a"});
  CHECK(tokens_of(t, "ax>") == V{"a", "x>"});
  CHECK(t.token_to_id("<x>>") == 20);
  CHECK(t.id_to_token(20) == "<x>>");
  CHECK(t.vocab_size() == 22);
}

TEST_CASE("added tokens: normalized tokens match the normalized text", "[tokenizer][added_tokens]") {
  const auto t = bert_files("", tokenizer_json(
      R"({"id":19,"content":"HeLLo","special":false,"normalized":true})"), "");
  // The token text is the matched normalized text, as in tokenizers ("say" is not in the vocab).
  CHECK(tokens_of(t, "say HELLO") == V{"[UNK]", "hello"});
  const auto e = t.encode("xHello");
  CHECK(e.tokens[2] == "hello");
  CHECK(e.ids[2] == 19);
  CHECK(e.offsets[2] == std::pair<int32_t, int32_t>{1, 6});
}

TEST_CASE("added tokens: single_word lstrip and rstrip", "[tokenizer][added_tokens]") {
  const auto single = bert_files("", tokenizer_json(
      R"({"id":19,"content":"<x>","special":true,"normalized":false,"single_word":true})"), "");
  CHECK(tokens_of(single, "a <x> b") == V{"a", "<x>", "b"});
  CHECK(tokens_of(single, "a<x> b") == V{"a", "<", "x", ">", "b"});  // touches a word: left in the text
  CHECK(tokens_of(single, "<x>b") == V{"<", "x", ">", "b"});
  const auto strip = bert_files("", tokenizer_json(
      R"({"id":19,"content":"<x>","special":true,"normalized":false,"lstrip":true,"rstrip":true})"), "");
  const auto e = strip.encode("a  <x>  b");
  REQUIRE(e.tokens.size() == 5);
  CHECK(e.tokens[2] == "  <x>  ");  // tokenizers keeps the absorbed spaces in the token text
  CHECK(e.ids[2] == 19);
  CHECK(e.offsets[2] == std::pair<int32_t, int32_t>{1, 8});
}
