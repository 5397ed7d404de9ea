// The stages Llama-family tokenizers add, each on its own: the regex matcher (Oniguruma's
// leftmost-first semantics, worked out by hand for Llama 3's pattern), Split's delimiter
// behaviours and Metaspace (tokenizers' pre_tokenizers/split.rs and metaspace.rs rules), NFC,
// BPE byte_fallback, the decoders, and the loader's refusals. Expected values come from the
// Rust sources' rules (and, where noted, from the Rust library itself), not from our output.
#include <catch2/catch.hpp>

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "error.h"
#include "test_engine_support.h"
#include "tokenizer/bpe.h"
#include "tokenizer/decoder_stage.h"
#include "tokenizer/normalizer_stage.h"
#include "tokenizer/pre_tokenizer_stage.h"
#include "tokenizer/regex.h"
#include "tokenizer/tokenizer.h"

using namespace attnscope::tok;
using V = std::vector<std::string>;

namespace {

void expect_error(const std::function<void()>& fn, const std::string& needle) {
  attnscope::test::expect_error(fn, "E_TOKENIZER", needle);
}

std::u32string u32(const std::string& utf8) {
  std::u32string out;
  for (const SpannedChar& c : decode_utf8(utf8)) out += c.cp;
  return out;
}

V matches(const std::string& pattern, const std::string& text) {
  const std::u32string cps = u32(text);
  V out;
  for (const auto& [b, e] : Regex::compile(pattern).find_all(cps.data(), cps.size())) {
    std::string piece;
    for (size_t i = b; i < e; ++i) append_utf8(piece, cps[i]);
    out.push_back(piece);
  }
  return out;
}

V words(const nlohmann::json& section, const std::string& text) {
  const std::vector<SpannedChar> chars = decode_utf8(text);
  V out;
  for (const Word& w : PreTokenizer::from_json(section).split(chars.data(), chars.data() + chars.size())) {
    std::string s;
    for (const SpannedChar& c : w.chars) append_utf8(s, c.cp);
    out.push_back(s);
  }
  return out;
}

std::string normalized(const nlohmann::json& section, const std::string& text) {
  const std::vector<SpannedChar> chars = decode_utf8(text);
  std::string out;
  for (const SpannedChar& c : Normalizer::from_json(section).apply(chars.data(), chars.data() + chars.size())) {
    append_utf8(out, c.cp);
  }
  return out;
}

const char* kLlama3Pattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

nlohmann::json split(const std::string& pattern_kind, const std::string& pattern, const std::string& behavior,
                     bool invert = false) {
  return {{"type", "Split"}, {"pattern", {{pattern_kind, pattern}}}, {"behavior", behavior}, {"invert", invert}};
}

}  // namespace

TEST_CASE("regex: Llama 3's pattern, first alternative that matches, backtracking", "[tokenizer][regex]") {
  // " " before "here" cannot lead letters (two spaces): \s+(?!\S) backs off to one space; the
  // newlines end at the last [\r\n]; digits come in threes; a space before digits stands alone.
  CHECK(matches(kLlama3Pattern, "I'm  here\n\n 123456 x") == V{"I", "'m", " ", " here", "\n\n", " ", "123", "456", " x"});
  CHECK(matches(kLlama3Pattern, "WE'LL IT'S") == V{"WE", "'LL", " IT", "'S"});  // (?i:...)
  CHECK(matches(kLlama3Pattern, "x \xC5\xBF") == V{"x", " \xC5\xBF"});           // ſ is a letter
  CHECK(matches(kLlama3Pattern, "a'\xC5\xBF") == V{"a", "'\xC5\xBF"});             // and folds to s
  CHECK(matches(kLlama3Pattern, "...\n\nok") == V{"...\n\n", "ok"});
}

TEST_CASE("regex: quantifiers, classes, lookahead, anchors", "[tokenizer][regex]") {
  CHECK(matches(R"(\d{2,3})", "12345") == V{"123", "45"});
  CHECK(matches("a+?", "aaa") == V{"a", "a", "a"});
  CHECK(matches("[^a-c]+", "abxyzc") == V{"xyz"});
  CHECK(matches(R"(\s+(?=b))", "a  b  c") == V{"  "});
  CHECK(matches(R"(^a|a$)", "aba") == V{"a", "a"});
  CHECK(matches(R"([\p{Lu}\p{Nd}]+)", "abC1d") == V{"C1"});
  CHECK(matches(R"(\P{L}+)", "ab, cd") == V{", "});
  CHECK(matches(R"(\x41\u0042\x{43})", "ABC") == V{"ABC"});
  CHECK(matches("x{,2}", "xxx") == V{"xx", "x"});    // Ruby syntax: {,n} is 0 to n
  CHECK(matches("x{a}", "x{a}") == V{"x{a}"});       // not a quantifier: literal braces
  CHECK(matches("(?:ab)*c", "ababc") == V{"ababc"});
  CHECK(matches("a*", "bbb").empty());             // empty matches are skipped
}

