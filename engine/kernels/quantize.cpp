// Quantization for the q8 linear layers. Every step is an IEEE f32 operation or an exact integer
// one, and rounding is ties-to-even (std::nearbyint in the default mode, f32x4.nearest), so the
// SIMD128 loops below give the scalar loops' bytes exactly; tests/js/kernels-q8.test.js checks the
// wasm build against an independent JavaScript model of the same formulas.
#include "quantize.h"

#include <algorithm>
#include <cmath>

#ifdef __wasm_simd128__
#include <wasm_simd128.h>
#endif

namespace attnscope::kernels {

namespace {

// round_half_even(v) as an int, NaN as 0 (f32x4 trunc_sat's answer), far values clamped.
inline int32_t round_to_int(float v) {
  v = std::nearbyint(v);
  if (!(v == v)) return 0;
  return static_cast<int32_t>(std::min(std::max(v, -1048576.0f), 1048576.0f));
}

inline uint8_t quantize_one(float x, const RowQuant& p, int qmax) {
  return static_cast<uint8_t>(std::min(std::max(round_to_int(x * p.inv) + p.zero, 0), qmax));
}

}  // namespace

RowQuant row_quant_params(float lo, float hi, int qmax) {
  RowQuant p;
  lo = std::min(lo, 0.0f);
  hi = std::max(hi, 0.0f);
  const float range = hi - lo;
  if (!(range > 0.0f)) return p;  // all zeros (or NaN): scale 1, zero 0
  p.scale = range / static_cast<float>(qmax);
  p.inv = 1.0f / p.scale;
  p.zero = std::min(std::max(round_to_int(-lo * p.inv), 0), qmax);
  return p;
}

RowQuant quantize_row_u8(uint8_t* q, const float* x, int K, int qmax) {
  float lo = 0.0f, hi = 0.0f;
  int k = 0;
#ifdef __wasm_simd128__
  v128_t vlo = wasm_f32x4_splat(0.0f), vhi = vlo;
  for (; k + 4 <= K; k += 4) {
    const v128_t v = wasm_v128_load(x + k);
    vlo = wasm_f32x4_pmin(vlo, v);  // v < lo ? v : lo, as std::min(lo, v) below
    vhi = wasm_f32x4_pmax(vhi, v);  // hi < v ? v : hi, as std::max(hi, v)
  }
  for (int i = 0; i < 4; ++i) {
    lo = std::min(lo, wasm_f32x4_extract_lane(vlo, 0));
    hi = std::max(hi, wasm_f32x4_extract_lane(vhi, 0));
    vlo = wasm_i32x4_shuffle(vlo, vlo, 1, 2, 3, 0);
    vhi = wasm_i32x4_shuffle(vhi, vhi, 1, 2, 3, 0);
  }
#endif
  for (int j = k; j < K; ++j) {
    lo = std::min(lo, x[j]);
    hi = std::max(hi, x[j]);
  }
  const RowQuant p = row_quant_params(lo, hi, qmax);
  k = 0;
#ifdef __wasm_simd128__
  // round_half_even(x · inv) + zero without f32x4.nearest and i32x4.trunc_sat (which V8 lowers to
  // long fix-up sequences on x64): adding 1.5 · 2^23 rounds |v| < 2^22 to an integer in the low
  // mantissa bits, ties to even as every f32 addition; the bits minus those of 1.5 · 2^23 are the
  // integer. |x · inv| ≤ qmax (+ rounding) here, far inside; NaN rows are not supported.
  const v128_t inv = wasm_f32x4_splat(p.inv), magic = wasm_f32x4_splat(12582912.0f);
  const v128_t offset = wasm_i32x4_splat(0x4B400000 - p.zero);  // the magic's bits, less the zero point
  const v128_t top = wasm_i8x16_splat(static_cast<int8_t>(qmax));
  auto four = [&](const float* at) {
    return wasm_i32x4_sub(wasm_f32x4_add(wasm_f32x4_mul(wasm_v128_load(at), inv), magic), offset);
  };
  for (; k + 16 <= K; k += 16) {
    // i32 → i16 → u8 with signed / unsigned saturation: the clamp to [0, 255] for free.
    const v128_t lo16 = wasm_i16x8_narrow_i32x4(four(x + k), four(x + k + 4));
    const v128_t hi16 = wasm_i16x8_narrow_i32x4(four(x + k + 8), four(x + k + 12));
    wasm_v128_store(q + k, wasm_u8x16_min(wasm_u8x16_narrow_i16x8(lo16, hi16), top));
  }
#endif
  for (; k < K; ++k) q[k] = quantize_one(x[k], p, qmax);
  return p;
}

void dequantize_row_u8(float* x, const uint8_t* q, int K, const RowQuant& p) {
  for (int k = 0; k < K; ++k) x[k] = p.scale * static_cast<float>(static_cast<int32_t>(q[k]) - p.zero);
}

void quantize_weight_q8(int8_t* q, float* scale, const float* w, int N, int K, size_t ldw) {
  for (int n = 0; n < N; ++n) {
    const float* row = w + static_cast<size_t>(n) * ldw;
    int8_t* out = q + static_cast<size_t>(n) * K;
    float amax = 0.0f;
    for (int k = 0; k < K; ++k) amax = std::max(amax, std::fabs(row[k]));
    const float s = amax / static_cast<float>(kQ8WeightMax);
    scale[n] = s;
    if (!(s > 0.0f)) {
      std::fill(out, out + K, int8_t{0});
      continue;
    }
    int k = 0;
#ifdef __wasm_simd128__
    const v128_t vs = wasm_f32x4_splat(s);
    auto four = [&](const float* at) {
      return wasm_i32x4_trunc_sat_f32x4(wasm_f32x4_nearest(wasm_f32x4_div(wasm_v128_load(at), vs)));
    };
    const v128_t lim = wasm_i8x16_splat(kQ8WeightMax);
    for (; k + 16 <= K; k += 16) {
      const v128_t a = wasm_i16x8_narrow_i32x4(four(row + k), four(row + k + 4));
      const v128_t b = wasm_i16x8_narrow_i32x4(four(row + k + 8), four(row + k + 12));
      const v128_t v = wasm_i8x16_narrow_i16x8(a, b);
      wasm_v128_store(out + k, wasm_i8x16_max(wasm_i8x16_min(v, lim), wasm_i8x16_neg(lim)));
    }
#endif
    for (; k < K; ++k)
      out[k] = static_cast<int8_t>(std::min(std::max(round_to_int(row[k] / s), -kQ8WeightMax), kQ8WeightMax));
  }
}

}  // namespace attnscope::kernels
