// One row through an int8 linear layer for WebAssembly SIMD128: what gemm_q8_wasmsimd computes for
// M = 1, bit for bit (the integer sums are exact and the epilogue is the same expression), as a
// generated token's step needs it. The GEMM reads K in blocks of 2048 across every panel, keeping
// the partial sums in memory between blocks: at M = 1 a K of 3072 (gpt2-small's MLP down
// projection) then reads each panel in two pieces a pass apart, at a third of the speed of reading
// the matrix. Here each panel's whole K is summed in registers and the packed matrix is read once,
// in memory order. Only built for wasm32 with -msimd128.
#pragma once
#ifdef __wasm_simd128__
#include <cstddef>
#include <cstdint>

#include "gemm_q8_wasmsimd.h"  // Q8Rows, GemmQ8Epilogue, the panel layout

namespace attnscope::kernels {

// y (N) = epilogue(dequant(a · B)) for a holding one row (a.M == 1, from quantize_pack_a_q8_wasmsimd)
// and B packed by pack_b_q8_wasmsimd, panels panel_stride bytes apart; w_scale, colsum: (N). The
// residual, if any, is one row of N. y must not alias the inputs.
void gemv_q8_wasmsimd(float* y, const Q8Rows& a, const int8_t* packed_b, size_t panel_stride, const float* w_scale,
                      const int32_t* colsum, int N, const GemmQ8Epilogue& ep);

}  // namespace attnscope::kernels
#endif  // __wasm_simd128__
