// Lookups over the generated Unicode tables (unicode_tables.cpp): binary searches over runs and
// sorted maps, plus the algorithmic Hangul syllable decomposition (Unicode §3.12). Each packed
// table is unpacked into a plain array on first use, by the lookup that needs it alone, so a
// build that never reaches a lookup (the encoder wasm never composes) leaves its table out.
#include <algorithm>
#include <array>
#include <utility>
#include <vector>

#include "tokenizer/unicode_tables.h"

namespace attnscope::tok {
namespace {

// The rows of a packed table: each column stored as the difference from the row before,
// zigzag-coded, in LEB128 bytes (tools/unicode/gen_unicode_tables.mjs writes them).
template <size_t Columns>
std::vector<std::array<uint32_t, Columns>> unpack(const uint8_t* bytes, size_t rows) {
  std::vector<std::array<uint32_t, Columns>> out(rows);
  std::array<uint32_t, Columns> previous{};
  for (auto& row : out) {
    for (size_t c = 0; c < Columns; ++c) {
      uint32_t zigzag = 0;
      for (int shift = 0;; shift += 7) {
        const uint8_t byte = *bytes++;
        zigzag |= static_cast<uint32_t>(byte & 0x7F) << shift;
        if (!(byte & 0x80)) break;
      }
      previous[c] += (zigzag >> 1) ^ (0u - (zigzag & 1));  // wraps as the signed difference
      row[c] = previous[c];
    }
  }
  return out;
}

// A {first code point, value} run table as (first << 8 | value), searched by run_value.
std::vector<uint32_t> runs(const uint8_t* packed, size_t count) {
  std::vector<uint32_t> out;
  out.reserve(count);
  for (const auto& [first, value] : unpack<2>(packed, count)) out.push_back(first << 8 | value);
  return out;
}

// Value of the run containing cp.
uint8_t run_value(const std::vector<uint32_t>& runs, char32_t cp) {
  const uint32_t key = (static_cast<uint32_t>(cp) << 8) | 0xFF;
  const auto it = std::upper_bound(runs.begin(), runs.end(), key);
  return static_cast<uint8_t>(*(it - 1) & 0xFF);  // runs[0] starts at U+0000, so it > begin
}

const std::vector<uint32_t>& category_runs() {
  static const auto table = runs(unicode_data::kCategoryRunsPacked, unicode_data::kCategoryRunsCount);
  return table;
}

// {code point, length, kMaxDecomposition code points}, sorted by code point.
using DecompositionRow = std::array<uint32_t, 2 + kMaxDecomposition>;
const std::vector<DecompositionRow>& decompositions() {
  static const auto table = unpack<2 + kMaxDecomposition>(unicode_data::kDecompositionsPacked, unicode_data::kDecompositionsCount);
  return table;
}

constexpr char32_t kHangulBase = 0xAC00, kHangulCount = 11172;
constexpr char32_t kJamoL = 0x1100, kJamoV = 0x1161, kJamoT = 0x11A7;
constexpr char32_t kJamoVCount = 21, kJamoTCount = 28;

}  // namespace

Category general_category(char32_t cp) {
  // Most text is ASCII: answer it from a table built once instead of a binary search.
  static const auto ascii = [] {
    std::array<Category, 128> t{};
    for (char32_t c = 0; c < 128; ++c) t[c] = static_cast<Category>(run_value(category_runs(), c));
    return t;
  }();
  if (cp < 128) return ascii[cp];
  if (cp > 0x10FFFF) return Category::Cn;
  return static_cast<Category>(run_value(category_runs(), cp));
}

uint8_t canonical_combining_class(char32_t cp) {
  if (cp < 0x300 || cp > 0x10FFFF) return 0;  // U+0300 is the first non-starter
  static const auto table = runs(unicode_data::kCombiningClassRunsPacked, unicode_data::kCombiningClassRunsCount);
  return run_value(table, cp);
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
  const auto& table = decompositions();
  const auto it = std::lower_bound(table.begin(), table.end(), static_cast<uint32_t>(cp),
                                   [](const DecompositionRow& row, uint32_t c) { return row[0] < c; });
  if (it == table.end() || (*it)[0] != cp) {
    out[0] = cp;
    return 1;
  }
  const uint32_t length = (*it)[1];
  for (uint32_t i = 0; i < length; ++i) out[i] = (*it)[2 + i];
  return static_cast<int>(length);
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
  static const auto simple = unpack<2>(unicode_data::kLowercaseSimplePacked, unicode_data::kLowercaseSimpleCount);
  const auto it = std::lower_bound(simple.begin(), simple.end(), static_cast<uint32_t>(cp),
                                   [](const auto& e, uint32_t c) { return e[0] < c; });
  out[0] = (it != simple.end() && (*it)[0] == cp) ? static_cast<char32_t>((*it)[1]) : cp;
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
  static const auto compositions = unpack<3>(unicode_data::kCompositionsPacked, unicode_data::kCompositionsCount);
  const auto it = std::lower_bound(compositions.begin(), compositions.end(), std::pair<uint32_t, uint32_t>{first, second},
                                   [](const auto& e, const std::pair<uint32_t, uint32_t>& key) {
                                     return e[0] != key.first ? e[0] < key.first : e[1] < key.second;
                                   });
  return it != compositions.end() && (*it)[0] == first && (*it)[1] == second ? static_cast<char32_t>((*it)[2]) : 0;
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
