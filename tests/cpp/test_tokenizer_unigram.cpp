// The Unigram model, the Precompiled normalizer and grapheme clusters on their own, on tiny
// vocabularies whose answers follow from the rules of tokenizers' unigram/model.rs,
// normalizers/precompiled.rs and UAX #29 (worked out by hand, not taken from our output).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "error.h"
#include "test_engine_support.h"
#include "tokenizer/grapheme.h"
#include "tokenizer/precompiled.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/unigram.h"

using namespace attnscope::tok;
using V = std::vector<std::string>;

namespace {

V pieces(const UnigramModel& m, const std::string& word) {
  V out;
  for (const UnigramToken& t : m.tokenize(word)) out.push_back(t.text + "=" + std::to_string(t.id));
  return out;
}

// A double array by hand: the root's children at offset 1 (unit 0 = offset 1 << 10), so byte c's
// unit sits at 1 ^ c; each child's leaf value at (its position) ^ its offset.
std::string charsmap_bytes(const std::vector<uint32_t>& units, const std::string& strings) {
  std::string out;
  auto put = [&](uint32_t v) { for (int k = 0; k < 4; ++k) out += static_cast<char>((v >> (8 * k)) & 0xFF); };
  put(static_cast<uint32_t>(units.size() * 4));
  for (uint32_t u : units) put(u);
  return out + strings;
}

}  // namespace

TEST_CASE("Unigram: the highest-scoring split, Viterbi over every piece", "[tokenizer][unigram]") {
  const UnigramModel m({{"<unk>", 0}, {"a", -1}, {"b", -1}, {"ab", -3}, {"abc", -2.5}, {"c", -1}}, 0, false);
  CHECK(pieces(m, "ab") == V{"a=1", "b=2"});        // -2 beats ab's -3
  CHECK(pieces(m, "abc") == V{"abc=4"});            // -2.5 beats a b c's -3
  CHECK(pieces(m, "") == V{});
}

TEST_CASE("Unigram: equal scores keep the split offered first (earlier start, shorter piece)", "[tokenizer][unigram]") {
  // "abc": a+bc and ab+c both -2; the node at 3 is first offered from position 1 (bc), and c
  // from position 2 only ties, so a+bc stays, as in Rust's strict `>`.
  const UnigramModel m({{"<unk>", 0}, {"a", -1}, {"b", -5}, {"c", -1}, {"ab", -1}, {"bc", -1}}, 0, false);
  CHECK(pieces(m, "abc") == V{"a=1", "bc=5"});
}

TEST_CASE("Unigram: unknown characters cost min score - 10, fuse, and keep their text", "[tokenizer][unigram]") {
  const UnigramModel m({{"<unk>", 0}, {"a", -1}, {"x", -2}}, 0, false);
  // "é" and "ü" have no piece: one fused unk token whose text is the characters themselves.
  CHECK(pieces(m, "a\xC3\xA9\xC3\xBCx") == V{"a=1", "\xC3\xA9\xC3\xBC=0", "x=2"});
  const UnigramModel no_unk({{"a", -1}}, -1, false);
  attnscope::test::expect_error([&] { no_unk.tokenize("ab"); }, "E_TOKENIZER", "unk_id");
  attnscope::test::expect_error([] { UnigramModel({{"a", -1}}, 3, false); }, "E_TOKENIZER", "unk_id");
}

TEST_CASE("Unigram: byte_fallback turns the fused unknown text into its bytes", "[tokenizer][unigram]") {
  std::vector<UnigramPiece> vocab{{"<unk>", 0}, {"a", -1}, {"<0xC3>", -1}, {"<0xA9>", -1}};
  const UnigramModel m(vocab, 0, true);
  const std::vector<UnigramToken> t = m.tokenize("a\xC3\xA9");
  REQUIRE(t.size() == 3);
  CHECK(t[1].text == "<0xC3>");
  CHECK(t[2].text == "<0xA9>");
  CHECK((t[1].begin == 1 && t[1].end == 3 && t[2].begin == 1 && t[2].end == 3));  // both span the character
  // A byte without its <0xNN> piece: the whole unknown text is unk again.
  CHECK(pieces(m, "\xC3\xBC") == V{"\xC3\xBC=0"});
}

TEST_CASE("Precompiled: shortest key, per grapheme under 6 bytes, spans realigned", "[tokenizer][unigram]") {
  // Keys "a" -> "A" and "ab" -> "X" (a two-byte key never wins: the shortest match is kept).
  // Units: 0 root (offset 1); 1^'a' = 96: label 'a', has leaf, offset to 96^1 = 97... built as
  // the crate reads them: child position = parent position ^ offset ^ byte.
  std::vector<uint32_t> units(256, 0);
  units[0] = 1u << 10;                               // root: offset 1
  units[1 ^ 'a'] = 'a' | (1u << 8) | (1u << 10);     // 'a': leaf below, children at (1^'a')^1
  units[(1 ^ 'a') ^ 1] = 0;                          // its value: string at 0 ("A")
  const PrecompiledCharsmap map(charsmap_bytes(units, std::string("A\0", 2)));
  CHECK(map.transform("a") == std::string_view("A"));
  CHECK(map.transform("ab") == std::string_view("A"));  // a prefix key answers for the whole grapheme
  CHECK(!map.transform("b"));
  const std::vector<SpannedChar> text = decode_utf8("ba\xCC\x81");  // b, a + combining acute: 2 graphemes
  const std::vector<SpannedChar> out = map.apply(text);
  REQUIRE(out.size() == 2);  // "a\u0301" (3 bytes) looked up whole: "A", the accent swallowed
  CHECK(out[1].cp == U'A');
  CHECK((out[1].start == 1 && out[1].end == 2));
}

