// The Unicode properties the tokenizer stages consult, looked up in tables generated from the
// Unicode Character Database by tools/unicode/gen_unicode_tables.mjs (no ICU). Only what the
// normalizers and pre-tokenizers need; not a general Unicode library.
#pragma once
#include <cstddef>
#include <cstdint>

namespace attnscope::tok {

// General_Category values, in the generator's order.
enum class Category : uint8_t {
  Lu, Ll, Lt, Lm, Lo, Mn, Mc, Me, Nd, Nl, No, Pc, Pd, Ps, Pe, Pi, Pf, Po,
  Sm, Sc, Sk, So, Zs, Zl, Zp, Cc, Cf, Cs, Co, Cn
};

constexpr int kMaxDecomposition = 4;  // longest full canonical decomposition (Hangul LVT is 3)
constexpr int kMaxLowercase = 3;

Category general_category(char32_t cp);
uint8_t canonical_combining_class(char32_t cp);
// Writes the full canonical decomposition of cp (itself when it has none) and returns its length.
// Hangul syllables decompose algorithmically into conjoining jamo (L V [T]).
int canonical_decomposition(char32_t cp, char32_t out[kMaxDecomposition]);
// Writes cp's lowercase (Rust char::to_lowercase: simple mapping + unconditional SpecialCasing,
// so U+0130 → U+0069 U+0307) and returns its length.
int to_lowercase(char32_t cp, char32_t out[kMaxLowercase]);
// The primary composite of a starter and the character after it (NFC), 0 when there is none.
// Hangul syllables compose algorithmically.
char32_t primary_composite(char32_t first, char32_t second);
bool is_white_space(char32_t cp);  // the White_Space property (Rust char::is_whitespace)
const char* unicode_version();     // of the tables, e.g. "15.0.0"

namespace unicode_data {  // the generated tables (unicode_tables.cpp; *Packed: see there)
extern const char kUnicodeVersion[];
extern const uint8_t kCategoryRunsPacked[];
extern const size_t kCategoryRunsCount;
extern const uint8_t kCombiningClassRunsPacked[];
extern const size_t kCombiningClassRunsCount;
extern const uint8_t kDecompositionsPacked[];
extern const size_t kDecompositionsCount;
extern const uint8_t kLowercaseSimplePacked[];
extern const size_t kLowercaseSimpleCount;
extern const uint32_t kLowercaseMulti[][5];
extern const size_t kLowercaseMultiCount;
extern const uint8_t kCompositionsPacked[];
extern const size_t kCompositionsCount;
extern const uint32_t kWhiteSpace[][2];
extern const size_t kWhiteSpaceCount;
}  // namespace unicode_data

}  // namespace attnscope::tok
