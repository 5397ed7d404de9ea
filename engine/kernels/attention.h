// Scaled dot-product attention for one head, keeping the probabilities (the matrix AttnScope
// draws): P = softmax(Q Kᵀ · scale + mask + relative bias), context = P V (scale 1/√dh unless the
// shape says otherwise). Multi-head bookkeeping (splitting the
// (T, C) projections into heads) is done with strides, so no head is copied out.
#pragma once

#include "attention_f32_wasmsimd.h"
#include "attention_shape.h"
#include "softmax.h"

namespace attnscope::kernels {

// row[j] += bias[j] for the n visible keys of one row of scores (a relative position bias).
void add_relative_bias(float* row, const float* bias, int n);

// q, k, v point at this head's first column inside (rows, C) row-major projections: element
// (t, d) is at [t * s.stride + d], d < s.head_dim; q has s.queries rows, k and v s.keys rows.
// key_bias is (s.keys): 0 for a visible key, −inf for a masked one (nullptr: all visible); with
// s.causal the keys after each query's position are masked too. probs is (queries, keys) dense,
// row i = query i, masked entries exactly 0. context has q's strided layout (this head's
// head_dim columns of a (queries, C) matrix); it must not alias q, k or v.
// stats (queries, or null): each row's softmax statistics, for a run that keeps its maps on
// demand; probs may then be null (the rows live in scratch only while the kernel needs them).
void attention_head_f32_naive(float* probs, float* context, const float* q, const float* k,
                              const float* v, const float* key_bias, const AttentionShape& s,
                              SoftmaxStats* stats = nullptr);
void attention_head_f32_eigen(float* probs, float* context, const float* q, const float* k,
                              const float* v, const float* key_bias, const AttentionShape& s,
                              SoftmaxStats* stats = nullptr);

inline void attention_head_f32(float* probs, float* context, const float* q, const float* k,
                               const float* v, const float* key_bias, const AttentionShape& s,
                               SoftmaxStats* stats = nullptr) {
#ifdef __wasm_simd128__
  attention_head_f32_wasmsimd(probs, context, q, k, v, key_bias, s, stats);
#else
  attention_head_f32_eigen(probs, context, q, k, v, key_bias, s, stats);
#endif
}

// One head's probabilities (queries, keys) alone, from q and k as attention_head_f32 read them and
// the stats it kept: the scores by the same arithmetic (the same GEMM blocks, the same mask and
// bias adds), then each row's softmax from its statistics, so the map equals the probs the
// matching attention_head_f32_* would have written, bit for bit.
void attention_map_f32_naive(float* probs, const float* q, const float* k, const float* key_bias,
                             const AttentionShape& s, const SoftmaxStats* stats);
void attention_map_f32_eigen(float* probs, const float* q, const float* k, const float* key_bias,
                             const AttentionShape& s, const SoftmaxStats* stats);

inline void attention_map_f32(float* probs, const float* q, const float* k, const float* key_bias,
                              const AttentionShape& s, const SoftmaxStats* stats) {
#ifdef __wasm_simd128__
  attention_map_f32_wasmsimd(probs, q, k, key_bias, s, stats);
#else
  attention_map_f32_eigen(probs, q, k, key_bias, s, stats);
#endif
}

}  // namespace attnscope::kernels
