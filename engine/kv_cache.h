// The keys and values of every position a decoder stack has run so far: one cache type for the
// decoders (GPT-2, the Llama family) and the encoder–decoders' decoders, so a generation step
// costs one position's work, not a new pass.
#pragma once
#include <cstddef>
#include <vector>

namespace attnscope {

// Per layer, one K and one V row per position, each KV·dh wide (grouped-query attention stores
// the key/value heads, not one per query head).
struct KvCache {
  int length = 0;            // positions held
  int capacity = 0;          // positions the buffers have room for
  std::vector<float> k, v;   // (L, capacity, KV·dh)

  // Where layer l's rows start (row t at + t · KV·dh).
  float* k_layer(int l, int kv_width) { return k.data() + static_cast<size_t>(l) * capacity * kv_width; }
  float* v_layer(int l, int kv_width) { return v.data() + static_cast<size_t>(l) * capacity * kv_width; }
  // Layer l's values of the positions held, (length, KV·dh), copied out.
  std::vector<float> layer_values(int l, int kv_width) const {
    const float* first = v.data() + static_cast<size_t>(l) * capacity * kv_width;
    return std::vector<float>(first, first + static_cast<size_t>(length) * kv_width);
  }
};

// Makes room for `keys` positions in every one of `layers` layers, keeping the rows held: the
// capacity doubles (up to `max_positions`) so a generation grows it O(log n) times, or takes just
// `keys` when doubling would be what makes it too large (E_TOO_LARGE when even that is).
void reserve_kv_cache(KvCache& cache, int layers, int keys, int kv_width, int max_positions);

}  // namespace attnscope
