// The BPE model (merge order, unknown bytes, ignore_merges), the byte-level tokenizer end to end
// (added tokens, offsets of tokens inside a character, templates, truncation), its loaders and
// their E_TOKENIZER errors, and the Tokenizer facade. Expected values are worked out by hand from
// tokenizers' Rust algorithms (word.rs merge_all, byte_level.rs, roberta.rs), not from our output.
#include <catch2/catch.hpp>

#include <functional>

#include <nlohmann/json.hpp>

#include "error.h"
#include "test_engine_support.h"
#include "tokenizer/bpe.h"
#include "tokenizer/byte_level.h"
#include "tokenizer/tokenizer.h"

using namespace attnscope::tok;

namespace {

using V = std::vector<std::string>;
using Span = std::pair<int32_t, int32_t>;

void expect_error(const std::function<void()>& fn, const std::string& needle) {
  attnscope::test::expect_error(fn, "E_TOKENIZER", needle);
}

Tokenizer bpe_files(std::string_view vocab_json, std::string_view merges, std::string_view tokenizer_json,
                    std::string_view config) {
  return Tokenizer::from_files({"", vocab_json, merges, tokenizer_json, config});
}

VocabMap vocab_of(const V& tokens) {
  VocabMap v;
  for (const std::string& t : tokens) v.emplace(t, static_cast<int32_t>(v.size()));
  return v;
}

std::vector<std::pair<std::string, Span>> pieces(const BpeModel& m, const std::string& bytes) {
  std::vector<std::pair<std::string, Span>> out;
  for (const BpePiece& p : m.tokenize(bytes)) {
    std::string token;
    for (const auto& [t, id] : m.vocab()) if (id == p.id) token = t;
    out.push_back({token, {static_cast<int32_t>(p.begin), static_cast<int32_t>(p.end)}});
  }
  return out;
}
using P = std::vector<std::pair<std::string, Span>>;

// Every byte's character, then the given tokens: a complete byte-level alphabet.
std::string byte_vocab_json(const V& extra, int first_id = 0) {
  std::string out = "{";
  int id = first_id;
  auto add = [&](const std::string& t) {
    if (out.size() > 1) out += ",";
    std::string escaped;
    for (char c : t) escaped += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
    out += "\"" + escaped + "\":" + std::to_string(id++);
  };
  for (const std::string& c : byte_to_unicode()) add(c);
  for (const std::string& t : extra) add(t);
  return out + "}";
}

const std::string G = "\u0120";  // 'Ġ', the mapped space

// RoBERTa-like: <s>=0 <pad>=1 </s>=2 then bytes, merges for " Hi" and "ab", <mask> lstrip.
std::string roberta_json(const std::string& extra_model = "", bool add_prefix_space = false) {
  const std::string vocab = "{\"<s>\":0,\"<pad>\":1,\"</s>\":2," + byte_vocab_json({G + "H", G + "Hi", "ab", "<mask>"}, 3).substr(1);
  const std::string aps = add_prefix_space ? "true" : "false";
  return R"({"normalizer":null,
    "pre_tokenizer":{"type":"ByteLevel","add_prefix_space":)" + aps + R"(,"trim_offsets":true,"use_regex":true},
    "post_processor":{"type":"RobertaProcessing","sep":["</s>",2],"cls":["<s>",0],"trim_offsets":true,"add_prefix_space":)" + aps + R"(},
    "added_tokens":[{"id":0,"content":"<s>","special":true,"normalized":true},
                    {"id":2,"content":"</s>","special":true,"normalized":true},
                    {"id":263,"content":"<mask>","special":true,"lstrip":true,"normalized":false}],
    "model":{"type":"BPE","dropout":null,"unk_token":null,)" + extra_model + R"("vocab":)" + vocab +
         R"(,"merges":[")" + G + R"( H",")" + G + R"(H i","a b"]}})";
}

}  // namespace

