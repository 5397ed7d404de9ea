// The ByteLevel stage: GPT-2's split pattern (against std::regex on ASCII, where ECMAScript reads
// the pattern as Oniguruma does, and hand-derived cases beyond ASCII, including tokenizers' own
// test sentences), the byte → character mapping, readable labels and offset trimming.
#include <catch2/catch.hpp>

#include <random>
#include <regex>

#include "tokenizer/byte_level.h"

using namespace attnscope::tok;

namespace {

std::vector<std::string> split(const std::string& text) {
  const std::vector<SpannedChar> chars = decode_utf8(text);
  std::vector<std::string> out;
  for (const CharRange& r : split_gpt2_pattern(chars, 0, chars.size())) {
    std::string piece;
    for (size_t i = r.begin; i < r.end; ++i) append_utf8(piece, chars[i].cp);
    out.push_back(piece);
  }
  return out;
}

using V = std::vector<std::string>;

}  // namespace

TEST_CASE("GPT-2 pattern matches std::regex on random ASCII", "[tokenizer][bpe]") {
  // On ASCII, \p{L} is [A-Za-z], \p{N} is [0-9] and \s is [\t-\r ]; ECMAScript alternation and
  // look-ahead backtrack as Oniguruma's do.
  const std::regex gpt2(R"('s|'t|'re|'ve|'m|'ll|'d| ?[A-Za-z]+| ?[0-9]+| ?[^\t-\r A-Za-z0-9]+|[\t-\r ]+(?![^\t-\r ])|[\t-\r ]+)");
  const std::string alphabet = "aZ9 '\t\n.sreRSvmlldt -,!\r\x0b";
  std::mt19937 rng(15);
  for (int trial = 0; trial < 2000; ++trial) {
    std::string text;
    const int n = 1 + static_cast<int>(rng() % 24);
    for (int i = 0; i < n; ++i) text += alphabet[rng() % alphabet.size()];
    V want;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), gpt2); it != std::sregex_iterator(); ++it) {
      want.push_back(it->str());
    }
    INFO("text: '" << text << "'");
    REQUIRE(split(text) == want);
  }
}

TEST_CASE("GPT-2 pattern: whitespace runs, contractions, beyond ASCII", "[tokenizer][bpe]") {
  // tokenizers' own pre_tokenization and handling_of_multiple_whitespaces tests.
  CHECK(split("Hello my friend, how is your day going?") ==
        V{"Hello", " my", " friend", ",", " how", " is", " your", " day", " going", "?"});
  CHECK(split("Hello there       dear") == V{"Hello", " there", "      ", " dear"});
  CHECK(split("Hello there\nHello there") == V{"Hello", " there", "\n", "Hello", " there"});
  // A run followed by a word gives up its last space; a lone non-space whitespace stands alone.
  CHECK(split("a  \n b") == V{"a", "  \n", " b"});
  CHECK(split("a\n\nb") == V{"a", "\n", "\n", "b"});
  CHECK(split("end   ") == V{"end", "   "});
  // Contractions are lowercase only; an uppercase one is punctuation then letters.
  CHECK(split("I'm they'll it'S 'sa") == V{"I", "'m", " they", "'ll", " it", "'", "S", " '", "sa"});
  // \p{L}: Hangul, CJK; \p{N}: ¾ (No) and Arabic-Indic digits; U+3000 and U+0085 are \s, U+FEFF is not.
  CHECK(split("안녕하세요 세계") == V{"안녕하세요", " 세계"});
  CHECK(split("2¾ cups ٣٤") == V{"2¾", " cups", " ٣٤"});
  CHECK(split("x\u3000y") == V{"x", "\u3000", "y"});
  CHECK(split("x\u0085y") == V{"x", "\u0085", "y"});
  CHECK(split("x\uFEFFy") == V{"x", "\uFEFF", "y"});
  CHECK(split("😀😃 ok") == V{"😀😃", " ok"});
  CHECK(split("") == V{});
}

TEST_CASE("byte to unicode mapping is GPT-2's and inverts", "[tokenizer][bpe]") {
  const auto& m = byte_to_unicode();
  CHECK(m[' '] == "\u0120");   // Ġ
  CHECK(m['\n'] == "\u010A");  // Ċ
  CHECK(m['!'] == "!");
  CHECK(m[0x00] == "\u0100");
  CHECK(m[0x7F] == "\u0121");  // the 34th unprintable byte
  CHECK(m[0xAD] == "\u0143");  // the last one
  std::string all, mapped, back;
  for (int b = 0; b < 256; ++b) {
    all += static_cast<char>(b);
    mapped += m[b];
  }
  REQUIRE(unicode_to_bytes(mapped, back));
  CHECK(back == all);
  CHECK_FALSE(unicode_to_bytes("\u0200", back));  // not a mapped character
}

TEST_CASE("readable form of byte-level tokens", "[tokenizer][bpe]") {
  CHECK(readable_bytes(" the") == "\u2423the");
  CHECK(readable_bytes("\n\t") == "\u21B5\u21E5");
  CHECK(readable_bytes("\x01") == "\u2401");
  CHECK(readable_bytes("caf\xC3\xA9") == "caf\xC3\xA9");
  CHECK(readable_bytes("\xF0\x9F") == "<0xF0><0x9F>");  // a token ending inside an emoji
  CHECK(readable_bytes("\x98\x80!") == "<0x98><0x80>!");
  CHECK(readable_bytes("\xEF\xBF\xBD") == "\xEF\xBF\xBD");  // a real U+FFFD is a character
}

TEST_CASE("trim_offsets follows process_offsets and keeps whole characters", "[tokenizer][bpe]") {
  // tokenizers' processor_trims_offsets: leading and trailing 'Ġ' leave the span.
  const std::vector<SpannedChar> chars = decode_utf8("  Hello  there ");
  std::vector<Token> t = {{"\u0120", 1, 0, 1}, {"\u0120Hello", 2, 1, 7}, {"\u0120\u0120", 3, 7, 9},
                          {"there\u0120", 4, 9, 15}};
  trim_byte_level_offsets(t, std::vector<bool>(4, false), false, chars);
  CHECK(std::pair{t[0].start, t[0].end} == std::pair{1, 1});
  CHECK(std::pair{t[1].start, t[1].end} == std::pair{2, 7});
  CHECK(std::pair{t[2].start, t[2].end} == std::pair{9, 9});
  CHECK(std::pair{t[3].start, t[3].end} == std::pair{9, 14});
  // With add_prefix_space the first token keeps its one leading space...
  std::vector<Token> first = {{"\u0120Hello", 2, 0, 5}};
  trim_byte_level_offsets(first, {false}, true, decode_utf8("Hello"));
  CHECK(std::pair{first[0].start, first[0].end} == std::pair{0, 5});
  // ...and a prepended space alone before an astral character does not cut its surrogate pair.
  std::vector<Token> astral = {{"\u0120", 5, 0, 2}, {"x", 6, 0, 2}};
  trim_byte_level_offsets(astral, {true, false}, true, decode_utf8("\xF0\xA0\x80\x80"));
  CHECK(std::pair{astral[0].start, astral[0].end} == std::pair{0, 2});
}
