// Several linear layers that read the same input (Q, K and V) as one threaded job: their output
// panels numbered across the layers, so threads split the whole job once and wait once, not once
// per layer. A thread's range of panels is handed to each layer it covers in that layer's own
// panel numbers, so every output element is computed as by the layer alone.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdlib>

#include "parallel.h"

namespace attnscope::kernels {

// The most layers one such job takes (Q, K, V; a fourth to spare).
inline constexpr int kMaxSameInputLayers = 4;

// Runs fn(i, begin, end) over panels [begin, end) of layer i, for layers 0 … count − 1 of
// panels[i] panels each, in parallel (at least min_panels panels a thread).
template <typename Fn>
void parallel_for_layer_panels(const size_t* panels, int count, size_t min_panels, const Fn& fn) {
  if (count < 1 || count > kMaxSameInputLayers) std::abort();
  size_t first[kMaxSameInputLayers + 1] = {0};  // layer i's panels are [first[i], first[i + 1])
  for (int i = 0; i < count; ++i) first[i + 1] = first[i] + panels[i];
  parallel_for(first[count], min_panels, [&](size_t p0, size_t p1) {
    for (int i = 0; i < count; ++i) {
      const size_t begin = std::max(p0, first[i]), end = std::min(p1, first[i + 1]);
      if (begin < end) fn(i, begin - first[i], end - first[i]);
    }
  });
}

}  // namespace attnscope::kernels
