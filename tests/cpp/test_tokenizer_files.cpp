// Loading a tokenizer from Hugging Face files (tokenizer.json; vocab.txt + tokenizer_config.json)
// and rejecting, with E_TOKENIZER and a message naming it, what cannot be reproduced exactly.
#include <catch2/catch.hpp>

#include <functional>

#include "error.h"
#include "test_engine_support.h"
#include "tokenizer/tokenizer.h"

using namespace attnscope::tok;

namespace {
const char* kVocab = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\ncafe\ncaf\n##\xC3\xA9\n[S]\n";

Tokenizer bert_files(std::string_view vocab_txt, std::string_view tokenizer_json, std::string_view config) {
  return Tokenizer::from_files({vocab_txt, "", "", tokenizer_json, config});
}

void expect_error(const std::function<void()>& fn, const std::string& needle) {
  attnscope::test::expect_error(fn, "E_TOKENIZER", needle);
}

std::string json_with(const std::string& normalizer, const std::string& pre, const std::string& model_type,
                      const std::string& post) {
  return R"({"normalizer":)" + normalizer + R"(,"pre_tokenizer":)" + pre + R"(,
    "model":{"type":")" + model_type + R"(","unk_token":"[UNK]","continuing_subword_prefix":"##",
      "max_input_chars_per_word":100,
      "vocab":{"[PAD]":0,"[UNK]":1,"[CLS]":2,"[SEP]":3,"[MASK]":4,"the":5,"cafe":6,"caf":7,"##\u00e9":8}},
    "post_processor":)" + post + R"(,
    "added_tokens":[{"id":4,"content":"[MASK]","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true}]})";
}
const std::string kBertNorm = R"({"type":"BertNormalizer","clean_text":true,"handle_chinese_chars":true,"strip_accents":null,"lowercase":false})";
const std::string kBertPre = R"({"type":"BertPreTokenizer"})";
const std::string kTemplate = R"({"type":"TemplateProcessing",
  "single":[{"SpecialToken":{"id":"[CLS]","type_id":0}},{"Sequence":{"id":"A","type_id":0}},{"SpecialToken":{"id":"[SEP]","type_id":0}}],
  "pair":[{"SpecialToken":{"id":"[CLS]","type_id":0}},{"Sequence":{"id":"A","type_id":0}},{"SpecialToken":{"id":"[SEP]","type_id":0}},
          {"Sequence":{"id":"B","type_id":1}},{"SpecialToken":{"id":"[SEP]","type_id":1}}],
  "special_tokens":{"[CLS]":{"id":"[CLS]","ids":[2],"tokens":["[CLS]"]},"[SEP]":{"id":"[SEP]","ids":[3],"tokens":["[SEP]"]}}})";
using V = std::vector<std::string>;
}  // namespace

TEST_CASE("files: tokenizer.json with BertNormalizer/BertPreTokenizer/WordPiece/TemplateProcessing", "[tokenizer][files]") {
  const auto t = bert_files("", json_with(kBertNorm, kBertPre, "WordPiece", kTemplate), "");
  CHECK(t.encode("The").tokens == V{"[CLS]", "[UNK]", "[SEP]"});  // cased: "The" is not "the"
  CHECK(t.encode("caf\xC3\xA9 [MASK]").tokens == V{"[CLS]", "caf", "##\xC3\xA9", "[MASK]", "[SEP]"});
  const auto p = t.encode("the", std::string_view("cafe"));
  CHECK(p.type_ids == std::vector<int32_t>{0, 0, 0, 1, 1});
}

TEST_CASE("files: BertProcessing is the same template", "[tokenizer][files]") {
  const auto t = bert_files(
      "", json_with(kBertNorm, kBertPre, "WordPiece", R"({"type":"BertProcessing","sep":["[SEP]",3],"cls":["[CLS]",2]})"), "");
  const auto p = t.encode("the", std::string_view("cafe"));
  CHECK(p.tokens == V{"[CLS]", "the", "[SEP]", "cafe", "[SEP]"});
  CHECK(p.type_ids == std::vector<int32_t>{0, 0, 0, 1, 1});
}

