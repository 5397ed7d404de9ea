// dot_rows (dot_rows.h): a scalar loop in the fixed order everywhere, and on wasm SIMD128 four
// f32x4 accumulators per matrix row (the sixteen lanes of the order), the rows taken one after
// another in memory order. Multiply and add stay separate in the scalar loop and the SIMD128 build
// (the same order and rounding on every platform); the relaxed-SIMD build fuses them, as its GEMM
// does (the f16 head's widening leaves it bound by instructions, not by memory: one fewer a
// product).
#include "dot_rows.h"

#include <vector>

#include "half.h"
#ifdef __wasm_simd128__
#include <wasm_simd128.h>

#include "f16_scaled_wasmsimd.h"
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

// Four weights at w as f32x4: f32 as they are, f16 through the general conversion (infinities and
// NaN included).
inline v128_t load4(const float* w) { return wasm_v128_load(w); }
inline v128_t load4(const uint16_t* w) { return simd::f16x4_to_f32x4(wasm_u32x4_load16x4(w)); }

// x · w in the sixteen-lane order: any f32 row, and an f16 row the scaled path below gave back.
template <typename T>
float dot_simd(const float* x, const T* w, int K) {
  v128_t acc[4];
  for (auto& a : acc) a = wasm_f32x4_splat(0.0f);
  int k = 0;
  for (; k + kLanes <= K; k += kLanes)
    for (int j = 0; j < 4; ++j)
      acc[j] = simd::multiply_add(wasm_v128_load(x + k + 4 * j), load4(w + k + 4 * j), acc[j]);
  return finish(acc, x, w, k, K);
}

// x · w for an f16 row whose weights are all finite, from x_scaled = x × 2^112 (exact: the caller
// checked it stays finite) and the weights widened by shift and mask (f16_scaled_wasmsimd.h): each
// product is x·w rounded once, the same bits as dot_simd's. False when the row holds an infinity or
// NaN, which the widening would turn into finite values.
bool dot_simd_f16_finite(const float* x, const float* x_scaled, const uint16_t* w, int K, float& out) {
  v128_t acc[4];
  for (auto& a : acc) a = wasm_f32x4_splat(0.0f);
  f16_scaled::F16Magnitudes seen;
  int k = 0;
  for (; k + kLanes <= K; k += kLanes) {
    v128_t w4[4];
    f16_scaled::load8(w + k, seen, w4[0], w4[1]);
    f16_scaled::load8(w + k + 8, seen, w4[2], w4[3]);
    for (int j = 0; j < 4; ++j)
      acc[j] = simd::multiply_add(wasm_v128_load(x_scaled + k + 4 * j), w4[j], acc[j]);
  }
  if (!seen.all_finite()) return false;
  out = finish(acc, x, w, k, K);
  return true;
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
  // x × 2^112 once saves a multiply per weight; an x it would overflow sends every row to the
  // general path.
  const std::vector<float> scaled = f16_scaled::scaled_for_f16(x, static_cast<size_t>(T) * K);
  const bool scalable = !scaled.empty();
  dot_rows(y, ldy, w, bias, T, N, K, [&](int t, const uint16_t* wn) {
    const size_t at = static_cast<size_t>(t) * K;
    float d;
    if (scalable && dot_simd_f16_finite(x + at, scaled.data() + at, wn, K, d)) return d;
    return dot_simd(x + at, wn, K);
  });
#else
  dot_rows(y, ldy, w, bias, T, N, K, [&](int t, const uint16_t* wn) { return dot_scalar(x + static_cast<size_t>(t) * K, wn, K); });
#endif
}

}  // namespace attnscope::kernels
