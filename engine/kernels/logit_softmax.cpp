// The max and the exponential sum of a vocabulary row (logit_softmax.h): a plain loop, and in wasm
// a SIMD128 form (a 50,257-logit row in ~0.05 ms instead of ~1 ms of double exponentials).
#include "logit_softmax.h"

#include <cmath>
#include <limits>

#ifdef __wasm_simd128__
#include <wasm_simd128.h>

#include "math_f32x4_wasmsimd.h"
#endif

namespace attnscope::kernels {

namespace {
constexpr float kNegInf = -std::numeric_limits<float>::infinity();
}  // namespace

LogitRowStats logit_row_stats(const float* x, int n) {
  float max = kNegInf;
  bool nan = false;
  int i = 0;
#ifdef __wasm_simd128__
  if (n >= 4) {
    // pmax(m, v) is m < v ? v : m, so a NaN v leaves m as it was: NaN is skipped, as below.
    v128_t m = wasm_f32x4_splat(kNegInf), bad = wasm_i32x4_splat(0);
    for (; i + 4 <= n; i += 4) {
      const v128_t v = wasm_v128_load(x + i);
      bad = wasm_v128_or(bad, wasm_f32x4_ne(v, v));
      m = wasm_f32x4_pmax(m, v);
    }
    nan = wasm_v128_any_true(bad);
    float lanes[4];
    wasm_v128_store(lanes, m);
    for (float v : lanes)
      if (v > max) max = v;
  }
#endif
  for (; i < n; ++i) {
    nan |= x[i] != x[i];
    if (x[i] > max) max = x[i];
  }
  return {max, nan};
}

double sum_exp_f32_naive(const float* x, int n, float max) {
  double sum = 0.0;
  for (int i = 0; i < n; ++i) sum += std::exp(static_cast<double>(x[i]) - static_cast<double>(max));
  return sum;
}

#ifdef __wasm_simd128__
double sum_exp_f32_wasmsimd(const float* x, int n, float max) {
  const v128_t m = wasm_f32x4_splat(max);
  v128_t low = wasm_f64x2_splat(0.0), high = wasm_f64x2_splat(0.0);
  auto add = [&](v128_t v) {
    const v128_t e = simd::exp_f32x4(wasm_f32x4_sub(v, m));
    low = wasm_f64x2_add(low, wasm_f64x2_promote_low_f32x4(e));
    high = wasm_f64x2_add(high, wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(e, e, 2, 3, 0, 1)));
  };
  int i = 0;
  for (; i + 4 <= n; i += 4) add(wasm_v128_load(x + i));
  if (i < n) {  // the last n mod 4, padded with −inf (exp_f32x4 gives exactly 0 there)
    float tail[4] = {kNegInf, kNegInf, kNegInf, kNegInf};
    for (int j = 0; i + j < n; ++j) tail[j] = x[i + j];
    add(wasm_v128_load(tail));
  }
  const v128_t both = wasm_f64x2_add(low, high);
  return wasm_f64x2_extract_lane(both, 0) + wasm_f64x2_extract_lane(both, 1);
}
#endif

double sum_exp_f32(const float* x, int n, float max) {
#ifdef __wasm_simd128__
  return sum_exp_f32_wasmsimd(x, n, max);
#else
  return sum_exp_f32_naive(x, n, max);
#endif
}

}  // namespace attnscope::kernels
