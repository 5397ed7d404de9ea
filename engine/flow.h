// Information flow (Ferrando & Voita 2024, "Information Flow Routes", the proportion rule): how
// much of each residual update came from each of its parts. A sublayer's output y is a sum of
// components; component z's importance is
//   imp(z) = max(0, ‖y‖₁ − ‖y − z‖₁)
// and its share imp(z) / Σ imp over that sum's components (all shares 0 when every importance is 0).
//
// Attention sublayer of layer l at query i: y = resid_pre[i] + attn_out[i], components
//   the residual resid_pre[i];
//   one per key j: Σ_h m_h P^h_ij (v^h_j W_O^h)  (m: the head mask; v^h the values of the key/value
//     head query head h reads, so grouped-query attention is covered);
//   the output bias b_O (a zero vector, importance 0, where W_O has none).
// Per head: the same y split into m_h P^h_ij v^h_j W_O^h for every head and key, with the residual
// and the bias: each head's share of each edge.
// Feed-forward sublayer: y = residual + mlp_out, components the residual and the MLP's output.
// The residual of a sublayer is what it adds to: pre-norm models' stream before the sublayer's
// norm; post-norm models' (BERT, BART, Marian) the previous sublayer's normed output, y taken before
// the sublayer's own norm. Encoder–decoders' decoder layers add the cross-attention, whose keys are
// the encoder's tokens.
//
// A reader of hook points (hooks.h): FlowRecorder adds read-only hooks to a pass and computes each
// sublayer's shares as the pass goes. v^h_j W_O^h is computed once per head and key with the
// forward pass's own W_O (f32, f16 or int8 packed), so the components add up to what it added.
#pragma once
#include <vector>

#include "blocks.h"
#include "hooks.h"
#include "linear_layer.h"

namespace attnscope {

// One attention sublayer's shares across the layers of a stack (T queries, `keys` keys).
struct AttentionFlow {
  int keys = 0;
  std::vector<float> tokens;                      // (L, T, keys): 0 where a query cannot see the key
  std::vector<float> residual, bias;              // (L, T)
  std::vector<float> heads;                       // (L, H, T, keys): the per-head sum's shares
  std::vector<float> heads_residual, heads_bias;  // (L, T): the per-head sum's other two
};

struct StackFlow {
  int layers = 0, tokens = 0, heads = 0;
  AttentionFlow self;
  AttentionFlow cross;                    // encoder–decoders' decoder; empty otherwise
  std::vector<float> mlp, mlp_residual;   // (L, T): the feed-forward sum's two components
};

// What flow reads of one layer's weights. Post-norm models also give the norm after each attention
// sublayer (its output is the next sublayer's residual); pre-norm models leave them null.
struct FlowLayer {
  const LinearLayer* o = nullptr;
  HeadLayout layout;
  const LayerNormParams* attention_norm = nullptr;
  const LinearLayer* cross_o = nullptr;  // decoders of encoder–decoders
  HeadLayout cross_layout;
  const LayerNormParams* cross_norm = nullptr;
};

// The shares of a sum y = Σ components, by the proportion rule. y and each component: C floats;
// shares: one per component. Exposed for the tests of the rule itself.
void proportion_shares(float* shares, const float* y, const float* const* components, int count, int C);

class FlowRecorder {
 public:
  // `stack`: the hook points' stack; eps: the post-norm LayerNorms' ε. head_mask, cross_head_mask:
  // (L, H) or empty (every head 1).
  FlowRecorder(HookStack stack, std::vector<FlowLayer> layers, float eps, std::vector<float> head_mask = {},
               std::vector<float> cross_head_mask = {});
  // The cross-attention's values, per decoder layer (S, KV·dh): the encoder's (EncoderOutput::cross_v).
  // Not owned; must outlive the pass.
  void set_cross_values(const std::vector<std::vector<float>>* values) { cross_values_ = values; }
  // Adds the recorder's read-only hooks; it must outlive the pass. A pass that does not start at
  // position 0 (a decoder extending its cache) is E_INPUT: flow needs every key's values.
  void install(Hooks& hooks);
  // Every layer's shares, once the pass has run.
  const StackFlow& result() const { return flow_; }
  StackFlow take() { return std::move(flow_); }

 private:
  void on_resid_pre(int layer, const HookTensor& t);
  void on_attention_out(int layer, const HookTensor& t, bool cross);
  void on_resid_mid(int layer, const HookTensor& t, bool cross);
  void on_mlp_out(int layer, const HookTensor& t);
  void size_for(int T, int layer);

  HookStack stack_;
  std::vector<FlowLayer> layers_;
  float eps_;
  std::vector<float> head_mask_, cross_head_mask_;
  const std::vector<std::vector<float>>* cross_values_ = nullptr;
  StackFlow flow_;
  // The current layer's inputs, copied as their hooks fire.
  std::vector<float> residual_, values_, pattern_, cross_pattern_;
  int pattern_keys_ = 0, cross_keys_ = 0;
};

}  // namespace attnscope
