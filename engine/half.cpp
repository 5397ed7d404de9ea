// f16 ↔ f32 by bit manipulation (no hardware f16 in wasm32 or baseline x86-64). Widening many
// values, what f16 weights need on every use (GEMM panels, embedding rows, the tied MLM
// decoder), runs eight at a time in SIMD128 on wasm.
#include "half.h"

#include <cstring>

#ifdef __wasm_simd128__
#include <wasm_simd128.h>

#include "kernels/math_f32x4_wasmsimd.h"
#endif

namespace attnscope {

float f16_to_f32(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13);  // inf / NaN
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (mant << 13);  // rebias 15 → 127
  } else if (mant == 0) {
    bits = sign;  // ±0
  } else {
    // Subnormal: shift the mantissa up until its leading 1 becomes the implicit bit.
    exp = 113;
    while ((mant & 0x400u) == 0) {
      mant <<= 1;
      --exp;
    }
    bits = sign | (exp << 23) | ((mant & 0x3ffu) << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t f32_to_f16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t abs = bits & 0x7fffffffu;
  if (abs > 0x7f800000u) return sign | 0x7e00u | static_cast<uint16_t>((abs >> 13) & 0x3ffu);  // NaN, quiet
  if (abs >= 0x477ff000u) return sign | 0x7c00u;  // ≥ 65520 (max half + half an ulp) or inf: inf
  if (abs < 0x38800000u) {
    // Below the smallest normal half (2^-14): a subnormal half counts units of 2^-24. Adding
    // 0.5 (2^-1) as a float aligns the mantissa so that the FPU's own round-to-nearest-even
    // does the rounding; the low bits of the sum are then the half's bits.
    float a;
    std::memcpy(&a, &abs, 4);
    a += 0.5f;
    uint32_t r;
    std::memcpy(&r, &a, 4);
    return sign | static_cast<uint16_t>(r - 0x3f000000u);
  }
  // Normal: rebias the exponent (127 → 15) and round the 13 dropped mantissa bits to nearest,
  // ties to even; a carry out of the mantissa correctly bumps the exponent.
  const uint32_t odd = (abs >> 13) & 1u;
  const uint32_t rounded = abs + 0xfffu + odd - (112u << 23);
  return sign | static_cast<uint16_t>(rounded >> 13);
}

void f32_to_f16(uint16_t* out, const float* in, size_t n) {
  for (size_t i = 0; i < n; ++i) out[i] = f32_to_f16(in[i]);
}

void f16_to_f32(float* out, const uint16_t* in, size_t n) {
  size_t i = 0;
#ifdef __wasm_simd128__
  using kernels::simd::f16x4_to_f32x4;
  for (; i + 8 <= n; i += 8) {
    const v128_t h = wasm_v128_load(in + i);
    wasm_v128_store(out + i, f16x4_to_f32x4(wasm_u32x4_extend_low_u16x8(h)));
    wasm_v128_store(out + i + 4, f16x4_to_f32x4(wasm_u32x4_extend_high_u16x8(h)));
  }
#endif
  for (; i < n; ++i) out[i] = f16_to_f32(in[i]);
}

}  // namespace attnscope
