// f16 weights widened by shift and mask alone, for the one-row kernels (dot_rows' vocabulary
// head, the f16 GEMV over packed panels) that are bound by instructions, not memory.
//
// A half's bits shifted into f32 position are the f32 bits of the weight × 2^-112, exactly, for
// normals and subnormals alike: the general conversion (simd::f16x4_to_f32x4) multiplies by 2^112
// per weight to rebias the exponent, this leaves the factor to x (x × 2^112 once per input value,
// scaled_for_f16). Each product x·2^112 × w·2^-112 is then x·w rounded once, the same bits as
// from the widened weight, and a fused multiply-add rounds x·w + acc once as before.
// Infinities and NaN would come out finite: F16Magnitudes keeps the largest |half| seen, so a
// kernel tests it once after its loop and takes the weights again through the general conversion.
#pragma once
#ifdef __wasm_simd128__
#include <wasm_simd128.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace attnscope::kernels::f16_scaled {

// x × 2^112 stays finite while |x| < 2^16 (hidden states are far smaller; NaN fails the test too).
inline std::vector<float> scaled_for_f16(const float* x, size_t n) {
  std::vector<float> scaled;
  if (!std::all_of(x, x + n, [](float v) { return std::fabs(v) < 0x1p16f; })) return scaled;
  scaled.resize(n);
  for (size_t i = 0; i < n; ++i) scaled[i] = x[i] * 0x1p112f;
  return scaled;
}

// Four halves (sign-extended to i32x4) as the f32 bits of each weight × 2^-112: the shift puts
// sign, exponent and mantissa in f32 position, the mask clears the sign's copies above the 5-bit
// exponent.
inline v128_t bits_as_scaled_f32(v128_t h32) {
  return wasm_v128_and(wasm_i32x4_shl(h32, 13), wasm_i32x4_splat(static_cast<int32_t>(0x8fffe000u)));
}

// The largest |half| of every eight loaded, kept beside the sums so that no test sits in the loop.
struct F16Magnitudes {
  v128_t largest = wasm_i16x8_splat(0);
  void see(v128_t h) { largest = wasm_u16x8_max(largest, wasm_v128_and(h, wasm_i16x8_splat(0x7fff))); }
  // No infinity or NaN (exponent all ones: |half| > 0x7bff) among the halves seen.
  bool all_finite() const { return !wasm_v128_any_true(wasm_u16x8_gt(largest, wasm_i16x8_splat(0x7bff))); }
};

// Eight halves at w as two f32x4 of weight × 2^-112, their magnitudes seen.
inline void load8(const uint16_t* w, F16Magnitudes& seen, v128_t& lo, v128_t& hi) {
  const v128_t h = wasm_v128_load(w);
  seen.see(h);
  lo = bits_as_scaled_f32(wasm_i32x4_extend_low_i16x8(h));
  hi = bits_as_scaled_f32(wasm_i32x4_extend_high_i16x8(h));
}

}  // namespace attnscope::kernels::f16_scaled
#endif  // __wasm_simd128__
