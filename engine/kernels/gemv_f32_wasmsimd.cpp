// The one-row product over packed panels (gemv_f32_wasmsimd.h). Per panel: one pass over k, each
// k splatting x[k] and multiply-adding it into the panel's 8 columns; then the GEMM's epilogue,
// in the GEMM's order (scale, bias, activation, residual).
#include "gemv_f32_wasmsimd.h"

#ifdef __wasm_simd128__
#include <wasm_simd128.h>

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "f16_scaled_wasmsimd.h"
#include "math_f32x4_wasmsimd.h"

namespace attnscope::kernels {

namespace {

using simd::multiply_add;

// Panels streamed side by side. One: the pass over k then reads the packed matrix in memory order,
// one sequential stream, which bench/gemv.mjs measured at 0.83–1.1 of a plain read of the same
// bytes on gpt2-small's shapes (AMD EPYC Zen 5), against 0.63–0.73 with four panels side by side
// (four streams a panel apart, eight accumulators) on the 154 MB vocabulary-head shape. Its two
// accumulator chains of one add or fused multiply-add per 32 bytes stay well ahead of memory.
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

// Eight consecutive weights of a panel's row k as two f32x4 (f16: one 16-byte load, widened).
inline void load8(const float* w, v128_t& lo, v128_t& hi) {
  lo = wasm_v128_load(w);
  hi = wasm_v128_load(w + 4);
}
inline void load8(const uint16_t* w, v128_t& lo, v128_t& hi) {
  const v128_t h = wasm_v128_load(w);
  lo = simd::f16x4_to_f32x4(wasm_u32x4_extend_low_u16x8(h));
  hi = simd::f16x4_to_f32x4(wasm_u32x4_extend_high_u16x8(h));
}

// Eight f16 weights as weight × 2^-112 (f16_scaled_wasmsimd.h), for an x carrying the 2^112; the
// largest |half| kept to catch infinities and NaN.
struct ScaledF16 {
  f16_scaled::F16Magnitudes seen;
  void operator()(const uint16_t* w, v128_t& lo, v128_t& hi) { f16_scaled::load8(w, seen, lo, hi); }
};

// acc0[p], acc1[p] = Σ_k x[k] · (panel p's row k), k in order, the weights loaded by load.
template <int P, typename T, typename Load>
void accumulate_panels(v128_t (&acc0)[P], v128_t (&acc1)[P], const float* x, const T* w, size_t panel_stride, int K,
                       Load& load) {
  const T* panel[P];
  for (int p = 0; p < P; ++p) {
    acc0[p] = wasm_f32x4_splat(0.0f);
    acc1[p] = wasm_f32x4_splat(0.0f);
    panel[p] = w + p * panel_stride;
  }
#pragma clang loop unroll(disable)
  for (int k = 0; k < K; ++k) {
    const v128_t xk = wasm_v128_load32_splat(x + k);
    for (int p = 0; p < P; ++p) {
      v128_t b0, b1;
      load(panel[p] + static_cast<size_t>(k) * kGemmNR, b0, b1);
      acc0[p] = multiply_add(xk, b0, acc0[p]);
      acc1[p] = multiply_add(xk, b1, acc1[p]);
    }
  }
}

// Columns [0, n) of y, n ≤ 8·P, from P panels starting at w (panel_stride apart). For f16 panels,
// x_scaled (x × 2^112, or null when some |x| ≥ 2^16 would overflow it) takes the ScaledF16 path,
// and panels holding an infinity or NaN are taken again through the general conversion.
template <int P, typename T>
void gemv_panels(float* y, const float* x, const float* x_scaled, const T* w, size_t panel_stride, int n, int K,
                 const GemmEpilogue& ep, const float* bias, const float* residual) {
  v128_t acc0[P], acc1[P];
  const auto exact = [](const T* b, v128_t& lo, v128_t& hi) { load8(b, lo, hi); };
  if constexpr (std::is_same_v<T, uint16_t>) {
    ScaledF16 scaled;
    if (x_scaled) accumulate_panels<P>(acc0, acc1, x_scaled, w, panel_stride, K, scaled);
    if (!x_scaled || !scaled.seen.all_finite()) accumulate_panels<P>(acc0, acc1, x, w, panel_stride, K, exact);
  } else {
    accumulate_panels<P>(acc0, acc1, x, w, panel_stride, K, exact);
  }
  const v128_t scale = wasm_f32x4_splat(ep.scale);
  const bool scaled = ep.scale != 1.0f;
  for (int p = 0; p < P; ++p) {
    const int n0 = p * kGemmNR, nc = std::min(kGemmNR, n - n0);
    // A partial panel's bias and residual through 8-wide stack copies, as the GEMM's stack tile.
    alignas(16) float bias8[kGemmNR] = {}, resid8[kGemmNR] = {}, out8[kGemmNR];
    if (bias) std::memcpy(bias8, bias + n0, nc * sizeof(float));
    if (residual) std::memcpy(resid8, residual + n0, nc * sizeof(float));
    v128_t y0 = acc0[p], y1 = acc1[p];
    if (scaled) {
      y0 = wasm_f32x4_mul(y0, scale);
      y1 = wasm_f32x4_mul(y1, scale);
    }
    y0 = wasm_f32x4_add(y0, wasm_v128_load(bias8));
    y1 = wasm_f32x4_add(y1, wasm_v128_load(bias8 + 4));
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

template <typename T>
void gemv_packed(float* y, const float* x, const T* packed_b, size_t panel_stride, int N, int K,
                 const GemmEpilogue& ep) {
  // f16 weights: x × 2^112 once for all panels, when it stays finite (every |x| < 2^16).
  std::vector<float> scaled;
  if constexpr (std::is_same_v<T, uint16_t>) scaled = f16_scaled::scaled_for_f16(x, K);
  const float* x_scaled = scaled.empty() ? nullptr : scaled.data();
  for (int n0 = 0; n0 < N; n0 += kPanelsAtOnce * kGemmNR) {
    const int n = std::min(kPanelsAtOnce * kGemmNR, N - n0);
    const T* w = packed_b + static_cast<size_t>(n0 / kGemmNR) * panel_stride;
    const float* bias = ep.bias ? ep.bias + n0 : nullptr;
    const float* residual = ep.residual ? ep.residual + n0 : nullptr;
    gemv_panels<kPanelsAtOnce>(y + n0, x, x_scaled, w, panel_stride, n, K, ep, bias, residual);
  }
}

}  // namespace

void gemv_f32_wasmsimd(float* y, const float* x, const float* packed_b, size_t panel_stride, int N, int K,
                       const GemmEpilogue& epilogue) {
  gemv_packed(y, x, packed_b, panel_stride, N, K, epilogue);
}

void gemv_f16b_wasmsimd(float* y, const float* x, const uint16_t* packed_b, size_t panel_stride, int N, int K,
                        const GemmEpilogue& epilogue) {
  gemv_packed(y, x, packed_b, panel_stride, N, K, epilogue);
}

}  // namespace attnscope::kernels
#endif  // __wasm_simd128__