TEST_CASE("regex: unsupported constructs and runaway backtracking are E_TOKENIZER", "[tokenizer][regex]") {
  expect_error([] { Regex::compile("(?<=a)b"); }, "lookbehind");
  expect_error([] { Regex::compile(R"(\p{Han})"); }, "\\p{Han}");
  expect_error([] { Regex::compile(R"(a\b)"); }, "\\b");
  expect_error([] { Regex::compile("(?P<x>a)"); }, "(?P");
  expect_error([] { Regex::compile("a++"); }, "possessive");
  expect_error([] { Regex::compile("(a"); }, "missing ')'");
  expect_error([] { Regex::compile("[a"); }, "missing ']'");
  expect_error([] { Regex::compile("a{3,1}"); }, "n < m");
  expect_error([] { Regex::compile(std::string(3000, 'a')); }, "longer than");
  const std::u32string as(40, U'a');
  expect_error([&] { Regex::compile("(a|a)*b").find_all(as.data(), as.size()); }, "backtracks too much");
}

TEST_CASE("Split pre-tokenizer: every delimiter behaviour", "[tokenizer][pre_tokenizer]") {
  CHECK(words(split("String", ",", "Removed"), "a,b,,c") == V{"a", "b", "c"});
  CHECK(words(split("String", ",", "Isolated"), "a,b,,c") == V{"a", ",", "b", ",", ",", "c"});
  CHECK(words(split("String", ",", "MergedWithPrevious"), "a,b,,c") == V{"a,", "b,", ",", "c"});
  CHECK(words(split("String", ",", "MergedWithNext"), "a,b,,c") == V{"a", ",b", ",", ",c"});
  CHECK(words(split("String", ",", "Contiguous"), "a,b,,c") == V{"a", ",", "b", ",,", "c"});
  CHECK(words(split("Regex", "[a-z]+", "Removed", true), "ab12cd") == V{"ab", "cd"});  // invert
  expect_error([] { PreTokenizer::from_json(split("String", ",", "Shuffled")); }, "Shuffled");
  expect_error([] { PreTokenizer::from_json({{"type", "Split"}, {"pattern", "x"}}); }, "Split pattern");
}

TEST_CASE("Digits pre-tokenizer: digits alone or in runs (SmolLM)", "[tokenizer][pre_tokenizer]") {
  // Rust's char::is_numeric: Arabic-Indic digits and ½ (No) count.
  const std::string text = "a12 b\xD9\xA3\xD9\xA4\xC2\xBD";
  CHECK(words({{"type", "Digits"}, {"individual_digits", true}}, text) ==
        V{"a", "1", "2", " b", "\xD9\xA3", "\xD9\xA4", "\xC2\xBD"});
  CHECK(words({{"type", "Digits"}, {"individual_digits", false}}, text) == V{"a", "12", " b", "\xD9\xA3\xD9\xA4\xC2\xBD"});
}

TEST_CASE("Metaspace pre-tokenizer: spaces as '\u2581', prepended, split before each", "[tokenizer][pre_tokenizer]") {
  const std::string m = "\xE2\x96\x81";
  const nlohmann::json always = {{"type", "Metaspace"}, {"replacement", m}, {"prepend_scheme", "always"}, {"split", true}};
  CHECK(words(always, "Hello  world") == V{m + "Hello", m, m + "world"});
  nlohmann::json whole = always;
  whole["split"] = false;
  CHECK(words(whole, "Hello world") == V{m + "Hello" + m + "world"});
  whole["prepend_scheme"] = "never";
  CHECK(words(whole, "Hello world") == V{"Hello" + m + "world"});
}

TEST_CASE("normalizers: NFC, Prepend + Replace (Llama 2), Sequence", "[tokenizer][normalizer]") {
  const nlohmann::json nfc = {{"type", "NFC"}};
  CHECK(normalized(nfc, "e\xCC\x81") == "\xC3\xA9");                       // e + acute → é
  CHECK(normalized(nfc, "\xE1\x84\x80\xE1\x85\xA1\xE1\x86\xA8") == "\xEA\xB0\x81");  // jamo → 각
  CHECK(normalized(nfc, "\xE2\x84\xAB") == "\xC3\x85");                    // Å (U+212B) → Å (U+00C5)
  CHECK(normalized(nfc, "\xE0\xA5\x98") == "\xE0\xA4\x95\xE0\xA4\xBC");    // U+0958 is excluded
  // c + acute + dot below: ordered dot-first, the acute still composes (not blocked).
  CHECK(normalized(nfc, "c\xCC\x81\xCC\xA3") == "\xC4\x87\xCC\xA3");
  const nlohmann::json llama2 = nlohmann::json::parse(R"({"type":"Sequence","normalizers":[
    {"type":"Prepend","prepend":"\u2581"},{"type":"Replace","pattern":{"String":" "},"content":"\u2581"}]})");
  CHECK(normalized(llama2, "Hi  you") == "\xE2\x96\x81Hi\xE2\x96\x81\xE2\x96\x81you");
  CHECK(normalized(llama2, "").empty());  // Prepend leaves empty text empty
  CHECK(normalized({{"type", "Replace"}, {"pattern", {{"Regex", R"(\s+)"}}}, {"content", "_"}}, "a \t b") == "a_b");
  CHECK(normalized({{"type", "Strip"}, {"strip_left", true}, {"strip_right", false}}, "  a  ") == "a  ");
  expect_error([] { Normalizer::from_json({{"type", "NFKC"}}); }, "NFKC");
}