TEST_CASE("BPE merges: lowest rank first, leftmost on ties", "[tokenizer][bpe]") {
  const VocabMap v = vocab_of({"a", "b", "c", "ab", "bc", "abc", "aa", "h", "e", "l", "o", "ll"});
  // b c (rank 0) before a b (rank 1): a + bc, then "a bc" → abc.
  CHECK(pieces(BpeModel(v, {{"b", "c"}, {"a", "b"}, {"a", "bc"}}, {}), "abc") == P{{"abc", {0, 3}}});
  CHECK(pieces(BpeModel(v, {{"b", "c"}, {"a", "b"}}, {}), "abc") == P{{"a", {0, 1}}, {"bc", {1, 3}}});
  CHECK(pieces(BpeModel(v, {{"a", "b"}, {"b", "c"}}, {}), "abc") == P{{"ab", {0, 2}}, {"c", {2, 3}}});
  // Overlapping candidates of one rank: the leftmost merges first (aaa → aa a).
  CHECK(pieces(BpeModel(v, {{"a", "a"}}, {}), "aaa") == P{{"aa", {0, 2}}, {"a", {2, 3}}});
  // word.rs test_merge: hello with (l, l).
  CHECK(pieces(BpeModel(v, {{"l", "l"}}, {}), "hello") ==
        P{{"h", {0, 1}}, {"e", {1, 2}}, {"ll", {2, 4}}, {"o", {4, 5}}});
  // A repeated merge keeps its last rank: a b now comes after b c.
  CHECK(pieces(BpeModel(v, {{"a", "b"}, {"b", "c"}, {"a", "b"}}, {}), "abc") == P{{"a", {0, 1}}, {"bc", {1, 3}}});
}

TEST_CASE("BPE: bytes missing from the vocabulary, unk, ignore_merges", "[tokenizer][bpe]") {
  const VocabMap v = vocab_of({"a", "b", "ab", "<unk>", "aba"});
  // No unk token: the byte vanishes and its neighbours merge across it, as in tokenizers.
  CHECK(pieces(BpeModel(v, {{"a", "b"}}, {}), "axb") == P{{"ab", {0, 3}}});
  BpeOptions unk;
  unk.unk_token = "<unk>";
  CHECK(pieces(BpeModel(v, {{"a", "b"}}, unk), "xxa") == P{{"<unk>", {0, 1}}, {"<unk>", {1, 2}}, {"a", {2, 3}}});
  unk.fuse_unk = true;
  CHECK(pieces(BpeModel(v, {{"a", "b"}}, unk), "xxa") == P{{"<unk>", {0, 2}}, {"a", {2, 3}}});
  BpeOptions ignore;
  ignore.ignore_merges = true;
  CHECK(pieces(BpeModel(v, {{"a", "b"}}, {}), "aba") == P{{"ab", {0, 2}}, {"a", {2, 3}}});
  CHECK(pieces(BpeModel(v, {{"a", "b"}}, ignore), "aba") == P{{"aba", {0, 3}}});
  expect_error([&] { BpeModel(v, {{"a", "z"}}, {}); }, "'z'");
  expect_error([&] { BpeModel(v, {{"b", "a"}}, {}); }, "'ba'");
  unk.unk_token = "<nope>";
  expect_error([&] { BpeModel(v, {}, unk); }, "<nope>");
}

TEST_CASE("byte-level tokenizer: RoBERTa template, <mask> lstrip, offsets", "[tokenizer][bpe]") {
  const auto t = bpe_files("", "", roberta_json(), "");
  const Encoding e = t.encode("Hi <mask>!");
  // No merge joins "H i" without a leading space; <mask> absorbed the space before it.
  CHECK(e.tokens == V{"<s>", "H", "i", " <mask>", "!", "</s>"});
  CHECK(e.ids == std::vector<int32_t>{0, 3 + 'H', 3 + 'i', 263, 3 + '!', 2});
  CHECK(e.token_texts == V{"<s>", "H", "i", "<mask>", "!", "</s>"});
  // trim_offsets leaves the absorbed space out of <mask>'s span.
  CHECK(e.offsets == std::vector<Span>{{0, 0}, {0, 1}, {1, 2}, {3, 9}, {9, 10}, {0, 0}});
  CHECK(e.special_tokens_mask == std::vector<uint8_t>{1, 0, 0, 0, 0, 1});

  const Encoding p = t.encode("ab", std::string_view(" Hi"));
  CHECK(p.tokens == V{"<s>", "ab", "</s>", "</s>", G + "Hi", "</s>"});
  CHECK(p.type_ids == std::vector<int32_t>(6, 0));  // RoBERTa: every type id 0
  CHECK(p.offsets[4] == Span{1, 3});                // " Hi" trimmed to "Hi"
  CHECK(p.token_texts[4] == "\u2423Hi");

  // longest_first over 4 special tokens: budget 2 of (1, 3) tokens keeps 1 + 1.
  const Encoding cut = t.encode("ab", std::string_view("a b"), 6);
  CHECK(cut.tokens == V{"<s>", "ab", "</s>", "</s>", "a", "</s>"});
  CHECK(cut.num_truncated == 2);
  CHECK_THROWS_AS(t.encode("ab", std::string_view("a"), 3), attnscope::Error);
}

