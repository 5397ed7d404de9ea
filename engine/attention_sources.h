// Attention maps on demand: what one attention (a stack's self- or cross-attention, every layer)
// is made of, kept instead of its maps when they would be large. The maps cost L·H·T·keys floats
// (22 layers × 32 heads at 1,024 tokens: 2.95 GB); what they are made of costs L·(H·T + KV·keys)·dh
// — per layer the queries and keys exactly as the scores used them (after rotation and Qwen3's
// norms), the key mask and T5's relative bias shared by the layers, and each query row's softmax
// statistics. map() computes one head's map from them with the pass's own kernel arithmetic
// (kernels::attention_map_f32), so it equals the map the pass would have kept, bit for bit.
// Not here: the values (a map does not need them) or anything a hook wrote.
#pragma once
#include <cstddef>
#include <vector>

#include "blocks.h"
#include "kernels/softmax.h"

namespace attnscope {

// How a run keeps its attention maps: every map written in full (Eager), what they are made of
// (OnDemand), or the cheaper of the two by maps_on_demand's rule (Auto).
enum class AttentionMaps { Eager, OnDemand, Auto };

// Auto's rule, one place. Eager maps are free to read (a view, no work) and up to
// kEagerMapsBytes they are cheap to hold: every bundled model, and bert-base at 512 tokens
// (151 MB) stay eager. Above it (gpt2 at 1,024 tokens: 604 MB; TinyLlama: 2.95 GB) a run keeps
// the maps' sources whenever they are smaller (for T above about dh: H·T·keys against
// (H·T + KV·keys)·dh floats) and pays one head's scores again for each map read. A run with hooks
// keeps its maps eagerly: a hook may read or write the pattern, and a written pattern is not what
// q and k give.
constexpr size_t kEagerMapsBytes = size_t{256} << 20;
bool maps_on_demand(AttentionMaps policy, size_t eager_bytes, size_t on_demand_bytes, bool hooked);

struct AttentionSources {
  int layers = 0, queries = 0, keys = 0;
  HeadLayout layout;
  bool causal = false;
  float scale = 0.0f;                        // the factor on q·k as AttentionMask's (0: 1/√dh)
  std::vector<float> q;                      // (L, queries, H·dh)
  std::vector<float> k;                      // (L, keys, KV·dh)
  std::vector<float> key_bias;               // (keys): 0 or −inf; empty: every key visible
  std::vector<float> relative_bias;          // (H, 2·keys − 1): T5's, shared by the layers; or empty
  std::vector<kernels::SoftmaxStats> stats;  // (L, H, queries)

  // What kept sources of this shape hold, in bytes (the rule's on_demand_bytes).
  static size_t bytes_for(int layers, int queries, int keys, const HeadLayout& layout, bool key_bias,
                          bool relative_bias);
  // Sized for a pass (E_TOO_LARGE naming what cannot fit in wasm32 before anything is allocated);
  // the mask's key bias and relative bias copied from `mask`.
  void prepare(int layers, int queries, int keys, const HeadLayout& layout, const AttentionMask& mask);
  void clear() { *this = AttentionSources{}; }
  bool empty() const { return layers == 0; }
  size_t bytes() const;

  // Where the pass keeps layer l's: the queries (queries, H·dh), keys (keys, KV·dh), stats (H, queries).
  float* q_of(int l) { return q.data() + static_cast<size_t>(l) * queries * layout.q_width(); }
  float* k_of(int l) { return k.data() + static_cast<size_t>(l) * keys * layout.kv_width(); }
  kernels::SoftmaxStats* stats_of(int l) { return stats.data() + static_cast<size_t>(l) * layout.heads * queries; }

  // out (queries, keys) = layer l head h's probabilities. E_INPUT for a layer or head outside the run.
  void map(int layer, int head, float* out) const;
};

}  // namespace attnscope
