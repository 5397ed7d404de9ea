// The generated Unicode tables against an independent implementation: ICU's answers (from
// Node.js, tests/fixtures/tokenizer/unicode_icu_reference.txt written by make_unicode_reference.mjs)
// for every code point Unicode 15.0 assigns — general category, NFD and lowercase.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include "tokenizer/unicode_tables.h"

using namespace attnscope::tok;

namespace {
const char* kNames[] = {"Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "No", "Pc", "Pd", "Ps", "Pe",
                        "Pi", "Pf", "Po", "Sm", "Sc", "Sk", "So", "Zs", "Zl", "Zp", "Cc", "Cf", "Cs", "Co", "Cn"};

// Code points whose general category Unicode changed after 15.0 (our tables' version), so ICU on
// a newer Unicode legitimately disagrees: Unicode 16.0 made U+0295 ʕ Lo (was Ll) and U+1171E
// AHOM CONSONANT SIGN MEDIAL RA Mc (was Mn).
bool changed_after_15(char32_t cp) { return cp == 0x0295 || cp == 0x1171E; }

std::u32string read_cps(std::istringstream& in) {
  std::u32string out;
  std::string h;
  while (in >> h) out += static_cast<char32_t>(std::stoul(h, nullptr, 16));
  return out;
}
}  // namespace

TEST_CASE("unicode tables agree with ICU on every Unicode 15.0 code point", "[tokenizer][unicode]") {
  std::ifstream file(std::string(ATTNSCOPE_FIXTURES_DIR) + "/tokenizer/unicode_icu_reference.txt");
  REQUIRE(file);
  size_t categories = 0, decompositions = 0, lowercases = 0, mismatches = 0;
  std::string line;
  while (std::getline(file, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream in(line.substr(2));
    std::string first;
    in >> first;
    const auto cp = static_cast<char32_t>(std::stoul(first, nullptr, 16));
    if (line[0] == 'G') {
      std::string last, name;
      in >> last >> name;
      for (char32_t c = cp; c <= static_cast<char32_t>(std::stoul(last, nullptr, 16)); ++c, ++categories) {
        const char* ours = kNames[static_cast<int>(general_category(c))];
        if (name != ours && !changed_after_15(c)) {
          ++mismatches;
          WARN("U+" << std::hex << static_cast<uint32_t>(c) << " ICU " << name << " ours " << ours);
        }
      }
    } else if (line[0] == 'D') {
      ++decompositions;
      // ICU gives the canonically ordered NFD; ours is per character, so compare single chars.
      const std::u32string want = read_cps(in);
      char32_t out[kMaxDecomposition];
      const std::u32string got(out, static_cast<size_t>(canonical_decomposition(cp, out)));
      if (got != want) { ++mismatches; WARN("NFD U+" << std::hex << static_cast<uint32_t>(cp)); }
    } else if (line[0] == 'L') {
      ++lowercases;
      const std::u32string want = read_cps(in);
      char32_t out[kMaxLowercase];
      const std::u32string got(out, static_cast<size_t>(to_lowercase(cp, out)));
      if (got != want) { ++mismatches; WARN("lower U+" << std::hex << static_cast<uint32_t>(cp)); }
    }
  }
  INFO(categories << " categories, " << decompositions << " decompositions, " << lowercases << " lowercases");
  CHECK(categories > 100000);
  CHECK(decompositions > 2000);
  CHECK(lowercases > 1400);
  CHECK(mismatches == 0);
}