TEST_CASE("BPE byte_fallback: missing characters become <0xNN> byte tokens", "[tokenizer][bpe]") {
  VocabMap v{{"<unk>", 0}, {"a", 1}, {"<0xE2>", 2}, {"<0x82>", 3}, {"<0xAC>", 4}};
  BpeOptions o;
  o.unk_token = "<unk>";
  o.byte_fallback = true;
  const BpeModel model(v, {}, o);
  std::vector<int32_t> ids;
  std::vector<std::pair<uint32_t, uint32_t>> ranges;
  for (const BpePiece& p : model.tokenize("a\xE2\x82\xAC")) {  // "a€"
    ids.push_back(p.id);
    ranges.emplace_back(p.begin, p.end);
  }
  CHECK(ids == std::vector<int32_t>{1, 2, 3, 4});
  CHECK(ranges == std::vector<std::pair<uint32_t, uint32_t>>{{0, 1}, {1, 2}, {1, 2}, {1, 2}});  // the whole €
  // A character whose bytes are not all in the vocabulary is unk instead.
  ids.clear();
  for (const BpePiece& p : model.tokenize("\xC3\xA9")) ids.push_back(p.id);
  CHECK(ids == std::vector<int32_t>{0});
}

TEST_CASE("decoders: Llama 2's Sequence, Metaspace, WordPiece cleanup, ByteLevel", "[tokenizer][decoder]") {
  const nlohmann::json llama2 = nlohmann::json::parse(R"({"type":"Sequence","decoders":[
    {"type":"Replace","pattern":{"String":"\u2581"},"content":" "},{"type":"ByteFallback"},{"type":"Fuse"},
    {"type":"Strip","content":" ","start":1,"stop":0}]})");
  const std::string m = "\xE2\x96\x81";
  // <0xE2><0x96><0x81> is '▁' as bytes (not replaced: Replace ran before); a lone <0xFF> is U+FFFD.
  CHECK(Decoder::from_json(llama2).decode({m + "Hello", "<0xE2>", "<0x96>", "<0x81>", "!", "<0xFF>"}) ==
        "Hello" + m + "!\xEF\xBF\xBD");
  const nlohmann::json meta = {{"type", "Metaspace"}, {"replacement", m}, {"prepend_scheme", "always"}};
  CHECK(Decoder::from_json(meta).decode({m + "Hey", m + m + "there"}) == "Hey  there");
  CHECK(Decoder::wordpiece("##", true).decode({"hello", "##s", ",", "it", "'", "s"}) == "hellos, it ' s");
  CHECK(Decoder::wordpiece("##", false).decode({"a", "##b", "."}) == "ab .");
  CHECK(Decoder::byte_level().decode({"\xC4\xA0hi", "<|end|>"}) == " hi<|end|>");
  CHECK(Decoder().decode({"a", "b"}) == "a b");  // no decoder: joined with spaces
  expect_error([] { Decoder::from_json({{"type", "CTC"}}); }, "CTC");
}

TEST_CASE("tokenizer.json loader refuses what would break the model", "[tokenizer][files]") {
  const auto load = [](const std::string& json) { return Tokenizer::from_files({"", "", "", json, ""}); };
  const std::string model = R"("model":{"type":"BPE","vocab":{"a":0,"b":1},"merges":[]})";
  expect_error([&] {
    load(R"({)" + model + R"(,"post_processor":{"type":"TemplateProcessing",
      "single":[{"SpecialToken":{"id":"<s>","type_id":0}},{"Sequence":{"id":"A","type_id":0}}],
      "pair":[{"Sequence":{"id":"A","type_id":0}},{"Sequence":{"id":"B","type_id":1}}],
      "special_tokens":{"<s>":{"id":"<s>","ids":[7],"tokens":["<s>"]}}}})");
  }, "outside the vocabulary");
  expect_error([&] { load(R"({"model":{"type":"BPE","vocab":{"a":0,"b":40000000},"merges":[]}})"); }, "sparse");
  expect_error([&] { load("{" + model + R"(,"added_tokens":[{"id":49000000,"content":"x"}]})"); }, "sparse");
  expect_error([&] { load("{\"normalizer\":" + std::string(100, '[') + std::string(100, ']') + "}"); }, "deeper than");
  expect_error([&] { load("{" + model + R"j(,"pre_tokenizer":{"type":"Split","pattern":{"Regex":"(?<=a)"},"behavior":"Isolated"}})j"); },
               "lookbehind");
  expect_error([&] { load("{" + model + R"(,"pre_tokenizer":[1,2]})"); }, "pre_tokenizer 'an array'");
  const Tokenizer t = load("{" + model + R"(,"pre_tokenizer":{"type":"Split","pattern":{"String":"b"},"behavior":"Isolated"}})");
  CHECK(t.encode("abab").tokens == V{"a", "b", "a", "b"});
}
