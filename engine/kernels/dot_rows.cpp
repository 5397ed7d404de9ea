// dot_rows (dot_rows.h): a scalar loop in the fixed order everywhere, and on wasm SIMD128 four
// f32x4 accumulators per matrix row (the sixteen lanes of the order), the rows taken one after
// another in memory order. Multiply and add stay separate in the scalar loop and the SIMD128 build
// (the same order and rounding on every platform); the relaxed-SIMD build fuses them, as its GEMM
// does (the f16 head's widening leaves it bound by instructions, not by memory: one fewer a
// product).
#include "dot_rows.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "half.h"
#ifdef __wasm_simd128__
#include <wasm_simd128.h>

#include "math_f32x4_wasmsimd.h"
#endif

namespace attnscope::kernels {

namespace {

inline float widen(float w) { return w; }
inline float widen(uint16_t w) { return f16_to_f32(w); }

// Sixteen running sums, four f32x4 accumulators: one f32x4 would wait on its own add's latency
// every four products (bench/gemv.mjs, gpt2-small's 50257 × 768 f16 head on AMD EPYC Zen 5: 7 GB/s
// with one, 12 with four).
constexpr int kLanes = 16;

// x · w in the fixed order, one product and one sum per statement (no contraction to an FMA).
template <typename T>
float dot_scalar(const float* x, const T* w, int K) {
  float lane[kLanes] = {};
  const int K16 = K / kLanes * kLanes;
  for (int k = 0; k < K16; k += kLanes)
    for (int j = 0; j < kLanes; ++j) {
      const float p = x[k + j] * widen(w[k + j]);
      lane[j] += p;
    }
  float quad[4];
  for (int i = 0; i < 4; ++i) quad[i] = (lane[i] + lane[4 + i]) + (lane[8 + i] + lane[12 + i]);
  float s = (quad[0] + quad[1]) + (quad[2] + quad[3]);
  for (int k = K16; k < K; ++k) {
    const float p = x[k] * widen(w[k]);
    s += p;
  }
  return s;
}

#ifdef __wasm_simd128__
// The sixteen lanes summed as dot_scalar sums them, then the products past the last full sixteen.
template <typename T>
float finish(const v128_t acc[4], const float* x, const T* w, int k, int K) {
  const v128_t q = wasm_f32x4_add(wasm_f32x4_add(acc[0], acc[1]), wasm_f32x4_add(acc[2], acc[3]));
  float s = (wasm_f32x4_extract_lane(q, 0) + wasm_f32x4_extract_lane(q, 1)) +
            (wasm_f32x4_extract_lane(q, 2) + wasm_f32x4_extract_lane(q, 3));
  for (; k < K; ++k) {
    const float p = x[k] * widen(w[k]);
    s += p;
  }
  return s;
}

float dot_simd(const float* x, const float* w, int K) {
  v128_t acc[4];
  for (auto& a : acc) a = wasm_f32x4_splat(0.0f);
  int k = 0;
  for (; k + kLanes <= K; k += kLanes)
    for (int j = 0; j < 4; ++j)
      acc[j] = simd::multiply_add(wasm_v128_load(x + k + 4 * j), wasm_v128_load(w + k + 4 * j), acc[j]);
  return finish(acc, x, w, k, K);
}

// Four f16 weights (a sign-extended i32x4) as the f32 bits of the weight × 2^-112, exactly, when
// none is an infinity or NaN: the shift puts sign, exponent and mantissa in f32 position and the
// mask clears the sign's copies above the 5-bit exponent. Normals and subnormals alike are then off
// by the one factor 2^112, which x carries (once per input value, not per weight).
inline v128_t f16_bits_as_scaled_f32(v128_t h32) {
  return wasm_v128_and(wasm_i32x4_shl(h32, 13), wasm_i32x4_splat(static_cast<int32_t>(0x8fffe000u)));
}

// x · w for an f16 row whose weights are all finite, from x_scaled = x × 2^112 (exact: the caller
// checked it stays finite): each product x·2^112 × w·2^-112 is x·w rounded once, the same bits as
// widening w first. False when the row holds an infinity or NaN (which the shift would turn into
// finite values), seen from its largest |half| kept on the side so that no test sits in the loop.
bool dot_simd_f16_finite(const float* x, const float* x_scaled, const uint16_t* w, int K, float& out) {
  v128_t acc[4];
  for (auto& a : acc) a = wasm_f32x4_splat(0.0f);
  v128_t largest = wasm_i16x8_splat(0);
  const v128_t magnitude = wasm_i16x8_splat(0x7fff);
  int k = 0;
  for (; k + kLanes <= K; k += kLanes) {
    const v128_t h0 = wasm_v128_load(w + k), h1 = wasm_v128_load(w + k + 8);
    largest = wasm_u16x8_max(largest, wasm_u16x8_max(wasm_v128_and(h0, magnitude), wasm_v128_and(h1, magnitude)));
    const v128_t w4[4] = {f16_bits_as_scaled_f32(wasm_i32x4_extend_low_i16x8(h0)),
                          f16_bits_as_scaled_f32(wasm_i32x4_extend_high_i16x8(h0)),
                          f16_bits_as_scaled_f32(wasm_i32x4_extend_low_i16x8(h1)),
                          f16_bits_as_scaled_f32(wasm_i32x4_extend_high_i16x8(h1))};
    for (int j = 0; j < 4; ++j)
      acc[j] = simd::multiply_add(wasm_v128_load(x_scaled + k + 4 * j), w4[j], acc[j]);
  }
  if (wasm_v128_any_true(wasm_u16x8_gt(largest, wasm_i16x8_splat(0x7bff)))) return false;
  out = finish(acc, x, w, k, K);
  return true;
}

// Any f16 row, every half through the general conversion (infinities and NaN included).
float dot_simd_f16_exact(const float* x, const uint16_t* w, int K) {
  v128_t acc[4];
  for (auto& a : acc) a = wasm_f32x4_splat(0.0f);
  int k = 0;
  for (; k + kLanes <= K; k += kLanes)
    for (int j = 0; j < 4; ++j) {
      const v128_t w4 = simd::f16x4_to_f32x4(wasm_u32x4_load16x4(w + k + 4 * j));
      acc[j] = simd::multiply_add(wasm_v128_load(x + k + 4 * j), w4, acc[j]);
    }
  return finish(acc, x, w, k, K);
}
#endif

// Matrix rows taken one at a time: the pass then reads W in memory order, one sequential stream.
// Four rows side by side (four streams of one row's K values each, restarting every four rows)
// measured at 0.40–0.52 of a plain read of the same bytes in bench/gemv.mjs on gpt2-small's head
// (50257 × 768, AMD EPYC Zen 5), one row at a time at 0.87–0.90 (the same bits: each row's order
// is its own).
template <typename T, typename Dot>
void dot_rows(float* y, size_t ldy, const T* w, const float* bias, int T_rows, int N, int K, Dot dot) {
  for (int n = 0; n < N; ++n) {
    const T* wn = w + static_cast<size_t>(n) * K;
    for (int t = 0; t < T_rows; ++t) {
      const float d = dot(t, wn);
      y[static_cast<size_t>(t) * ldy + n] = bias ? d + bias[n] : d;
    }
  }
}

}  // namespace

void dot_rows_f32(float* y, size_t ldy, const float* x, const float* w, const float* bias, int T, int N, int K) {
  dot_rows(y, ldy, w, bias, T, N, K, [&](int t, const float* wn) {
    const float* xt = x + static_cast<size_t>(t) * K;
#ifdef __wasm_simd128__
    return dot_simd(xt, wn, K);
#else
    return dot_scalar(xt, wn, K);
#endif
  });
}

void dot_rows_f16(float* y, size_t ldy, const float* x, const uint16_t* w, const float* bias, int T, int N, int K) {
#ifdef __wasm_simd128__
  // x × 2^112 once, when every |x| < 2^16 keeps it finite (hidden states are far smaller; NaN
  // fails the test too), saves a multiply per weight; otherwise every row takes the general path.
  const size_t n = static_cast<size_t>(T) * K;
  const bool scalable = std::all_of(x, x + n, [](float v) { return std::fabs(v) < 0x1p16f; });
  std::vector<float> scaled(scalable ? n : 0);
  for (size_t i = 0; i < scaled.size(); ++i) scaled[i] = x[i] * 0x1p112f;
  dot_rows(y, ldy, w, bias, T, N, K, [&](int t, const uint16_t* wn) {
    const size_t at = static_cast<size_t>(t) * K;
    float d;
    if (scalable && dot_simd_f16_finite(x + at, scaled.data() + at, wn, K, d)) return d;
    return dot_simd_f16_exact(x + at, wn, K);
  });
#else
  dot_rows(y, ldy, w, bias, T, N, K, [&](int t, const uint16_t* wn) { return dot_scalar(x + static_cast<size_t>(t) * K, wn, K); });
#endif
}

}  // namespace attnscope::kernels
