// KvCache growth: each layer's rows move to the new layer stride.
#include "kv_cache.h"

#include <algorithm>

#include "buffer_size.h"
#include "error.h"

namespace attnscope {

void reserve_kv_cache(KvCache& cache, int layers, int keys, int kv_width, int max_positions) {
  if (keys <= cache.capacity) return;
  int capacity = std::max(keys, std::min(max_positions, 2 * cache.capacity));
  // Doubling must not be what makes the cache too large: fall back to what this step needs.
  try {
    buffer_elements({layers, capacity, kv_width}, "the KV cache");
  } catch (const Error&) {
    capacity = keys;
  }
  buffer_elements({layers, capacity, kv_width}, "the KV cache");
  const size_t held = static_cast<size_t>(cache.length) * kv_width;
  for (std::vector<float>* buffer : {&cache.k, &cache.v}) {
    std::vector<float> grown(static_cast<size_t>(layers) * capacity * kv_width);
    for (int l = 0; l < layers && cache.length > 0; ++l)
      std::copy_n(buffer->data() + static_cast<size_t>(l) * cache.capacity * kv_width, held,
                  grown.data() + static_cast<size_t>(l) * capacity * kv_width);
    buffer->swap(grown);
  }
  cache.capacity = capacity;
}

}  // namespace attnscope
