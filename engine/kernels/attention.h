// Scaled dot-product attention for one head, keeping the probabilities (the matrix AttnScope
// draws): P = softmax(Q Kᵀ · scale + mask + relative bias), context = P V (scale 1/√dh unless the
// shape says otherwise). Multi-head bookkeeping (splitting the
// (T, C) projections into heads) is done with strides, so no head is copied out.
#pragma once

#include "attention_f32_wasmsimd.h"
#include "attention_shape.h"

namespace attnscope::kernels {

// row[j] += bias[j] for the n visible keys of one row of scores (a relative position bias).
void add_relative_bias(float* row, const float* bias, int n);

// q, k, v point at this head's first column inside (rows, C) row-major projections: element
// (t, d) is at [t * s.stride + d], d < s.head_dim; q has s.queries rows, k and v s.keys rows.
// key_bias is (s.keys): 0 for a visible key, −inf for a masked one (nullptr: all visible); with
// s.causal the keys after each query's position are masked too. probs is (queries, keys) dense,
// row i = query i, masked entries exactly 0. context has q's strided layout (this head's
// head_dim columns of a (queries, C) matrix); it must not alias q, k or v.
void attention_head_f32_naive(float* probs, float* context, const float* q, const float* k,
                              const float* v, const float* key_bias, const AttentionShape& s);
void attention_head_f32_eigen(float* probs, float* context, const float* q, const float* k,
                              const float* v, const float* key_bias, const AttentionShape& s);

inline void attention_head_f32(float* probs, float* context, const float* q, const float* k,
                               const float* v, const float* key_bias, const AttentionShape& s) {
#ifdef __wasm_simd128__
  attention_head_f32_wasmsimd(probs, context, q, k, v, key_bias, s);
#else
  attention_head_f32_eigen(probs, context, q, k, v, key_bias, s);
#endif
}

}  // namespace attnscope::kernels