TEST_CASE("byte-level tokenizer: a token inside a character spans the whole character", "[tokenizer][bpe]") {
  const auto t = bpe_files("", "", roberta_json(), "");
  // U+1F600 is F0 9F 98 80; no merges join them, so four tokens, each spanning the character.
  const Encoding e = t.encode("a\xF0\x9F\x98\x80");
  REQUIRE(e.tokens.size() == 7);
  for (size_t i = 2; i < 6; ++i) CHECK(e.offsets[i] == Span{1, 3});
  CHECK(e.token_texts[2] == "<0xF0>");
  // Invalid UTF-8 is U+FFFD (EF BF BD), one UTF-16 unit, as JavaScript's TextDecoder reads it.
  const Encoding bad = t.encode("\xFF" "a");
  CHECK(bad.tokens == V{"<s>", "\u00EF", "\u00BF", "\u00BD", "a", "</s>"});
  CHECK(bad.offsets[1] == Span{0, 1});
  CHECK(bad.offsets[4] == Span{1, 2});
}

TEST_CASE("byte-level tokenizer: add_prefix_space spans keep the word", "[tokenizer][bpe]") {
  const auto t = bpe_files("", "", roberta_json("", true), "");
  const Encoding e = t.encode("Hi");
  CHECK(e.tokens == V{"<s>", G + "Hi", "</s>"});
  CHECK(e.offsets[1] == Span{0, 2});
  // After an added token tokenizers would trim the prepended space off "Hi" giving "i" (1 char
  // too far); AttnScope keeps the word's span (documented in byte_level.h).
  const Encoding after = t.encode("<s>Hi");
  CHECK(after.tokens == V{"<s>", "<s>", G + "Hi", "</s>"});
  CHECK(after.offsets[2] == Span{3, 5});
}

