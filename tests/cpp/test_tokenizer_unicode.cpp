// The generated Unicode tables, checked against facts from the Unicode Standard (categories,
// decompositions, case mappings of well-known characters).
#include <catch2/catch.hpp>

#include <string>

#include "tokenizer/unicode_tables.h"

using namespace attnscope::tok;

namespace {
std::u32string decompose(char32_t cp) {
  char32_t out[kMaxDecomposition];
  return std::u32string(out, static_cast<size_t>(canonical_decomposition(cp, out)));
}
std::u32string lower(char32_t cp) {
  char32_t out[kMaxLowercase];
  return std::u32string(out, static_cast<size_t>(to_lowercase(cp, out)));
}
}  // namespace

TEST_CASE("unicode: general categories", "[tokenizer][unicode]") {
  CHECK(general_category(U'A') == Category::Lu);
  CHECK(general_category(U'z') == Category::Ll);
  CHECK(general_category(0x0301) == Category::Mn);
  CHECK(general_category(0x0903) == Category::Mc);
  CHECK(general_category(0x00A0) == Category::Zs);
  CHECK(general_category(0x4E00) == Category::Lo);   // inside a <CJK Ideograph, First/Last> range
  CHECK(general_category(0x9FA5) == Category::Lo);
  CHECK(general_category(0xAC00) == Category::Lo);   // Hangul syllable range
  CHECK(general_category(0x0378) == Category::Cn);   // unassigned
  CHECK(general_category(0xE000) == Category::Co);
  CHECK(general_category(0xD800) == Category::Cs);
  CHECK(general_category(0x200B) == Category::Cf);
  CHECK(general_category(0x0007) == Category::Cc);
  CHECK(general_category(0x00BF) == Category::Po);   // ¿
  CHECK(general_category(0x20AC) == Category::Sc);   // €
  CHECK(general_category(0x1F600) == Category::So);  // 😀
  CHECK(general_category(0x10FFFF) == Category::Cn);
  CHECK(general_category(0x110000) == Category::Cn);  // beyond Unicode: no table overrun
}

TEST_CASE("unicode: full canonical decompositions", "[tokenizer][unicode]") {
  CHECK(decompose(0x00E9) == U"e\u0301");               // é
  CHECK(decompose(0x1E69) == U"s\u0323\u0307");         // ṩ: recursive (1E63 + 0307)
  CHECK(decompose(0x212B) == U"A\u030A");               // Å sign → Å → A + ring
  CHECK(decompose(0x0130) == U"I\u0307");               // İ
  CHECK(decompose(0xD55C) == U"\u1112\u1161\u11AB");   // 한: L V T
  CHECK(decompose(0xAC00) == U"\u1100\u1161");          // 가: L V
  CHECK(decompose(0xD7A3) == U"\u1112\u1175\u11C2");   // last syllable 힣
  CHECK(decompose(0xF900) == U"\u8C48");                // CJK compatibility ideograph
  CHECK(decompose(U'a') == U"a");
  CHECK(decompose(0x00DF) == U"\u00DF");                // ß has no canonical decomposition
  CHECK(decompose(0xFB01) == U"\uFB01");                // ﬁ: compatibility only, not NFD
}

TEST_CASE("unicode: combining classes", "[tokenizer][unicode]") {
  CHECK(canonical_combining_class(U'a') == 0);
  CHECK(canonical_combining_class(0x0301) == 230);
  CHECK(canonical_combining_class(0x0323) == 220);
  CHECK(canonical_combining_class(0x0345) == 240);
}

TEST_CASE("unicode: lowercase like Rust char::to_lowercase", "[tokenizer][unicode]") {
  CHECK(lower(U'A') == U"a");
  CHECK(lower(0x0130) == U"i\u0307");   // İ → i̇ (SpecialCasing, unconditional)
  CHECK(lower(U'I') == U"i");           // no Turkish tailoring
  CHECK(lower(0x03A3) == U"\u03C3");    // Σ → σ, never final ς
  CHECK(lower(0x2126) == U"\u03C9");    // Ω ohm sign
  CHECK(lower(0x212A) == U"k");         // Kelvin sign
  CHECK(lower(0x1E9E) == U"\u00DF");    // ẞ → ß
  CHECK(lower(0x01C5) == U"\u01C6");    // ǅ titlecase → ǆ
  CHECK(lower(0xFF21) == U"\uFF41");    // fullwidth Ａ
  CHECK(lower(0x10400) == U"\U00010428");  // Deseret
  CHECK(lower(U'\u00DF') == U"\u00DF");
}

TEST_CASE("unicode: White_Space", "[tokenizer][unicode]") {
  for (char32_t cp : {0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0x85, 0xA0, 0x1680, 0x2000, 0x200A,
                      0x2028, 0x2029, 0x202F, 0x205F, 0x3000}) {
    CHECK(is_white_space(cp));
  }
  for (char32_t cp : {0x200B, 0xFEFF, 0x180E, 0x61, 0x00AD}) CHECK_FALSE(is_white_space(cp));
  CHECK(std::string(unicode_version()) == "15.0.0");
}
