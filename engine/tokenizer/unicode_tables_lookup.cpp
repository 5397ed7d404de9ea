// Lookups over the generated Unicode tables (unicode_tables.cpp): binary searches over runs and
// sorted maps, plus the algorithmic Hangul syllable decomposition (Unicode §3.12).
#include <algorithm>
#include <array>
#include <utility>

#include "tokenizer/unicode_tables.h"

namespace attnscope::tok {
namespace {

// Value of the run containing cp in a (first << 8 | value) run table.
uint8_t run_value(const uint32_t* runs, size_t count, char32_t cp) {
  const uint32_t key = (static_cast<uint32_t>(cp) << 8) | 0xFF;
  const uint32_t* it = std::upper_bound(runs, runs + count, key);
  return static_cast<uint8_t>(*(it - 1) & 0xFF);  // runs[0] starts at U+0000, so it > runs
}

constexpr char32_t kHangulBase = 0xAC00, kHangulCount = 11172;
constexpr char32_t kJamoL = 0x1100, kJamoV = 0x1161, kJamoT = 0x11A7;
constexpr char32_t kJamoVCount = 21, kJamoTCount = 28;

}  // namespace

Category general_category(char32_t cp) {
  // Most text is ASCII: answer it from a table built once instead of a binary search.
  static const auto ascii = [] {
    std::array<Category, 128> t{};
    for (char32_t c = 0; c < 128; ++c) {
      t[c] = static_cast<Category>(run_value(unicode_data::kCategoryRuns, unicode_data::kCategoryRunsCount, c));
    }
    return t;
  }();
  if (cp < 128) return ascii[cp];
  if (cp > 0x10FFFF) return Category::Cn;
  return static_cast<Category>(
      run_value(unicode_data::kCategoryRuns, unicode_data::kCategoryRunsCount, cp));
}

uint8_t canonical_combining_class(char32_t cp) {
  if (cp < 0x300 || cp > 0x10FFFF) return 0;  // U+0300 is the first non-starter
  return run_value(unicode_data::kCombiningClassRuns, unicode_data::kCombiningClassRunsCount, cp);
}

int canonical_decomposition(char32_t cp, char32_t out[kMaxDecomposition]) {
  if (cp >= kHangulBase && cp < kHangulBase + kHangulCount) {
    const char32_t s = cp - kHangulBase;
    out[0] = kJamoL + s / (kJamoVCount * kJamoTCount);
    out[1] = kJamoV + (s % (kJamoVCount * kJamoTCount)) / kJamoTCount;
    const char32_t t = s % kJamoTCount;
    if (t == 0) return 2;
    out[2] = kJamoT + t;
    return 3;
  }
  if (cp < 0xC0) {  // U+00C0 is the first character with a canonical decomposition
    out[0] = cp;
    return 1;
  }
  using unicode_data::kDecompositions;
  const auto* end = kDecompositions + unicode_data::kDecompositionsCount;
  const auto* it = std::lower_bound(kDecompositions, end, static_cast<uint32_t>(cp),
                                    [](const auto& e, uint32_t c) { return e.cp < c; });
  if (it == end || it->cp != cp) {
    out[0] = cp;
    return 1;
  }
  for (uint32_t i = 0; i < it->length; ++i) out[i] = unicode_data::kDecompositionPool[it->offset + i];
  return static_cast<int>(it->length);
}

int to_lowercase(char32_t cp, char32_t out[kMaxLowercase]) {
  if (cp < 128) {
    out[0] = (cp >= 'A' && cp <= 'Z') ? cp + 32 : cp;
    return 1;
  }
  using unicode_data::kLowercaseMulti;
  for (size_t i = 0; i < unicode_data::kLowercaseMultiCount; ++i) {
    if (kLowercaseMulti[i][0] == cp) {
      const int n = static_cast<int>(kLowercaseMulti[i][1]);
      for (int k = 0; k < n; ++k) out[k] = kLowercaseMulti[i][2 + k];
      return n;
    }
  }
  using unicode_data::kLowercaseSimple;
  const auto* end = kLowercaseSimple + unicode_data::kLowercaseSimpleCount;
  const auto* it = std::lower_bound(kLowercaseSimple, end, static_cast<uint32_t>(cp),
                                    [](const uint32_t* e, uint32_t c) { return e[0] < c; });
  out[0] = (it != end && (*it)[0] == cp) ? static_cast<char32_t>((*it)[1]) : cp;
  return 1;
}

char32_t primary_composite(char32_t first, char32_t second) {
  if (first >= kJamoL && first < kJamoL + 19 && second >= kJamoV && second < kJamoV + kJamoVCount) {
    return kHangulBase + ((first - kJamoL) * kJamoVCount + (second - kJamoV)) * kJamoTCount;
  }
  if (first >= kHangulBase && first < kHangulBase + kHangulCount && (first - kHangulBase) % kJamoTCount == 0 &&
      second > kJamoT && second < kJamoT + kJamoTCount) {
    return first + (second - kJamoT);
  }
  using unicode_data::kCompositions;
  const auto* end = kCompositions + unicode_data::kCompositionsCount;
  const auto* it = std::lower_bound(kCompositions, end, std::pair<uint32_t, uint32_t>{first, second},
                                    [](const uint32_t* e, const std::pair<uint32_t, uint32_t>& key) {
                                      return e[0] != key.first ? e[0] < key.first : e[1] < key.second;
                                    });
  return it != end && (*it)[0] == first && (*it)[1] == second ? static_cast<char32_t>((*it)[2]) : 0;
}

bool is_white_space(char32_t cp) {
  if (cp < 128) return cp == ' ' || (cp >= 0x09 && cp <= 0x0D);
  for (size_t i = 0; i < unicode_data::kWhiteSpaceCount; ++i) {
    if (cp >= unicode_data::kWhiteSpace[i][0] && cp <= unicode_data::kWhiteSpace[i][1]) return true;
  }
  return false;
}

const char* unicode_version() { return unicode_data::kUnicodeVersion; }

}  // namespace attnscope::tok