TEST_CASE("BPE loaders reject what they would not reproduce", "[tokenizer][bpe]") {
  auto with_model = [](const std::string& extra) { return roberta_json(extra); };
  expect_error([&] { bpe_files("", "", with_model(R"("dropout":0.1,)"), ""); }, "dropout");
  expect_error([&] { bpe_files("", "", with_model(R"("continuing_subword_prefix":"##",)"), ""); }, "continuing_subword_prefix");
  expect_error([&] { bpe_files("", "", with_model(R"("end_of_word_suffix":"</w>",)"), ""); }, "end_of_word_suffix");
  std::string nfkc = roberta_json();
  nfkc.replace(nfkc.find("\"normalizer\":null"), 17, R"("normalizer":{"type":"NFKC"})");
  expect_error([&] { bpe_files("", "", nfkc, ""); }, "NFKC");
  std::string ws = roberta_json();
  ws.replace(ws.find("\"type\":\"ByteLevel\""), 18, R"("type":"Whitespace")");
  expect_error([&] { bpe_files("", "", ws, ""); }, "Whitespace");
  std::string bert_post = roberta_json();
  bert_post.replace(bert_post.find("RobertaProcessing"), 17, "InstructProcessing");
  expect_error([&] { bpe_files("", "", bert_post, ""); }, "InstructProcessing");
  std::string bad_merge = roberta_json();
  bad_merge.replace(bad_merge.find("\"a b\""), 5, "\"a  b\"");
  expect_error([&] { bpe_files("", "", bad_merge, ""); }, "model.merges[2]");

  const std::string vocab = byte_vocab_json({"ab"});
  expect_error([&] { bpe_files(vocab, "#version: 0.2\na b\n\nb a\n", "", ""); }, "merges.txt line 3");
  expect_error([&] { bpe_files(vocab, "a b\n", "", R"({"tokenizer_class":"BertTokenizer"})"); }, "BertTokenizer");
  expect_error([&] { bpe_files(vocab, "a b\n", "", R"({"tokenizer_class":"RobertaTokenizer"})"); }, "<s>");
  expect_error([&] { bpe_files(vocab, "", "", ""); }, "merges.txt");
}

TEST_CASE("vocab.json + merges.txt as GPT2Tokenizer and RobertaTokenizer", "[tokenizer][bpe]") {
  const std::string merges = "#version: 0.2\na b\n" + G + " H\n" + G + "H i\n";
  const auto gpt2 = bpe_files(byte_vocab_json({"ab", G + "H", G + "Hi", "<|endoftext|>"}), merges, "", "");
  const Encoding g = gpt2.encode("ab Hi<|endoftext|>");
  CHECK(g.tokens == V{"ab", G + "Hi", "<|endoftext|>"});  // no template; the special token kept whole
  CHECK(g.offsets == std::vector<Span>{{0, 2}, {2, 5}, {5, 18}});  // GPT-2 does not trim offsets

  const std::string roberta_vocab = "{\"<s>\":0,\"<pad>\":1,\"</s>\":2,\"<unk>\":3," +
                                    byte_vocab_json({"ab", G + "H", G + "Hi", "<mask>"}, 4).substr(1);
  const auto r = bpe_files(roberta_vocab, merges, "", R"({"tokenizer_class":"RobertaTokenizerFast"})");
  const Encoding e = r.encode("ab <mask>");
  CHECK(e.tokens == V{"<s>", "ab", " <mask>", "</s>"});
  CHECK(e.offsets[2] == Span{3, 9});
  CHECK(r.special_tokens().mask == "<mask>");
}

TEST_CASE("Tokenizer facade picks WordPiece or BPE from the files", "[tokenizer][bpe]") {
  const auto wp = Tokenizer::from_files({"[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nhi\n", "", "", "", ""});
  CHECK_FALSE(wp.is_byte_level());
  CHECK(wp.encode("hi").tokens == V{"[CLS]", "hi", "[SEP]"});
  CHECK(wp.special_tokens().mask == "[MASK]");

  const auto bpe = Tokenizer::from_files({"", "", "", roberta_json(), ""});
  CHECK(bpe.is_byte_level());
  CHECK(bpe.token_to_id(G + "Hi") == 260);
  CHECK(bpe.id_to_token(260) == G + "Hi");
  CHECK(bpe.token_text(260) == "\u2423Hi");
  CHECK(bpe.token_text(263) == "<mask>");
  CHECK(bpe.vocab_size() == 264);
  CHECK(bpe.special_tokens().cls == "<s>");
  CHECK(bpe.special_tokens().sep == "</s>");
  CHECK_THROWS_AS(bpe.id_to_token(264), attnscope::Error);

  expect_error([] { Tokenizer::from_files({"", "", "", "", ""}); }, "no tokenizer files");
}

TEST_CASE("BPE loaders: any field of the wrong type is E_TOKENIZER, never another exception", "[tokenizer][bpe]") {
  // Every field of a working tokenizer.json (the first entries of vocab and merges) replaced by
  // each JSON type in turn: loading must succeed or fail with E_TOKENIZER.
  const nlohmann::json base = nlohmann::json::parse(roberta_json());
  std::vector<nlohmann::json::json_pointer> paths;
  std::function<void(const nlohmann::json&, const nlohmann::json::json_pointer&)> walk =
      [&](const nlohmann::json& v, const nlohmann::json::json_pointer& at) {
        paths.push_back(at);
        size_t n = 0;
        if (v.is_object()) {
          for (const auto& [key, child] : v.items()) if (v.size() <= 20 || n++ < 3) walk(child, at / key);
        } else if (v.is_array()) {
          for (size_t i = 0; i < v.size() && i < 3; ++i) walk(v[i], at / i);
        }
      };
  walk(base, nlohmann::json::json_pointer());
  const std::vector<nlohmann::json> replacements = {nullptr, true, -7, 1.5, "x", nlohmann::json::array(),
                                                    nlohmann::json::object()};
  int loaded = 0, rejected = 0;
  for (const auto& path : paths) {
    for (const nlohmann::json& r : replacements) {
      nlohmann::json doc = base;
      doc[path] = r;
      INFO("path " << path.to_string() << " = " << r.dump());
      try {
        (void)bpe_files("", "", doc.dump(), "");
        ++loaded;
      } catch (const attnscope::Error& e) {
        CHECK(e.code() == "E_TOKENIZER");
        ++rejected;
      }
    }
  }
  INFO(paths.size() << " fields: " << loaded << " variants loaded, " << rejected << " rejected");
  CHECK(loaded > 0);
  CHECK(rejected > 100);
}
