// C entry points over the one-row kernels for tests/js/kernels-gemv.test.js: the packed-panel
// GEMV (f32 and f16 panels) beside the GEMM it must equal bit for bit at M = 1, and dot_rows
// (the vocabulary head's row-major products). Linked into kernels-simd-harness (CMakeLists.txt).
#include <emscripten/emscripten.h>

#include <cstdint>
#include <vector>

#include "kernels/dot_rows.h"
#include "kernels/gemm_f32_wasmsimd.h"
#include "kernels/gemv_f32_wasmsimd.h"

using namespace attnscope::kernels;

namespace {
GemmEpilogue epilogue_of(const float* bias, const float* residual, int N, int act, float scale) {
  GemmEpilogue ep;
  ep.bias = bias;
  ep.residual = residual;
  ep.ldr = N;
  ep.activate = act >= 0;
  ep.activation = act == 1 ? Activation::GeluTanh : act == 2 ? Activation::Relu : act == 3 ? Activation::Silu
                                                                                        : Activation::GeluErf;
  ep.scale = scale;
  return ep;
}
}  // namespace

extern "C" {

// y (N) = epilogue(x (K) · Wᵀ), W (N, K) row-major packed into panels; gemm: 1 runs the GEMM at
// M = 1 instead of the GEMV. act: −1 none, 0 GELU erf, 1 GELU tanh, 2 ReLU, 3 SiLU.
EMSCRIPTEN_KEEPALIVE void h_row_f32(float* y, const float* x, const float* w, const float* bias,
                                    const float* residual, int N, int K, int act, float scale, int gemm) {
  std::vector<float> b(packed_b_size(K, N));
  pack_b_from_weight_f32_wasmsimd(b.data(), w, N, K, K);
  const GemmEpilogue ep = epilogue_of(bias, residual, N, act, scale);
  const size_t stride = static_cast<size_t>(K) * kGemmNR;
  if (gemm)
    gemm_f32_wasmsimd(y, N, x, K, b.data(), stride, 1, N, K, ep);
  else
    gemv_f32_wasmsimd(y, x, b.data(), stride, N, K, ep);
}
// The same with W given as f16 bits.
EMSCRIPTEN_KEEPALIVE void h_row_f16(float* y, const float* x, const uint16_t* w, const float* bias,
                                    const float* residual, int N, int K, int act, float scale, int gemm) {
  std::vector<uint16_t> b(packed_b_size(K, N));
  pack_b_from_weight_f16_wasmsimd(b.data(), w, N, K, K);
  const GemmEpilogue ep = epilogue_of(bias, residual, N, act, scale);
  const size_t stride = static_cast<size_t>(K) * kGemmNR;
  if (gemm)
    gemm_f16b_wasmsimd(y, N, x, K, b.data(), stride, 1, N, K, ep);
  else
    gemv_f16b_wasmsimd(y, x, b.data(), stride, N, K, ep);
}

// y (T, ldy) = x (T, K) · Wᵀ (+ bias), W (N, K) row-major, f32 or f16 bits.
EMSCRIPTEN_KEEPALIVE void h_dot_rows_f32(float* y, int ldy, const float* x, const float* w, const float* bias,
                                         int T, int N, int K) {
  dot_rows_f32(y, ldy, x, w, bias, T, N, K);
}
EMSCRIPTEN_KEEPALIVE void h_dot_rows_f16(float* y, int ldy, const float* x, const uint16_t* w, const float* bias,
                                         int T, int N, int K) {
  dot_rows_f16(y, ldy, x, w, bias, T, N, K);
}

}  // extern "C"
