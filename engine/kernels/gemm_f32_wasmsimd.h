// SIMD128 matrix multiply for WebAssembly: C = epilogue(A · B) with B pre-packed into panels of 8
// columns, register-tiled micro-kernels in the style of XNNPACK's f32-gemm-MRx8-wasmsimd-loadsplat
// (MR rows × 8 columns of accumulators, one A element splat per row per k), and the bias, the
// activation and a residual add fused into the store. Only built for wasm32 with -msimd128.
#pragma once
#ifdef __wasm_simd128__
#include <cstddef>
#include <cstdint>
#include <vector>

#include "activation.h"

namespace attnscope::kernels {

constexpr int kGemmNR = 8;  // columns per packed panel (two f32x4 registers)

// Packed B (K, N): panel p holds columns [8p, 8p+8) as K consecutive groups of 8 floats, so the
// micro-kernel reads B with unit stride. The last panel is zero-padded to 8 columns. The packers
// write into caller memory of packed_b_size(K, N) floats (PackedLinear's buffer, the attention
// kernel's per-head scratch).
inline size_t packed_b_size(int K, int N) {
  return static_cast<size_t>((N + kGemmNR - 1) / kGemmNR) * static_cast<size_t>(K) * kGemmNR;
}
// B given as nn.Linear weight W (N, K) row-major, i.e. B = Wᵀ: element (k, n) = w[n * ldw + k].
void pack_b_from_weight_f32_wasmsimd(float* out, const float* w, int N, int K, size_t ldw);
// B given as a (K, N) row-major matrix: element (k, n) = b[k * ldb + n].
void pack_b_f32_wasmsimd(float* out, const float* b, int K, int N, size_t ldb);
// The same panels for a weight kept as f16 bits (WeightPrecision::F16): ceil(N/8)·K·8 halves.
void pack_b_from_weight_f16_wasmsimd(uint16_t* out, const uint16_t* w, int N, int K, size_t ldw);

struct GemmEpilogue {
  const float* bias = nullptr;      // (N) added to every row, or nullptr
  bool activate = false;            // apply `activation` after the bias
  Activation activation = Activation::GeluErf;
  const float* residual = nullptr;  // (M, N) with row stride ldr, added last, or nullptr
  size_t ldr = 0;
  float scale = 1.0f;               // multiplies A·B before the bias (attention's 1/√dh)
};

// C (M, N) with row stride ldc = epilogue(A (M, K), row stride lda, times packed B (K, N)).
// C must not alias A, B or `residual`.
void gemm_f32_wasmsimd(float* c, size_t ldc, const float* a, size_t lda, const float* packed_b,
                       int M, int N, int K, const GemmEpilogue& epilogue);
// The same over K rows [k0, k0 + K) of a B packed with more rows: pass packed_b + k0 · 8 and
// panel_stride = (rows B was packed with) · 8 (used for one head's slice of W_O).
void gemm_f32_wasmsimd(float* c, size_t ldc, const float* a, size_t lda, const float* packed_b,
                       size_t panel_stride, int M, int N, int K, const GemmEpilogue& epilogue);

// C = epilogue(A · B) with B packed as f16 panels: each K block of a panel is widened to f32 once
// per block of kMC rows and then read by the same micro-kernels, so the arithmetic (and the
// result, bit for bit) is that of gemm_f32_wasmsimd on the widened weights.
void gemm_f16b_wasmsimd(float* c, size_t ldc, const float* a, size_t lda, const uint16_t* packed_b,
                        size_t panel_stride, int M, int N, int K, const GemmEpilogue& epilogue);

}  // namespace attnscope::kernels
#endif  // __wasm_simd128__
