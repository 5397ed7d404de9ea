// Dot products of input rows with the rows of a row-major matrix: y[t][n] = x[t] · W[n] (+ b[n]),
// for a language-model head, whose (V, C) matrix is also the word embedding table and so stays in
// its loaded layout (f32, or f16 bits widened as they are read; never a packed or widened copy).
// One generated token is one row: each weight is read once. The summation order is fixed and the
// same in every build and precision — sixteen lanes, lane j summing k ≡ j (mod 16) in order, then
// lanes i, 4+i, 8+i, 12+i as (l_i + l_4+i) + (l_8+i + l_12+i) into four, those as (q0 + q1) +
// (q2 + q3), then the last K mod 16 products in order, then the bias — so the native
// loop and the SIMD128 one give the same bits (the relaxed-SIMD build fuses each multiply-add into
// its lane's sum, as its GEMM does), and an f16 matrix gives exactly what its widened f32 copy
// would in every build. Not for matrices the GEMM packs (linear layers: gemv_f32_wasmsimd.h).
#pragma once
#include <cstddef>
#include <cstdint>

namespace attnscope::kernels {

// y (T, ldy) columns [0, N) = x (T, K) · W[0:N]ᵀ (+ bias (N) or nullptr), W (N, K) row-major.
// Single-threaded: callers split N (vocabulary_logits does, in blocks of rows).
void dot_rows_f32(float* y, size_t ldy, const float* x, const float* w, const float* bias, int T, int N, int K);
void dot_rows_f16(float* y, size_t ldy, const float* x, const uint16_t* w, const float* bias, int T, int N, int K);

}  // namespace attnscope::kernels
