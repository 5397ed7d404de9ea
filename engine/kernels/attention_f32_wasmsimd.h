// One attention head with SIMD128 for WebAssembly, same contract as attention_head_f32 in
// attention.h: P = softmax(Q Kᵀ / √dh + key_bias) kept in `probs`, context = P V. Blocks of query
// rows go through three steps while their rows of P are in cache: scores by the packed GEMM
// (scale and mask fused in its epilogue, written straight into probs), softmax in place, P·V.
// Causal heads compute each block only up to its last visible key (half the work of a full pass).
#pragma once
#ifdef __wasm_simd128__
#include "attention_shape.h"
#include "softmax.h"

namespace attnscope::kernels {

// stats (queries, or null) and a null probs as for attention_head_f32 (attention.h).
void attention_head_f32_wasmsimd(float* probs, float* context, const float* q, const float* k,
                                 const float* v, const float* key_bias, const AttentionShape& s,
                                 SoftmaxStats* stats = nullptr);

// attention_map_f32's contract (attention.h): the probabilities alone, from the stats kept.
void attention_map_f32_wasmsimd(float* probs, const float* q, const float* k, const float* key_bias,
                                const AttentionShape& s, const SoftmaxStats* stats);

// row[j] += bias[j] for j < n (the relative position bias of one row of scores).
void add_relative_bias_f32_wasmsimd(float* row, const float* bias, int n);

// Softmax of one row in place (max, exp and sum, normalise). −inf entries give exactly 0; a row
// that is entirely −inf gives 1/n everywhere, like softmax_row_f32_naive.
void softmax_row_f32_wasmsimd(float* row, int n);
// The same, writing the row's statistics (null: not kept); and the row rebuilt from them
// (softmax.h's SoftmaxStats): the same exponentials and products.
void softmax_row_with_stats_f32_wasmsimd(float* row, int n, SoftmaxStats* stats);
void softmax_row_from_stats_f32_wasmsimd(float* row, int n, const SoftmaxStats& stats);

}  // namespace attnscope::kernels
#endif  // __wasm_simd128__
