// The shape of one head's attention: which queries, which keys, and which keys each query sees.
// A full pass has as many queries as keys; a generation step has one query (the newest position)
// over every key so far. Both are the same computation with the queries taken as the last
// `queries` of the `keys` positions.
#pragma once

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

  int key_stride() const { return kv_stride ? kv_stride : stride; }
  int visible_keys(int query) const { return causal ? keys - queries + query + 1 : keys; }
};

}  // namespace attnscope::kernels
