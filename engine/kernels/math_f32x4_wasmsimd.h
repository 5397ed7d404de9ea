// Element-wise math on four floats at a time in WebAssembly SIMD128: the kernels' multiply-add, exp,
// erf and the activations the fused GEMM epilogue applies. Header-only so the kernels inline them; compiled only when
// the target has SIMD128 (the native build uses Eigen and <cmath> instead).
#pragma once
#ifdef __wasm_simd128__
#include <wasm_simd128.h>

namespace attnscope::kernels::simd {

// a · b + c, as every f32 kernel forms it (so a GEMV row, a one-query attention row and a GEMM
// tile sum alike, bit for bit). The relaxed-SIMD build (ATTNSCOPE_RELAXED_SIMD, `scripts/build.sh
// wasm-relaxed`) uses f32x4.relaxed_madd, a fused multiply-add where the CPU has one. clang 14
// only knows the pre-standard opcode (f32x4.fma, 0xfd 0xaf 0x01); scripts/relaxed-simd-opcodes.mjs
// rewrites it to the standard relaxed_madd (0xfd 0x85 0x02, whose semantics a · b + c this is).
// static: its body depends on the file's flags, and a relaxed build links relaxed kernels beside
// plain objects, so each file keeps its own (one shared inline definition could be either).
static inline v128_t multiply_add(v128_t a, v128_t b, v128_t c) {
#ifdef ATTNSCOPE_RELAXED_SIMD
  return __builtin_wasm_fma_f32x4(a, b, c);
#else
  return wasm_f32x4_add(c, wasm_f32x4_mul(a, b));
#endif
}

// Four f16 values (IEEE binary16 bits, one per u32 lane) to f32, exactly. Shifting exponent and
// mantissa into f32 position and multiplying by 2^112 rebiases the exponent (15 → 127) for
// normals and subnormals alike (wasm arithmetic keeps f32 subnormals); infinities and NaN get
// the all-ones exponent.
inline v128_t f16x4_to_f32x4(v128_t h) {
  const v128_t sign = wasm_i32x4_shl(wasm_v128_and(h, wasm_i32x4_splat(0x8000)), 16);
  const v128_t magnitude = wasm_v128_and(h, wasm_i32x4_splat(0x7fff));
  v128_t f = wasm_f32x4_mul(wasm_i32x4_shl(magnitude, 13), wasm_f32x4_splat(0x1p112f));
  const v128_t inf_or_nan = wasm_i32x4_ge(magnitude, wasm_i32x4_splat(0x7c00));
  f = wasm_v128_or(f, wasm_v128_and(inf_or_nan, wasm_i32x4_splat(0x7f800000)));
  return wasm_v128_or(f, sign);
}

// e^x to ~1 ulp (Cephes expf: Cody–Waite reduction x = n·ln2 + r, degree-6 polynomial in r,
// then 2^n built in the exponent bits). Inputs below −87.3 (where e^x leaves the normal floats)
// return exactly 0, so a −inf mask gives a probability of exactly 0; above 88.72 the result is
// +inf.
inline v128_t exp_f32x4(v128_t x) {
  const v128_t lo = wasm_f32x4_splat(-87.33654f), hi = wasm_f32x4_splat(88.72283f);
  const v128_t underflow = wasm_f32x4_lt(x, lo), overflow = wasm_f32x4_gt(x, hi);
  x = wasm_f32x4_pmax(wasm_f32x4_pmin(x, hi), lo);
  const v128_t n = wasm_f32x4_nearest(wasm_f32x4_mul(x, wasm_f32x4_splat(1.44269504088896341f)));
  // ln 2 split in a high part exact in 9 bits and a low part, so n·ln2_hi is exact.
  v128_t r = wasm_f32x4_sub(x, wasm_f32x4_mul(n, wasm_f32x4_splat(0.693359375f)));
  r = wasm_f32x4_sub(r, wasm_f32x4_mul(n, wasm_f32x4_splat(-2.12194440e-4f)));
  v128_t p = wasm_f32x4_splat(1.9875691500e-4f);
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(1.3981999507e-3f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(8.3334519073e-3f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(4.1665795894e-2f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(1.6666665459e-1f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(5.0000001201e-1f));
  p = wasm_f32x4_add(wasm_f32x4_mul(wasm_f32x4_mul(p, r), r), wasm_f32x4_add(r, wasm_f32x4_splat(1.0f)));
  // 2^n for n in [−126, 128] as 2^h · 2^(n−h), h = n/2, so both factors are normal floats even at
  // n = 128 (e^88.7 is finite but 2^128 is not); each factor is built in the exponent bits.
  const v128_t ni = wasm_i32x4_trunc_sat_f32x4(n);
  const v128_t h = wasm_i32x4_shr(ni, 1);
  const v128_t bias = wasm_i32x4_splat(127);
  const v128_t s1 = wasm_i32x4_shl(wasm_i32x4_add(h, bias), 23);
  const v128_t s2 = wasm_i32x4_shl(wasm_i32x4_add(wasm_i32x4_sub(ni, h), bias), 23);
  const v128_t y = wasm_v128_andnot(wasm_f32x4_mul(wasm_f32x4_mul(p, s1), s2), underflow);
  return wasm_v128_bitselect(wasm_f32x4_splat(__builtin_inff()), y, overflow);
}

// erf(x) to ≤ 4e-7 absolute (≈ 6 ulp near |x| = 1): Eigen 3.4's generic_fast_erf_float (13/8-degree rational interpolant on
// [−4, 4]; outside it erf rounds to ±1 in f32).
inline v128_t erf_f32x4(v128_t x) {
  x = wasm_f32x4_pmax(wasm_f32x4_pmin(x, wasm_f32x4_splat(4.0f)), wasm_f32x4_splat(-4.0f));
  const v128_t x2 = wasm_f32x4_mul(x, x);
  v128_t p = wasm_f32x4_splat(-2.72614225801306e-10f);
  p = wasm_f32x4_add(wasm_f32x4_mul(p, x2), wasm_f32x4_splat(2.77068142495902e-08f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, x2), wasm_f32x4_splat(-2.10102402082508e-06f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, x2), wasm_f32x4_splat(-5.69250639462346e-05f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, x2), wasm_f32x4_splat(-7.34990630326855e-04f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, x2), wasm_f32x4_splat(-2.95459980854025e-03f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, x2), wasm_f32x4_splat(-1.60960333262415e-02f));
  p = wasm_f32x4_mul(p, x);
  v128_t q = wasm_f32x4_splat(-1.45660718464996e-05f);
  q = wasm_f32x4_add(wasm_f32x4_mul(q, x2), wasm_f32x4_splat(-2.13374055278905e-04f));
  q = wasm_f32x4_add(wasm_f32x4_mul(q, x2), wasm_f32x4_splat(-1.68282697438203e-03f));
  q = wasm_f32x4_add(wasm_f32x4_mul(q, x2), wasm_f32x4_splat(-7.37332916720468e-03f));
  q = wasm_f32x4_add(wasm_f32x4_mul(q, x2), wasm_f32x4_splat(-1.42647390514189e-02f));
  return wasm_f32x4_div(p, q);
}

// HF "gelu": x·Φ(x) = ½x(1 + erf(x/√2)).
inline v128_t gelu_erf_f32x4(v128_t x) {
  const v128_t e = erf_f32x4(wasm_f32x4_mul(x, wasm_f32x4_splat(0.70710678118654752f)));
  return wasm_f32x4_mul(wasm_f32x4_mul(x, wasm_f32x4_splat(0.5f)),
                        wasm_f32x4_add(e, wasm_f32x4_splat(1.0f)));
}

// HF "gelu_new": ½x(1 + tanh(y)), y = √(2/π)(x + 0.044715x³), written as x / (1 + e^(−2y)) since
// ½(1 + tanh y) = σ(2y); e^(−2y) = +inf for very negative x gives x/inf = −0, the right limit.
inline v128_t gelu_tanh_f32x4(v128_t x) {
  const v128_t x3 = wasm_f32x4_mul(wasm_f32x4_mul(x, x), x);
  const v128_t y = wasm_f32x4_mul(wasm_f32x4_splat(0.79788456080286536f),
                                  wasm_f32x4_add(x, wasm_f32x4_mul(wasm_f32x4_splat(0.044715f), x3)));
  const v128_t e = exp_f32x4(wasm_f32x4_mul(y, wasm_f32x4_splat(-2.0f)));
  return wasm_f32x4_div(x, wasm_f32x4_add(wasm_f32x4_splat(1.0f), e));
}

inline v128_t relu_f32x4(v128_t x) { return wasm_f32x4_pmax(x, wasm_f32x4_splat(0.0f)); }

}  // namespace attnscope::kernels::simd
#endif  // __wasm_simd128__
