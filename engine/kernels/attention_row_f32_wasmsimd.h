// One query's attention over a head's keys for WebAssembly SIMD128: a generation step's (the newest
// position over the KV cache, or a decoder step's cross-attention over the source). The K and V
// rows are read where they are, once each — attention_head_f32_wasmsimd would first pack both into
// GEMM panels, which at one query costs more than the attention (reading the cache, writing and
// re-reading two copies of it, per query head even where grouped heads share a key/value head).
// Every score and every context value is the same sequence of multiply-adds, in the same order,
// with the same epilogue as the packed GEMM forms it at M = 1, so the results are bit for bit those
// of attention_head_f32_wasmsimd (a step's attention row still equals the full run's).
#pragma once
#ifdef __wasm_simd128__
#include "attention_shape.h"
#include "softmax.h"

namespace attnscope::kernels {

// Whether attention_row_f32_wasmsimd takes this shape: one query, head_dim a multiple of 4.
bool attention_row_applies(const AttentionShape& s);

// The contract of attention_head_f32_wasmsimd for a shape attention_row_applies to.
void attention_row_f32_wasmsimd(float* probs, float* context, const float* q, const float* k,
                                const float* v, const float* key_bias, const AttentionShape& s,
                                SoftmaxStats* stats = nullptr);

// Its scores alone: probs (the visible keys) = scale · q · k_j + key_bias + relative bias,
// before the softmax (attention_map_f32_wasmsimd's first pass for one query).
void attention_row_scores_f32_wasmsimd(float* probs, const float* q, const float* k, const float* key_bias,
                                       const AttentionShape& s);

}  // namespace attnscope::kernels
#endif  // __wasm_simd128__
