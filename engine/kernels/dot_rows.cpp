// dot_rows (dot_rows.h): a scalar loop in the fixed order everywhere, and on wasm SIMD128 one
// f32x4 accumulator per matrix row (the four lanes of the order), the rows taken one after
// another in memory order. Multiply and add stay separate (no fused multiply-add in either
// build): the order and the rounding are the same on every platform.
#include "dot_rows.h"

#include <algorithm>

#include "half.h"
#ifdef __wasm_simd128__
#include <wasm_simd128.h>

#include "math_f32x4_wasmsimd.h"
#endif

namespace attnscope::kernels {

namespace {

inline float widen(float w) { return w; }
inline float widen(uint16_t w) { return f16_to_f32(w); }

// x · w in the fixed order, one product and one sum per statement (no contraction to an FMA).
template <typename T>
float dot_scalar(const float* x, const T* w, int K) {
  float lane[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  const int K4 = K / 4 * 4;
  for (int k = 0; k < K4; k += 4)
    for (int j = 0; j < 4; ++j) {
      const float p = x[k + j] * widen(w[k + j]);
      lane[j] += p;
    }
  float s = (lane[0] + lane[1]) + (lane[2] + lane[3]);
  for (int k = K4; k < K; ++k) {
    const float p = x[k] * widen(w[k]);
    s += p;
  }
  return s;
}

#ifdef __wasm_simd128__
inline v128_t load4(const float* w) { return wasm_v128_load(w); }

// Eight f16 weights (one 16-byte load) as two f32x4, exactly. The head's matrix is the largest a
// step reads and widening is what bounds it, so finite values take a 4-instruction path: the
// half sign-extended to 32 bits and shifted puts sign, exponent and mantissa in f32 position (the
// mask clears the sign's copies above the 5-bit exponent), and × 2^112 rebiases the exponent for
// normals and subnormals alike. Infinities and NaN (exponent 31), which that would turn into
// finite values, are detected 8 at a time and go through the general conversion.
inline v128_t widen_finite(v128_t h32) {
  return wasm_f32x4_mul(wasm_v128_and(wasm_i32x4_shl(h32, 13), wasm_i32x4_splat(static_cast<int32_t>(0x8fffe000u))),
                        wasm_f32x4_splat(0x1p112f));
}
inline void widen8(const uint16_t* w, v128_t& lo, v128_t& hi) {
  const v128_t h = wasm_v128_load(w);
  if (wasm_v128_any_true(wasm_i16x8_gt(wasm_v128_and(h, wasm_i16x8_splat(0x7fff)), wasm_i16x8_splat(0x7bff)))) {
    lo = simd::f16x4_to_f32x4(wasm_u32x4_extend_low_u16x8(h));
    hi = simd::f16x4_to_f32x4(wasm_u32x4_extend_high_u16x8(h));
    return;
  }
  lo = widen_finite(wasm_i32x4_extend_low_i16x8(h));
  hi = widen_finite(wasm_i32x4_extend_high_i16x8(h));
}

inline float horizontal_sum(v128_t v) {  // (l0 + l1) + (l2 + l3)
  return (wasm_f32x4_extract_lane(v, 0) + wasm_f32x4_extract_lane(v, 1)) +
         (wasm_f32x4_extract_lane(v, 2) + wasm_f32x4_extract_lane(v, 3));
}

// R matrix rows (R ≤ 4) against one x row: out[r] = x · w_r.
template <int R, typename T>
void dot_rows_simd(float* out, const float* x, const T* w, size_t ldw, int K) {
  v128_t acc[R];
  for (int r = 0; r < R; ++r) acc[r] = wasm_f32x4_splat(0.0f);
  int k = 0;
  if constexpr (sizeof(T) == 2) {
    for (; k + 8 <= K; k += 8) {
      const v128_t x0 = wasm_v128_load(x + k), x1 = wasm_v128_load(x + k + 4);
      for (int r = 0; r < R; ++r) {
        v128_t w0, w1;
        widen8(w + r * ldw + k, w0, w1);
        acc[r] = wasm_f32x4_add(acc[r], wasm_f32x4_mul(x0, w0));
        acc[r] = wasm_f32x4_add(acc[r], wasm_f32x4_mul(x1, w1));
      }
    }
    for (; k + 4 <= K; k += 4) {
      const v128_t x0 = wasm_v128_load(x + k);
      for (int r = 0; r < R; ++r) {
        const v128_t w0 = simd::f16x4_to_f32x4(wasm_u32x4_load16x4(w + r * ldw + k));
        acc[r] = wasm_f32x4_add(acc[r], wasm_f32x4_mul(x0, w0));
      }
    }
  } else {
    for (; k + 4 <= K; k += 4) {
      const v128_t x0 = wasm_v128_load(x + k);
      for (int r = 0; r < R; ++r) acc[r] = wasm_f32x4_add(acc[r], wasm_f32x4_mul(x0, load4(w + r * ldw + k)));
    }
  }
  for (int r = 0; r < R; ++r) {
    float s = horizontal_sum(acc[r]);
    for (int kk = k; kk < K; ++kk) {
      const float p = x[kk] * widen(w[r * ldw + kk]);
      s += p;
    }
    out[r] = s;
  }
}
#endif

// Matrix rows taken one at a time: the pass then reads W in memory order, one sequential stream.
// Four rows side by side (four streams of one row's K values each, restarting every four rows)
// measured at 0.40–0.52 of a plain read of the same bytes in bench/gemv.mjs on gpt2-small's head
// (50257 × 768, AMD EPYC Zen 5), one row at a time at 0.87–0.90 (the same bits: each row's order
// is its own).
template <typename T>
void dot_rows(float* y, size_t ldy, const float* x, const T* w, const float* bias, int T_rows, int N, int K) {
  for (int n = 0; n < N; ++n) {
    const T* wn = w + static_cast<size_t>(n) * K;
    for (int t = 0; t < T_rows; ++t) {
      const float* xt = x + static_cast<size_t>(t) * K;
      float d;
#ifdef __wasm_simd128__
      dot_rows_simd<1>(&d, xt, wn, K, K);
#else
      d = dot_scalar(xt, wn, K);
#endif
      y[static_cast<size_t>(t) * ldy + n] = bias ? d + bias[n] : d;
    }
  }
}

}  // namespace

void dot_rows_f32(float* y, size_t ldy, const float* x, const float* w, const float* bias, int T, int N, int K) {
  dot_rows(y, ldy, x, w, bias, T, N, K);
}

void dot_rows_f16(float* y, size_t ldy, const float* x, const uint16_t* w, const float* bias, int T, int N, int K) {
  dot_rows(y, ldy, x, w, bias, T, N, K);
}

}  // namespace attnscope::kernels
