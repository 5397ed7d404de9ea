// Attention maps on demand (attention_sources.h): sizing, the rule, and one head's map.
#include "attention_sources.h"

#include <string>

#include "buffer_size.h"
#include "error.h"
#include "kernels/attention.h"

namespace attnscope {

bool maps_on_demand(AttentionMaps policy, size_t eager_bytes, size_t on_demand_bytes, bool hooked) {
  if (hooked) return false;
  if (policy != AttentionMaps::Auto) return policy == AttentionMaps::OnDemand;
  return eager_bytes > kEagerMapsBytes && on_demand_bytes < eager_bytes;
}

size_t AttentionSources::bytes_for(int L, int T, int keys, const HeadLayout& layout, bool key_bias, bool relative) {
  const size_t floats = static_cast<size_t>(L) * (static_cast<size_t>(T) * layout.q_width() +
                                                  static_cast<size_t>(keys) * layout.kv_width()) +
                        (key_bias ? keys : 0) + (relative ? static_cast<size_t>(layout.heads) * (2 * keys - 1) : 0);
  return floats * sizeof(float) + static_cast<size_t>(L) * layout.heads * T * sizeof(kernels::SoftmaxStats);
}

void AttentionSources::prepare(int L, int T, int K, const HeadLayout& lay, const AttentionMask& mask) {
  const size_t q_size = buffer_elements({L, T, lay.q_width()}, "the attention maps' queries");
  const size_t k_size = buffer_elements({L, K, lay.kv_width()}, "the attention maps' keys");
  const size_t stats_size = buffer_elements({L, lay.heads, T}, "the attention maps' softmax statistics",
                                            sizeof(kernels::SoftmaxStats));
  layers = L, queries = T, keys = K, layout = lay, causal = mask.causal, scale = mask.scale;
  q.resize(q_size);
  k.resize(k_size);
  stats.resize(stats_size);
  if (mask.key_bias) key_bias.assign(mask.key_bias, mask.key_bias + K);
  else key_bias.clear();
  if (mask.relative_bias)
    relative_bias.assign(mask.relative_bias, mask.relative_bias + static_cast<size_t>(lay.heads) * (2 * K - 1));
  else relative_bias.clear();
}

size_t AttentionSources::bytes() const {
  return (q.size() + k.size() + key_bias.size() + relative_bias.size()) * sizeof(float) +
         stats.size() * sizeof(kernels::SoftmaxStats);
}

void AttentionSources::map(int layer, int head, float* out) const {
  if (layer < 0 || layer >= layers)
    throw Error("E_INPUT", "layer " + std::to_string(layer) + " is outside [0, " + std::to_string(layers) + ")");
  if (head < 0 || head >= layout.heads)
    throw Error("E_INPUT", "head " + std::to_string(head) + " is outside [0, " + std::to_string(layout.heads) + ")");
  // The shape attention_heads_forward gave this head (blocks.cpp).
  kernels::AttentionShape shape;
  shape.queries = queries;
  shape.keys = keys;
  shape.head_dim = layout.head_dim;
  shape.stride = layout.q_width();
  shape.kv_stride = layout.kv_width();
  shape.causal = causal;
  shape.scale = scale;
  if (!relative_bias.empty()) shape.relative_bias = relative_bias.data() + static_cast<size_t>(head) * (2 * keys - 1);
  const size_t l = static_cast<size_t>(layer);
  const float* ql = q.data() + l * queries * layout.q_width() + static_cast<size_t>(head) * layout.head_dim;
  const float* kl = k.data() + l * keys * layout.kv_width() + static_cast<size_t>(layout.kv_head_of(head)) * layout.head_dim;
  const kernels::SoftmaxStats* s = stats.data() + (l * layout.heads + head) * queries;
  kernels::attention_map_f32(out, ql, kl, key_bias.empty() ? nullptr : key_bias.data(), shape, s);
}

}  // namespace attnscope