TEST_CASE("files: vocab.txt + tokenizer_config.json settings", "[tokenizer][files]") {
  const auto uncased = bert_files(kVocab, "", R"({"do_lower_case":true})");
  CHECK(uncased.encode("CAF\xC3\x89").tokens == V{"[CLS]", "cafe", "[SEP]"});
  const auto cased = bert_files(kVocab, "", R"({"do_lower_case":false,"tokenizer_class":"BertTokenizerFast"})");
  CHECK(cased.encode("caf\xC3\xA9").tokens == V{"[CLS]", "caf", "##\xC3\xA9", "[SEP]"});
  const auto strip = bert_files(kVocab, "", R"({"do_lower_case":false,"strip_accents":true})");
  CHECK(strip.encode("caf\xC3\xA9").tokens == V{"[CLS]", "cafe", "[SEP]"});
  // Special tokens as serialized AddedToken objects, and additional special tokens.
  const auto extra = bert_files(
      kVocab, "", R"({"mask_token":{"content":"[MASK]","lstrip":false},"additional_special_tokens":["[S]"]})");
  CHECK(extra.encode("the[S]the").tokens == V{"[CLS]", "the", "[S]", "the", "[SEP]"});
  const auto defaults = bert_files(kVocab, "", "");  // no config: BertTokenizer defaults
  CHECK(defaults.encode("THE").tokens == V{"[CLS]", "the", "[SEP]"});  // lowercased
}

TEST_CASE("files: what cannot be reproduced exactly is rejected naming it", "[tokenizer][files]") {
  expect_error([] { bert_files("", json_with(R"({"type":"NFKC"})", kBertPre, "WordPiece", kTemplate), ""); }, "NFKC");
  expect_error([] { bert_files("", json_with(R"({"type":"Sequence","normalizers":[{"type":"Precompiled"}]})", kBertPre, "WordPiece", kTemplate), ""); }, "Precompiled");
  expect_error([] { bert_files("", json_with(kBertNorm, R"({"type":"Whitespace"})", "WordPiece", kTemplate), ""); }, "Whitespace");
  expect_error([] { bert_files("", json_with(kBertNorm, R"({"type":"Punctuation"})", "WordPiece", kTemplate), ""); }, "pre_tokenizer 'Punctuation'");
  expect_error([] { bert_files("", json_with(kBertNorm, kBertPre, "Unigram", kTemplate), ""); }, "Unigram");
  expect_error([] { bert_files("", json_with(kBertNorm, kBertPre, "WordPiece", R"({"type":"RobertaProcessing"})"), ""); }, "RobertaProcessing");
  expect_error([] { bert_files("", json_with(kBertNorm, kBertPre, "WordPiece", R"({"type":"TemplateProcessing"})"), ""); }, "post_processor.single");
  expect_error([] { bert_files("", "{not json", ""); }, "tokenizer.json is not valid JSON");
  expect_error([] { bert_files("", "[1,2]", ""); }, "JSON object");
  expect_error([] { bert_files("", "", ""); }, "no tokenizer files");
  expect_error([] { bert_files(kVocab, "", R"({"tokenizer_class":"RobertaTokenizer"})"); }, "RobertaTokenizer");
  expect_error([] { bert_files(kVocab, "", R"({"do_lower_case":"yes"})"); }, "do_lower_case");
  expect_error([] { bert_files(kVocab, "", R"({"additional_special_tokens":["[NOPE]"]})"); }, "[NOPE]");
  expect_error([] { Tokenizer::from_vocab_txt("a\nb\n", BertSettings{}); }, "[CLS]");
  expect_error([] { Tokenizer::from_vocab_txt("[CLS]\n[SEP]\n", BertSettings{}); }, "unk_token");
  expect_error([] { Tokenizer::from_vocab_txt("", BertSettings{}); }, "empty");
  std::string bad_id = json_with(kBertNorm, kBertPre, "WordPiece", kTemplate);
  bad_id.replace(bad_id.find("\"the\":5"), 7, "\"the\":-5");
  expect_error([&] { bert_files("", bad_id, ""); }, "model.vocab['the']");
  std::string bad_template = kTemplate;
  bad_template.replace(bad_template.find("\"ids\":[2]"), 9, "\"ids\":[]");
  expect_error([&] { bert_files("", json_with(kBertNorm, kBertPre, "WordPiece", bad_template), ""); }, "[CLS]");
}

TEST_CASE("files: a null normalizer means no normalization", "[tokenizer][files]") {
  const auto t = bert_files("", json_with("null", kBertPre, "WordPiece", kTemplate), "");
  CHECK(t.encode("caf\xC3\xA9").tokens == V{"[CLS]", "caf", "##\xC3\xA9", "[SEP]"});
  CHECK(t.encode("Cafe").tokens == V{"[CLS]", "[UNK]", "[SEP]"});
}
