// C entry points over the int8 kernels (quantize.h, gemm_q8_wasmsimd.h, gemv_q8_wasmsimd.h, packed_linear_q8.h) for
// tests/js/kernels-q8.test.js, linked into the same module as kernels-simd-harness.cpp
// (build/wasm*/kernels-simd-harness.{mjs,wasm}).
#include <emscripten/emscripten.h>

#include <cstdint>
#include <cstdlib>
#include <utility>
#include <vector>

#include "kernels/gemm_q8_wasmsimd.h"
#include "kernels/gemv_q8_wasmsimd.h"
#include "kernels/packed_linear_q8.h"
#include "kernels/quantize.h"

using namespace attnscope::kernels;

namespace {
Activation q8_activation_of(int act) {
  return act == 1 ? Activation::GeluTanh : act == 2 ? Activation::Relu : Activation::GeluErf;
}
}  // namespace

extern "C" {

EMSCRIPTEN_KEEPALIVE int h_q8_activation_max() { return q8_activation_max(); }
EMSCRIPTEN_KEEPALIVE int h_q8_k_group() { return kQ8KGroup; }
// The relaxed build's micro-kernel: form 0 auto, 1 pairwise, 2 fused (Q8DotForm); whether the
// fused one runs now (auto: where this engine computes it exactly).
EMSCRIPTEN_KEEPALIVE void h_q8_set_dot_form(int form) { set_q8_dot_form(static_cast<Q8DotForm>(form)); }
EMSCRIPTEN_KEEPALIVE int h_q8_fused_dot() { return q8_fused_dot() ? 1 : 0; }

// Rows of x (M, K; ldx) quantized to [0, qmax]: q (M, K), scale (M), zero (M).
EMSCRIPTEN_KEEPALIVE void h_quantize_rows(uint8_t* q, float* scale, int32_t* zero, const float* x,
                                          int M, int K, int ldx, int qmax) {
  for (int m = 0; m < M; ++m) {
    const RowQuant p = quantize_row_u8(q + m * K, x + m * ldx, K, qmax);
    scale[m] = p.scale;
    zero[m] = p.zero;
  }
}
EMSCRIPTEN_KEEPALIVE void h_dequantize_rows(float* x, const uint8_t* q, const float* scale,
                                            const int32_t* zero, int M, int K) {
  for (int m = 0; m < M; ++m) {
    RowQuant p;
    p.scale = scale[m];
    p.zero = zero[m];
    dequantize_row_u8(x + m * K, q + m * K, K, p);
  }
}
EMSCRIPTEN_KEEPALIVE void h_quantize_weight(int8_t* q, float* scale, const float* w, int N, int K) {
  quantize_weight_q8(q, scale, w, N, K, K);
}

// C (M, N; ldc) = epilogue(dequant(quant(A) · qwᵀ)) through the packed SIMD GEMM; qw (N, K) int8
// with scales wscale (N). act: −1 none, 0 GELU erf, 1 GELU tanh, 2 ReLU; bias / residual may be 0.
EMSCRIPTEN_KEEPALIVE void h_gemm_q8(float* c, int ldc, const float* a, int lda, const int8_t* qw,
                                    const float* wscale, const float* bias, const float* residual,
                                    int M, int N, int K, int act) {
  std::vector<int8_t> packed(q8_packed_b_size(K, N));
  pack_b_q8_wasmsimd(packed.data(), qw, N, K, K);
  std::vector<int32_t> colsum(N, 0);
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < K; ++k) colsum[n] += qw[n * K + k];
  Q8Rows rows;
  quantize_pack_a_q8_wasmsimd(rows, a, lda, M, K);
  GemmQ8Epilogue ep;
  ep.bias = bias;
  ep.residual = residual;
  ep.ldr = N;
  ep.activate = act >= 0;
  ep.activation = q8_activation_of(act);
  gemm_q8_wasmsimd(c, ldc, rows, packed.data(), wscale, colsum.data(), N, ep);
}

// y (N) = the same for one row x (K) through the one-row kernel (gemv_q8_wasmsimd.h).
EMSCRIPTEN_KEEPALIVE void h_gemv_q8(float* y, const float* x, const int8_t* qw, const float* wscale, const float* bias,
                                    const float* residual, int N, int K, int act) {
  std::vector<int8_t> packed(q8_packed_b_size(K, N));
  pack_b_q8_wasmsimd(packed.data(), qw, N, K, K);
  std::vector<int32_t> colsum(N, 0);
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < K; ++k) colsum[n] += qw[n * K + k];
  Q8Rows rows;
  quantize_pack_a_q8_wasmsimd(rows, x, K, 1, K);
  GemmQ8Epilogue ep;
  ep.bias = bias;
  ep.residual = residual;
  ep.ldr = N;
  ep.activate = act >= 0;
  ep.activation = q8_activation_of(act);
  gemv_q8_wasmsimd(y, rows, packed.data(), static_cast<size_t>(rows.kpad) * kQ8NR, wscale, colsum.data(), N, ep);
}

// The same through the reference loops (no activation: theirs is the Eigen one).
EMSCRIPTEN_KEEPALIVE void h_gemm_q8_reference(float* c, int ldc, const float* a, int lda,
                                              const int8_t* qw, const float* wscale,
                                              const float* bias, const float* residual, int M,
                                              int N, int K) {
  LinearEpilogue ep;
  ep.residual = residual;
  gemm_q8_reference(c, ldc, a, lda, qw, wscale, bias, M, N, K, q8_activation_max(), ep, N);
}

// Through the PackedLinearQ8 API from an f32 weight (f16: the weight given as f16 bits).
EMSCRIPTEN_KEEPALIVE void h_linear_q8(float* out, const float* x, const void* w, const float* bias,
                                      const float* residual, int T, int in, int outc, int act,
                                      int f16) {
  const size_t n = static_cast<size_t>(outc) * in;
  std::vector<float> b(bias, bias + outc);
  PackedLinearQ8 p =
      f16 ? pack_linear_q8(std::vector<uint16_t>(static_cast<const uint16_t*>(w), static_cast<const uint16_t*>(w) + n),
                           std::move(b), in, outc)
          : pack_linear_q8(std::vector<float>(static_cast<const float*>(w), static_cast<const float*>(w) + n),
                           std::move(b), in, outc);
  if (reinterpret_cast<uintptr_t>(p.panels()) % 64 != 0) abort();
  // The weight's memory: the panels (+ 64 bytes of alignment) and 12 bytes per output channel.
  if (p.memory_bytes() > q8_packed_b_size(in, outc) + 64 + static_cast<size_t>(outc) * 12) abort();
  LinearEpilogue ep;
  ep.activate = act >= 0;
  ep.activation = q8_activation_of(act);
  ep.residual = residual;
  linear_packed_q8(out, x, p, T, ep);
}

// One head through W_O: out (T, outc) = x (T, k_count; ldx) · W[:, k_begin : k_begin + k_count]ᵀ.
EMSCRIPTEN_KEEPALIVE void h_linear_slice_q8(float* out, const float* x, int ldx, const float* w, int T,
                                            int in, int outc, int k_begin, int k_count) {
  PackedLinearQ8 p = pack_linear_q8(std::vector<float>(w, w + static_cast<size_t>(outc) * in),
                                    std::vector<float>(outc, 0.0f), in, outc);
  linear_packed_slice_q8(out, x, ldx, p, T, k_begin, k_count);
}

}  // extern "C"
