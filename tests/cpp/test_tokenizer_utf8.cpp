// UTF-8 decoding for the tokenizer: code points with UTF-16 spans, and U+FFFD per maximal
// invalid subpart (expected values from the Unicode Standard's examples, §3.9 Table 3-8).
#include <catch2/catch.hpp>

#include "tokenizer/utf8_text.h"

using namespace attnscope::tok;

namespace {
std::u32string cps(const std::vector<SpannedChar>& chars) {
  std::u32string s;
  for (const auto& c : chars) s += c.cp;
  return s;
}
}  // namespace

TEST_CASE("utf8: valid text decodes with UTF-16 spans", "[tokenizer][utf8]") {
  const auto chars = decode_utf8("a\xC3\xA9\xE4\xB8\xAD\xF0\x9F\x98\x80z");  // a é 中 😀 z
  REQUIRE(cps(chars) == U"a\u00E9\u4E2D\U0001F600z");
  const std::vector<std::pair<int, int>> spans = {{0, 1}, {1, 2}, {2, 3}, {3, 5}, {5, 6}};
  for (size_t i = 0; i < spans.size(); ++i) {
    CHECK(chars[i].start == spans[i].first);
    CHECK(chars[i].end == spans[i].second);
  }
}

TEST_CASE("utf8: maximal invalid subparts become one U+FFFD each", "[tokenizer][utf8]") {
  // The Unicode Standard's example: 61 F1 80 80 E1 80 C2 62 80 63 80 BF 64.
  CHECK(cps(decode_utf8("\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64")) ==
        U"a\uFFFD\uFFFD\uFFFDb\uFFFDc\uFFFD\uFFFDd");
  CHECK(cps(decode_utf8("\xC0\x80")) == U"\uFFFD\uFFFD");               // overlong NUL
  CHECK(cps(decode_utf8("\xED\xA0\x80")) == U"\uFFFD\uFFFD\uFFFD");     // encoded surrogate
  CHECK(cps(decode_utf8("\xF4\x90\x80\x80")) == U"\uFFFD\uFFFD\uFFFD\uFFFD");  // > U+10FFFF
  CHECK(cps(decode_utf8("ab\xE2\x82")) == U"ab\uFFFD");                  // truncated at the end
  CHECK(cps(decode_utf8("\xF0\x9F\x98")) == U"\uFFFD");
  CHECK(cps(decode_utf8("\xFF\xFE")) == U"\uFFFD\uFFFD");
}

TEST_CASE("utf8: spans of replaced bytes are one unit each and stay contiguous", "[tokenizer][utf8]") {
  const auto chars = decode_utf8("\x80x\xF0\x9F\x98\x80\xC3");
  REQUIRE(chars.size() == 4);
  int expect = 0;
  for (const auto& c : chars) {
    CHECK(c.start == expect);
    expect = c.end;
  }
  CHECK(expect == 5);  // FFFD(1) x(1) 😀(2) FFFD(1)
}

TEST_CASE("utf8: append_utf8 round-trips every code point width", "[tokenizer][utf8]") {
  std::string s;
  for (char32_t cp : {U'\u0024', U'\u00A3', U'\u20AC', U'\U00010348'}) append_utf8(s, cp);
  CHECK(s == "\x24\xC2\xA3\xE2\x82\xAC\xF0\x90\x8D\x88");
  CHECK(cps(decode_utf8(s)) == U"\u0024\u00A3\u20AC\U00010348");
}
