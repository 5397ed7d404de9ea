// BertNormalizer stage: clean text, CJK padding, accent stripping (NFD + drop Mn, which turns
// Hangul into jamo), lowercasing, the strip_accents default, and the source span every output
// character keeps.
#include <catch2/catch.hpp>

#include "tokenizer/normalizer.h"

using namespace attnscope::tok;

namespace {
std::string utf8(const std::vector<SpannedChar>& chars) {
  std::string s;
  for (const auto& c : chars) append_utf8(s, c.cp);
  return s;
}
std::string norm(const std::string& text, NormalizerOptions o) { return utf8(normalize_bert(decode_utf8(text), o)); }
const NormalizerOptions kUncased{true, true, true, true};
const NormalizerOptions kCased{true, true, false, false};
}  // namespace

TEST_CASE("normalizer: clean_text drops controls NUL U+FFFD and maps whitespace to space", "[tokenizer][normalizer]") {
  CHECK(norm("a\tb\nc\rd", kCased) == "a b c d");
  CHECK(norm(std::string("x\0y", 3), kCased) == "xy");
  CHECK(norm("x\xEF\xBF\xBDy", kCased) == "xy");                   // U+FFFD
  CHECK(norm("x\xE2\x80\x8By", kCased) == "xy");                   // ZWSP is Cf
  CHECK(norm("x\xC2\xA0y\xE3\x80\x80z", kCased) == "x y z");       // NBSP, ideographic space
  CHECK(norm("x\x07\x1B\x7Fy", kCased) == "xy");                   // Cc
  CHECK(norm("x\xC2\x85y", kCased) == "xy");                       // NEL is Cc: dropped, not a space
  CHECK(norm("x\xEE\x80\x80y", kCased) == "xy");                   // private use U+E000
  CHECK(norm("x\xCD\xB8y", kCased) == "x\xCD\xB8y");               // unassigned U+0378 is kept (Rust)
  NormalizerOptions raw = kCased;
  raw.clean_text = false;
  CHECK(norm("a\tb\xE2\x80\x8B", raw) == "a\tb\xE2\x80\x8B");
}

TEST_CASE("normalizer: CJK ideographs are padded with spaces kana and Hangul are not", "[tokenizer][normalizer]") {
  CHECK(norm("\xE4\xB8\xAD\xE6\x96\x87", kCased) == " \xE4\xB8\xAD  \xE6\x96\x87 ");  // 中文
  CHECK(norm("\xF0\xA0\x80\x80", kCased) == " \xF0\xA0\x80\x80 ");                    // U+20000
  // tokenizers' Extension E range starts at U+2B920 (Google BERT's at U+2B820).
  CHECK(norm("\xF0\xAB\xA0\xA0", kCased) == "\xF0\xAB\xA0\xA0");                      // U+2B820
  CHECK(norm("\xF0\xAB\xA4\xA0", kCased) == " \xF0\xAB\xA4\xA0 ");                    // U+2B920
  CHECK(norm("\xE3\x81\x82\xED\x95\x9C", kCased) == "\xE3\x81\x82\xED\x95\x9C");      // あ한
  NormalizerOptions no_cjk = kCased;
  no_cjk.handle_chinese_chars = false;
  CHECK(norm("\xE4\xB8\xAD\xE6\x96\x87", no_cjk) == "\xE4\xB8\xAD\xE6\x96\x87");
}

TEST_CASE("normalizer: uncased strips accents and lowercases and cased keeps both", "[tokenizer][normalizer]") {
  CHECK(norm("Caf\xC3\xA9 NA\xC3\x8FVE", kUncased) == "cafe naive");
  CHECK(norm("Caf\xC3\xA9 NA\xC3\x8FVE", kCased) == "Caf\xC3\xA9 NA\xC3\x8FVE");
  CHECK(norm("cafe\xCC\x81", kUncased) == "cafe");                        // decomposed input
  CHECK(norm("\xC4\xB0stanbul", kUncased) == "istanbul");                 // İ
  CHECK(norm("\xCE\x9F\xCE\x94\xCE\x9F\xCE\xA3", kUncased) == "\xCE\xBF\xCE\xB4\xCE\xBF\xCF\x83");  // ΟΔΟΣ → οδοσ
  CHECK(norm("Stra\xC3\x9F" "e", kUncased) == "stra\xC3\x9F" "e");       // ß stays
}

