// f16 ↔ f32 conversion against the CPU's own F16C instructions (vcvtps2ph / vcvtph2ps, IEEE
// round-to-nearest-even) as the independent reference: every one of the 65,536 halves widened,
// and every f32 exponent with random and tie-making mantissas narrowed.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "half.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#define ATTNSCOPE_HAVE_F16C_REFERENCE 1
static bool cpu_has_f16c() {  // CPUID leaf 1, ECX bit 29
  unsigned a, b, c, d;
  return __get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 29));
}
__attribute__((target("f16c"))) static uint16_t f16c_narrow(float f) {
  return static_cast<uint16_t>(_cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT));
}
__attribute__((target("f16c"))) static float f16c_widen(uint16_t h) { return _cvtsh_ss(h); }
#endif

using attnscope::f16_to_f32;
using attnscope::f32_to_f16;

namespace {
uint32_t bits_of(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
float float_of(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
}  // namespace

TEST_CASE("f16: every half survives the round trip, NaN stays NaN", "[half]") {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float f = f16_to_f32(static_cast<uint16_t>(h));
    if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff)) {
      CHECK(std::isnan(f));
      CHECK((f32_to_f16(f) & 0x7c00) == 0x7c00);
      CHECK((f32_to_f16(f) & 0x3ff) != 0);
    } else if (f32_to_f16(f) != h) {
      FAIL("half 0x" << std::hex << h << " → " << f << " → 0x" << f32_to_f16(f));
    }
  }
  CHECK(f16_to_f32(0x3c00) == 1.0f);
  CHECK(f16_to_f32(0x7bff) == 65504.0f);
  CHECK(f16_to_f32(0x0001) == std::ldexp(1.0f, -24));
  CHECK(f32_to_f16(65520.0f) == 0x7c00);         // the tie between 65504 and 65536 rounds up: inf
  CHECK(f32_to_f16(std::ldexp(1.0f, -25)) == 0);  // the tie between 0 and the smallest subnormal
}

#ifdef ATTNSCOPE_HAVE_F16C_REFERENCE
TEST_CASE("f16: matches the F16C instructions", "[half]") {
  if (!cpu_has_f16c()) {
    WARN("this CPU has no F16C: reference comparison skipped");
    return;
  }
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float mine = f16_to_f32(static_cast<uint16_t>(h)), ref = f16c_widen(static_cast<uint16_t>(h));
    if (std::isnan(ref)) {
      CHECK(std::isnan(mine));
    } else if (bits_of(mine) != bits_of(ref)) {
      FAIL("widen 0x" << std::hex << h);
    }
  }
  std::mt19937 rng(20261130);
  size_t checked = 0;
  for (uint32_t sign = 0; sign < 2; ++sign) {
    for (uint32_t exp = 0; exp < 256; ++exp) {
      // Random mantissas, plus the ones that sit exactly on, just below and just above a tie
      // for every shift a subnormal or normal half can need.
      std::vector<uint32_t> mantissas = {0, 1, 0x7fffff, 0x1000, 0x0fff, 0x1001, 0x3000, 0x2000};
      for (int s = 0; s < 24; ++s) {
        const uint32_t tie = 1u << s;
        for (uint32_t m : {tie, tie - 1, tie + 1, tie * 3, (tie * 3) & 0x7fffff})
          mantissas.push_back(m & 0x7fffff);
      }
      for (int i = 0; i < 200; ++i) mantissas.push_back(rng() & 0x7fffff);
      for (uint32_t m : mantissas) {
        const float f = float_of(sign << 31 | exp << 23 | m);
        const uint16_t mine = f32_to_f16(f), ref = f16c_narrow(f);
        ++checked;
        if (std::isnan(f)) {
          CHECK(std::isnan(f16_to_f32(mine)));
        } else if (mine != ref) {
          FAIL("narrow " << f << " (0x" << std::hex << bits_of(f) << "): mine 0x" << mine << ", F16C 0x" << ref);
        }
      }
    }
  }
  CHECK(checked > 100000);
}
#endif
