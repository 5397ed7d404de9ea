// One row through a packed linear layer for WebAssembly SIMD128: y = epilogue(x · B), the GEMV a
// generated token's step is made of. Each weight is read once, straight from the GEMM's packed
// panels (f32, or f16 widened in registers), panel after panel: one sequential stream. Every
// output is the same sequence of multiply-adds over k, in the same order, as gemm_f32_wasmsimd
// computes for M = 1, and the same epilogue: the results are those of the GEMM bit for bit (the
// kernel tests check), so a step over the KV cache still equals the full forward pass.
// Only built for wasm32 with -msimd128.
#pragma once
#ifdef __wasm_simd128__
#include <cstddef>
#include <cstdint>

#include "gemm_f32_wasmsimd.h"  // GemmEpilogue, the panel layout

namespace attnscope::kernels {

// y (N) = epilogue(x (K) · B) with B packed in 8-column panels panel_stride floats apart (as
// gemm_f32_wasmsimd takes it); the residual, if any, is one row of N. y must not alias x, B or
// the residual.
void gemv_f32_wasmsimd(float* y, const float* x, const float* packed_b, size_t panel_stride, int N, int K,
                       const GemmEpilogue& epilogue);
// The same with B packed as f16 bits (gemm_f16b_wasmsimd's panels), widened as they are loaded.
void gemv_f16b_wasmsimd(float* y, const float* x, const uint16_t* packed_b, size_t panel_stride, int N, int K,
                        const GemmEpilogue& epilogue);

}  // namespace attnscope::kernels
#endif  // __wasm_simd128__