TEST_CASE("normalizer: strip_accents unset follows lowercase set explicitly it is independent", "[tokenizer][normalizer]") {
  NormalizerOptions lower_keep{true, true, false, true};
  CHECK(norm("\xC3\x89t\xC3\xA9", lower_keep) == "\xC3\xA9t\xC3\xA9");                     // Été → été
  CHECK(norm("\xC4\xB0", lower_keep) == "i\xCC\x87");                                      // İ → i + U+0307
  NormalizerOptions cased_strip{true, true, true, false};
  CHECK(norm("\xC3\x89t\xC3\xA9", cased_strip) == "Ete");
}

TEST_CASE("normalizer: Hangul syllables become conjoining jamo when accents are stripped", "[tokenizer][normalizer]") {
  CHECK(norm("\xED\x95\x9C", kUncased) == "\xE1\x84\x92\xE1\x85\xA1\xE1\x86\xAB");  // 한 → ᄒ ᅡ ᆫ
  CHECK(norm("\xED\x95\x9C", kCased) == "\xED\x95\x9C");
}

TEST_CASE("normalizer: every output character keeps its source character's span", "[tokenizer][normalizer]") {
  // "a한É" : a [0,1) 한 [1,2) É [2,3)
  const auto out = normalize_bert(decode_utf8("a\xED\x95\x9C\xC3\x89"), kUncased);
  REQUIRE(out.size() == 5);  // a ᄒ ᅡ ᆫ e
  CHECK(out[0].start == 0); CHECK(out[0].end == 1);
  for (int i = 1; i <= 3; ++i) { CHECK(out[i].start == 1); CHECK(out[i].end == 2); }
  CHECK(out[4].cp == U'e'); CHECK(out[4].start == 2); CHECK(out[4].end == 3);
  // Astral CJK: padding spaces and the ideograph all map to its two UTF-16 units.
  const auto cjk = normalize_bert(decode_utf8("x\xF0\xA0\x80\x80"), kCased);
  REQUIRE(cjk.size() == 4);
  for (int i = 1; i <= 3; ++i) { CHECK(cjk[i].start == 1); CHECK(cjk[i].end == 3); }
}

TEST_CASE("normalizer: NFD orders combining marks by class", "[tokenizer][normalizer]") {
  CHECK(norm("a\xCC\x81\xCC\xA3", kUncased) == "a");  // both Mn marks go, whatever their order
  // U+1D16D (Mc, class 226) before U+1D165 (Mc, class 216): NFD swaps them, and as spacing marks
  // they survive accent stripping, each still carrying its own source span.
  const auto out = normalize_bert(decode_utf8("x\xF0\x9D\x85\xAD\xF0\x9D\x85\xA5"),
                                  NormalizerOptions{true, true, true, false});
  REQUIRE(out.size() == 3);
  CHECK(out[1].cp == 0x1D165); CHECK(out[1].start == 3); CHECK(out[1].end == 5);
  CHECK(out[2].cp == 0x1D16D); CHECK(out[2].start == 1); CHECK(out[2].end == 3);
  // U+034F COMBINING GRAPHEME JOINER (Mn, class 0) between them blocks the reordering, even
  // though it is itself dropped afterwards.
  const auto blocked = normalize_bert(decode_utf8("x\xF0\x9D\x85\xAD\xCD\x8F\xF0\x9D\x85\xA5"),
                                      NormalizerOptions{true, true, true, false});
  REQUIRE(blocked.size() == 3);
  CHECK(blocked[1].cp == 0x1D16D);
  CHECK(blocked[2].cp == 0x1D165);
}