TEST_CASE("Precompiled: malformed charsmaps are E_TOKENIZER, never a read outside", "[tokenizer][unigram]") {
  attnscope::test::expect_error([] { PrecompiledCharsmap(std::string("\x01\x00", 2)); }, "E_TOKENIZER", "Precompiled");
  attnscope::test::expect_error([] { PrecompiledCharsmap(charsmap_bytes({}, "") .substr(0, 4) + "\xFF"); }, "E_TOKENIZER", "");
  attnscope::test::expect_error([] { PrecompiledCharsmap(std::string("\x08\x00\x00\x00\x00\x00", 6)); }, "E_TOKENIZER", "trie size");
  attnscope::test::expect_error([] { PrecompiledCharsmap::from_base64("AAA"); }, "E_TOKENIZER", "base64");
  // A root whose offset leads past the array: an error when text walks there.
  const PrecompiledCharsmap wild(charsmap_bytes({0xFFFFFC00u}, ""));
  attnscope::test::expect_error([&] { wild.transform("a"); }, "E_TOKENIZER", "outside");
}

TEST_CASE("Grapheme clusters: UAX #29 rules", "[tokenizer][unigram]") {
  auto first = [](const std::string& s) {
    std::u32string cps;
    for (const SpannedChar& c : decode_utf8(s)) cps += c.cp;
    return grapheme_end(cps.data(), 0, cps.size());
  };
  CHECK(first("\r\n") == 2);                                  // GB3
  CHECK(first("\n\xCC\x81") == 1);                            // GB4: control then extend breaks
  CHECK(first("a\xCC\x81\xCC\xA3x") == 3);                    // GB9
  CHECK(first("\xE1\x84\x80\xE1\x85\xA1\xE1\x86\xA8") == 3);  // L V T: GB6, GB7
  CHECK(first("\xF0\x9F\x91\xA9\xE2\x80\x8D\xF0\x9F\x92\xBB") == 3);  // 👩‍💻: GB11
  CHECK(first("\xF0\x9F\x87\xB0\xF0\x9F\x87\xB7\xF0\x9F\x87\xAF") == 2);  // 🇰🇷 then 🇯: GB12
  CHECK(first("a\xE2\x80\x8D\xF0\x9F\x92\xBB") == 2);         // ZWJ after a letter joins, the emoji does not
}

TEST_CASE("Unigram tokenizer.json: T5's layout end to end", "[tokenizer][unigram]") {
  nlohmann::json j = {
      {"added_tokens", nlohmann::json::array({{{"id", 1}, {"content", "</s>"}, {"special", true}, {"normalized", false},
                                              {"single_word", false}, {"lstrip", false}, {"rstrip", false}}})},
      {"normalizer", nullptr},
      {"pre_tokenizer", {{"type", "Sequence"}, {"pretokenizers", {{{"type", "WhitespaceSplit"}},
                                                                   {{"type", "Metaspace"}, {"replacement", "\u2581"}, {"prepend_scheme", "always"}}}}}},
      {"post_processor", {{"type", "TemplateProcessing"},
                          {"single", {{{"Sequence", {{"id", "A"}, {"type_id", 0}}}}, {{"SpecialToken", {{"id", "</s>"}, {"type_id", 0}}}}}},
                          {"pair", {{{"Sequence", {{"id", "A"}, {"type_id", 0}}}}, {{"Sequence", {{"id", "B"}, {"type_id", 0}}}}, {{"SpecialToken", {{"id", "</s>"}, {"type_id", 0}}}}}},
                          {"special_tokens", {{"</s>", {{"id", "</s>"}, {"ids", {1}}, {"tokens", {"</s>"}}}}}}}},
      {"decoder", {{"type", "Metaspace"}, {"replacement", "\u2581"}, {"prepend_scheme", "always"}}},
      {"model", {{"type", "Unigram"}, {"unk_id", 2}}}};
  // Built entry by entry: nlohmann reads a braced list of [string, value] pairs as an object.
  j["model"]["vocab"] = nlohmann::json::array();
  for (const auto& [token, score] : std::vector<std::pair<std::string, double>>{
           {"<pad>", 0.0}, {"</s>", 0.0}, {"<unk>", 0.0}, {"\u2581hi", -1.0}, {"\u2581", -2.0}, {"h", -3.0}, {"i", -3.0}}) {
    j["model"]["vocab"].push_back(nlohmann::json::array({token, score}));
  }
  attnscope::tok::TokenizerFiles files;
  const std::string text = j.dump();
  files.tokenizer_json = text;
  const Tokenizer t = Tokenizer::from_files(files);
  const Encoding e = t.encode("hi  ih", std::nullopt, 0);
  CHECK(e.tokens == V{"\u2581hi", "\u2581", "i", "h", "</s>"});
  CHECK(e.ids == std::vector<int32_t>{3, 4, 6, 5, 1});
  CHECK(t.decode(e.ids) == "hi ih</s>");
}
