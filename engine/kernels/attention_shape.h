// The shape of one head's attention: which queries, which keys, and which keys each query sees.
// A full pass has as many queries as keys; a generation step has one query (the newest position)
// over every key so far. Both are the same computation with the queries taken as the last
// `queries` of the `keys` positions.
#pragma once
#include <cmath>

namespace attnscope::kernels {

struct AttentionShape {
  int queries = 0;  // rows of Q (and of the probabilities)
  int keys = 0;     // rows of K and V (columns of the probabilities)
  int head_dim = 0;
  int stride = 0;   // row stride of Q and the context inside their (rows, C) matrices
  // Row stride of K and V when it differs (grouped-query attention keeps fewer key/value heads
  // than query heads, so their matrices are narrower); 0: the same as `stride`.
  int kv_stride = 0;
  // Decoders: query i sits at position keys − queries + i and sees only keys up to it; the
  // later keys get probability exactly 0 (the −∞ added before softmax).
  bool causal = false;
  // The factor on q·k: 0 for the usual 1/√head_dim; T5 folds it into its weights and uses 1.
  float scale = 0.0f;
  // An additive bias that depends only on how far key j lies from query i's position p_i (T5's
  // relative positions): relative_bias[j − p_i + keys − 1], 2·keys − 1 values; null: none.
  // Kept per offset, not per (query, key) pair, so a long run costs O(keys), not O(queries·keys).
  const float* relative_bias = nullptr;

  int key_stride() const { return kv_stride ? kv_stride : stride; }
  float score_scale() const { return scale != 0.0f ? scale : 1.0f / std::sqrt(static_cast<float>(head_dim)); }
  int position(int query) const { return keys - queries + query; }
  // Row i's slice of relative_bias: element j is the bias of key j.
  const float* relative_bias_row(int query) const { return relative_bias + (keys - 1 - position(query)); }
  int visible_keys(int query) const { return causal ? position(query) + 1 : keys; }
};

}  // namespace attnscope::kernels
