// The one-row int8 product over packed panels (gemv_q8_wasmsimd.h). Per panel: one pass over the
// k groups, each splatting the row's next quantized bytes and summing them against the panel's 8
// columns in int32; then the GEMM's epilogue for its last K block, the same expression in the
// same order (so the same bits).
#include "gemv_q8_wasmsimd.h"

#ifdef __wasm_simd128__
#include <wasm_simd128.h>

#include <algorithm>
#include <cstring>

#include "math_f32x4_wasmsimd.h"
#include "q8_dot_wasmsimd.h"

namespace attnscope::kernels {

namespace {

// Panels streamed side by side: one, so the pass reads the packed matrix in memory order (as
// gemv_f32_wasmsimd; four side by side measured at half the speed in bench/gemv.mjs).
constexpr int kPanelsAtOnce = 1;

inline v128_t activate(v128_t x, Activation act) {
  switch (act) {
    case Activation::GeluErf: return simd::gelu_erf_f32x4(x);
    case Activation::GeluTanh: return simd::gelu_tanh_f32x4(x);
    case Activation::Relu: return simd::relu_f32x4(x);
    case Activation::Silu:
      return wasm_f32x4_div(x, wasm_f32x4_add(wasm_f32x4_splat(1.0f), simd::exp_f32x4(wasm_f32x4_neg(x))));
  }
  return x;
}

// Columns [0, n) of y, n ≤ 8·P, from P panels starting at w (panel_stride bytes apart).
template <int P, bool Fused>
void gemv_q8_panels(float* y, const uint8_t* xq, int groups, const int8_t* w, size_t panel_stride, int n,
                    const float* w_scale, const int32_t* colsum, float row_scale, int32_t row_zero,
                    const GemmQ8Epilogue& ep, const float* bias, const float* residual) {
  v128_t acc0[P], acc1[P];
  const int8_t* panel[P];
  for (int p = 0; p < P; ++p) {
    acc0[p] = wasm_i32x4_splat(0);
    acc1[p] = wasm_i32x4_splat(0);
    panel[p] = w + p * panel_stride;
  }
  const uint8_t* const end = xq + static_cast<size_t>(groups) * 4;
#ifdef ATTNSCOPE_RELAXED_SIMD
  const v128_t ones = wasm_i16x8_splat(1);  // pairs of i16 lanes summed into i32 (pmaddwd)
  (void)ones;
#else
  static_assert(!Fused, "the fused dot product is a relaxed-SIMD instruction");
#endif
#pragma clang loop unroll(disable)
  for (; xq != end; xq += 4) {
    const v128_t x = wasm_v128_load32_splat(xq);  // relaxed: 4 k as bytes; plain: 2 k as int16
    for (int p = 0; p < P; ++p) {
#ifdef ATTNSCOPE_RELAXED_SIMD
      const v128_t w0 = wasm_v128_load(panel[p]), w1 = wasm_v128_load(panel[p] + 16);  // columns 0-3, 4-7 × 4 k
      panel[p] += 32;
      if constexpr (Fused) {
        acc0[p] = simd::relaxed_dot_add(w0, x, acc0[p]);
        acc1[p] = simd::relaxed_dot_add(w1, x, acc1[p]);
      } else {
        acc0[p] = wasm_i32x4_add(acc0[p], wasm_i32x4_dot_i16x8(simd::relaxed_dot_i16(w0, x), ones));
        acc1[p] = wasm_i32x4_add(acc1[p], wasm_i32x4_dot_i16x8(simd::relaxed_dot_i16(w1, x), ones));
      }
#else
      const v128_t wv = wasm_v128_load(panel[p]);  // 8 columns × 2 k
      panel[p] += 16;
      acc0[p] = wasm_i32x4_add(acc0[p], wasm_i32x4_dot_i16x8(x, wasm_i16x8_extend_low_i8x16(wv)));
      acc1[p] = wasm_i32x4_add(acc1[p], wasm_i32x4_dot_i16x8(x, wasm_i16x8_extend_high_i8x16(wv)));
#endif
    }
  }
  const v128_t z = wasm_i32x4_splat(row_zero), s = wasm_f32x4_splat(row_scale);
  for (int p = 0; p < P; ++p) {
    const int n0 = p * kQ8NR, nc = std::min(kQ8NR, n - n0);
    // A partial panel's per-column values through zero-padded 8-wide copies, as the GEMM's.
    alignas(16) float bias8[kQ8NR] = {}, wscale8[kQ8NR] = {}, resid8[kQ8NR] = {}, out8[kQ8NR];
    alignas(16) int32_t colsum8[kQ8NR] = {};
    std::memcpy(wscale8, w_scale + n0, nc * sizeof(float));
    std::memcpy(colsum8, colsum + n0, nc * sizeof(int32_t));
    if (bias) std::memcpy(bias8, bias + n0, nc * sizeof(float));
    if (residual) std::memcpy(resid8, residual + n0, nc * sizeof(float));
    const v128_t ws0 = wasm_v128_load(wscale8), ws1 = wasm_v128_load(wscale8 + 4);
    v128_t y0 = wasm_f32x4_convert_i32x4(wasm_i32x4_sub(acc0[p], wasm_i32x4_mul(z, wasm_v128_load(colsum8))));
    v128_t y1 = wasm_f32x4_convert_i32x4(wasm_i32x4_sub(acc1[p], wasm_i32x4_mul(z, wasm_v128_load(colsum8 + 4))));
    y0 = wasm_f32x4_add(wasm_f32x4_mul(y0, wasm_f32x4_mul(s, ws0)), wasm_v128_load(bias8));
    y1 = wasm_f32x4_add(wasm_f32x4_mul(y1, wasm_f32x4_mul(s, ws1)), wasm_v128_load(bias8 + 4));
    if (ep.activate) {
      y0 = activate(y0, ep.activation);
      y1 = activate(y1, ep.activation);
    }
    if (residual) {
      y0 = wasm_f32x4_add(y0, wasm_v128_load(resid8));
      y1 = wasm_f32x4_add(y1, wasm_v128_load(resid8 + 4));
    }
    wasm_v128_store(out8, y0);
    wasm_v128_store(out8 + 4, y1);
    std::memcpy(y + n0, out8, nc * sizeof(float));
  }
}

template <bool Fused>
void gemv_q8(float* y, const Q8Rows& a, const int8_t* packed_b, size_t panel_stride, const float* w_scale,
             const int32_t* colsum, int N, const GemmQ8Epilogue& ep) {
  const int groups = a.kpad / kQ8KGroup;
  const uint8_t* xq = a.data.data();
  const float s = a.scale[0];
  const int32_t z = a.zero[0];
  for (int n0 = 0; n0 < N; n0 += kPanelsAtOnce * kQ8NR) {
    const int n = std::min(kPanelsAtOnce * kQ8NR, N - n0);
    const int8_t* w = packed_b + static_cast<size_t>(n0 / kQ8NR) * panel_stride;
    const float* bias = ep.bias ? ep.bias + n0 : nullptr;
    const float* residual = ep.residual ? ep.residual + n0 : nullptr;
    gemv_q8_panels<kPanelsAtOnce, Fused>(y + n0, xq, groups, w, panel_stride, n, w_scale + n0, colsum + n0, s, z, ep,
                                         bias, residual);
  }
}

}  // namespace

void gemv_q8_wasmsimd(float* y, const Q8Rows& a, const int8_t* packed_b, size_t panel_stride, const float* w_scale,
                      const int32_t* colsum, int N, const GemmQ8Epilogue& ep) {
#ifdef ATTNSCOPE_RELAXED_SIMD
  if (q8_fused_dot()) return gemv_q8<true>(y, a, packed_b, panel_stride, w_scale, colsum, N, ep);
#endif
  gemv_q8<false>(y, a, packed_b, panel_stride, w_scale, colsum, N, ep);
}

}  // namespace attnscope::kernels
#endif  // __wasm_simd128__
