// The one transformer layer every family is made of, composed from the blocks (blocks.h):
// self-attention, for an encoder–decoder's decoder a cross-attention over the source, and the
// feed-forward, each sublayer with its norm before it (pre-norm) or after its residual add
// (post-norm):
//   post-norm (BERT family, BART, Marian):  x ← N(x + Attention(x));  x ← N(x + FFN(x))
//   pre-norm (GPT-2, the Llama family, T5): x ← x + Attention(N(x));  x ← x + FFN(N(x))
// What differs between the families is data (LayerSpec, each family's in engine/models/): where
// the norm sits and which it is, plain or gated feed-forward, how positions enter (rotary ones
// rotate q and k here; learned and sinusoidal ones are added to the embeddings; relative ones are
// the attention's per-head bias), causal or not, the scores' scale. The layer fires its hook
// points (hooks.h) on the way and keeps the steps a trace asks for.
#pragma once
#include <vector>

#include "attention_sources.h"
#include "blocks.h"
#include "hooks.h"

namespace attnscope {

enum class NormPlacement { Before, After };
enum class NormKind { LayerNorm, RmsNorm };
enum class FeedForwardKind { Plain, Gated };
enum class Positions { Learned, Sinusoidal, Rotary, RelativeBias };

struct LayerSpec {
  NormPlacement placement = NormPlacement::After;
  NormKind norm = NormKind::LayerNorm;
  FeedForwardKind ffn = FeedForwardKind::Plain;
  Positions positions = Positions::Learned;
  float scale = 0.0f;  // the factor on q·k: 0 for 1/√head_dim; T5 folds it into its weights: 1
};

// Where a traced layer keeps each step, (T, width) row-major; null: not kept.
struct AttentionTraceSlots {
  std::vector<float>*input_norm = nullptr, *output = nullptr, *residual = nullptr, *norm = nullptr;
  // Rotary positions: the projections before the rotation, Qwen3's per-head norms, the rotated q
  // and k, and the heads' context before W_O.
  std::vector<float>*q = nullptr, *k = nullptr, *v = nullptr, *q_norm = nullptr, *k_norm = nullptr;
  std::vector<float>*q_rotated = nullptr, *k_rotated = nullptr, *context = nullptr;
};
struct FeedForwardTraceSlots {
  std::vector<float>*input_norm = nullptr, *intermediate = nullptr, *output = nullptr, *residual = nullptr;
  std::vector<float>* pre_activation = nullptr;  // x W_in + b before the activation (gated: x W_gate + b)
  std::vector<float>*gate_activated = nullptr, *up = nullptr;  // gated: act(x W_gate + b), x W_in + b
};
struct LayerTraceSlots {
  AttentionTraceSlots self, cross;
  FeedForwardTraceSlots ffn;
  std::vector<float>* output = nullptr;
};

// An attention sublayer's keys and values: `keys` rows of k and v (KV·dh wide). Self-attention
// projects the new positions' rows (the last `queries` of them, at k_new, v_new) from the
// sublayer's input; cross-attention reads another sequence's, computed once (k_new null).
struct KeysValues {
  const float *k, *v;
  int keys;
  float *k_new = nullptr, *v_new = nullptr;

  static KeysValues self(float* k, float* v, int keys, int queries, int kv_width) {
    const size_t first_new = static_cast<size_t>(keys - queries) * kv_width;
    return {k, v, keys, k + first_new, v + first_new};
  }
  static KeysValues other(const float* k, const float* v, int keys) { return {k, v, keys}; }
};

// One pass of one stack's layers over T positions starting at `first_position`; x (T, C) holds
// the running hidden state. The caller sizes the Activations a: sum (T, C) and, pre-norm, ln
// (T, C); q and ctx (T, H·dh); ff and, for a gated feed-forward, gate (T, F); rotary positions'
// angles for these positions; sublayer (T, C) when hooks are set.
struct LayerPass {
  const LayerSpec& spec;
  kernels::Activation act;
  float eps;
  HookStack stack;
  const Hooks* hooks;
  int T, first_position;
  Activations& a;
  float* x;
  int layer = 0;
  // A run keeping its maps on demand: where the self- and cross-attention keep what the maps are
  // made of (layer `layer` of each); the probs given to attention() are then null. Null: eager.
  AttentionSources *self_sources = nullptr, *cross_sources = nullptr;

  bool on(HookSite site) const { return hooked(hooks, stack, site, layer); }
  void fire(HookSite site, float* data, int rows, int width) const {
    if (on(site)) hooks->fire(stack, site, layer, {data, rows, width, first_position});
  }
  // out = the spec's norm of inp (T, C); out may be inp.
  void norm(float* out, const float* inp, const LayerNormParams& params) const;

  // x ← the sublayer over x: its attention probabilities (H, T, keys) written to probs, or (probs
  // null) what they are made of kept in self_sources / cross_sources.
  void attention(const AttentionWeights& w, const KeysValues& kv, float* probs, const AttentionMask& mask, bool cross,
                 const AttentionTraceSlots& trace);
  // x ← the feed-forward sublayer over x.
  void feed_forward(const FeedForwardWeights& w, const FeedForwardTraceSlots& trace);
  // A whole layer: resid_pre, self-attention, the cross-attention when `cross_kv` is given,
  // feed-forward, resid_post; then E_WEIGHTS if the output overflowed (`name`: "layer", ...).
  void run(const Layer& w, const KeysValues& self_kv, float* probs, const AttentionMask& mask,
           const KeysValues* cross_kv, float* cross_probs, const AttentionMask& cross_mask,
           const LayerTraceSlots& trace, const char* name);
};

}  // namespace attnscope
