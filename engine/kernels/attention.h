// Scaled dot-product attention for one head, keeping the probabilities (the matrix AttnScope
// draws): P = softmax(Q Kᵀ / √dh + mask), context = P V. Multi-head bookkeeping (splitting the
// (T, C) projections into heads) is done with strides, so no head is copied out.
#pragma once

#include "attention_f32_wasmsimd.h"

namespace attnscope::kernels {

// q, k, v point at this head's first column inside (T, C) row-major projections: element (t, d)
// is at [t * stride + d], d < dh. key_bias is (T): 0 for a visible key, −inf for a masked one
// (nullptr: all visible). probs is (T, T) dense, row i = query i. context has the same strided
// layout as q (this head's dh columns of a (T, C) matrix); it must not alias q, k or v.
void attention_head_f32_naive(float* probs, float* context, const float* q, const float* k,
                              const float* v, const float* key_bias, int T, int dh, int stride);
void attention_head_f32_eigen(float* probs, float* context, const float* q, const float* k,
                              const float* v, const float* key_bias, int T, int dh, int stride);

inline void attention_head_f32(float* probs, float* context, const float* q, const float* k,
                               const float* v, const float* key_bias, int T, int dh, int stride) {
#ifdef __wasm_simd128__
  attention_head_f32_wasmsimd(probs, context, q, k, v, key_bias, T, dh, stride);
#else
  attention_head_f32_eigen(probs, context, q, k, v, key_bias, T, dh, stride);
#endif
}

}  // namespace attnscope::kernels
