// The transformer's building blocks as free functions over plain row-major (rows, C) arrays, the
// way llm.c's gpt2_forward reads: each one reads its inputs, writes its output and owns nothing.
// layer.h composes them into the one layer every family is made of (its variations as data), and
// engine/models/ adds what is a family's own. The kernels underneath are the build's fastest
// (kernels/*).
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "config.h"
#include "kernels/activation.h"
#include "kernels/attention_shape.h"
#include "kernels/softmax.h"
#include "linear_layer.h"
#include "weights.h"

namespace attnscope {

// A LayerNorm's parameters, γ and β (C).
struct LayerNormParams {
  std::vector<float> gamma, beta;
};

// How an attention sublayer splits its projections into heads: `heads` query heads of head_dim,
// reading `kv_heads` key/value heads (fewer than the query heads: grouped-query attention).
struct HeadLayout {
  int heads = 0, kv_heads = 0, head_dim = 0;
  int q_width() const { return heads * head_dim; }
  int kv_width() const { return kv_heads * head_dim; }
  int kv_head_of(int h) const { return h / (heads / kv_heads); }
};

// One attention sublayer's weights as the forward pass uses them: the linear layers packed once
// for the GEMM (packing moves them out of the loaded tensors: one copy in memory; int8 for a Q8
// load), q and o H·dh wide, k and v KV·dh, and the sublayer's norm (before it or after its
// residual add: LayerSpec; an RMSNorm's β is empty).
struct AttentionWeights {
  LinearLayer q, k, v, o;
  LayerNormParams norm;
  LayerNormParams q_norm, k_norm;  // Qwen3: RMSNorm γ (dh) over each head's q and k (empty otherwise)
  HeadLayout layout;
};

// One feed-forward sublayer: C → F (activation) → C; gated (SwiGLU, T5's gated-gelu):
// act(x W_gate) · (x W_in) → W_out, `gate` empty otherwise.
struct FeedForwardWeights {
  LinearLayer in, gate, out;
  LayerNormParams norm;
};

// One layer of any family: self-attention, the cross-attention of an encoder–decoder's decoder
// layer (empty elsewhere), the feed-forward.
struct Layer {
  AttentionWeights self, cross;
  FeedForwardWeights ffn;
};
Layer pack_layer(LayerWeights&& weights, const ModelConfig& config,
                 WeightPrecision precision = WeightPrecision::F32);

// Scratch activations of one pass, named after what they hold. Kept by a caller that runs the
// model repeatedly (the wasm Model), so a run reuses memory that is already allocated and touched
// instead of growing the heap and faulting fresh pages in.
struct Activations {
  std::vector<float> ln;       // (T, C) a LayerNorm's output (decoders: the sublayer's input)
  std::vector<float> q;        // (T, H·dh) queries, all heads side by side (C but where dh·H ≠ C)
  std::vector<float> k, v;     // (T, KV·dh) keys and values, one per key/value head (grouped-query
                               // attention has fewer than H; a decoder with a cache keeps its own)
  std::vector<float> ctx;      // (T, H·dh) the heads' outputs concatenated, before W_O
  std::vector<float> sum;      // (T, C) a residual sum, before its LayerNorm (encoders)
  std::vector<float> ff;       // (T, F) the feed-forward hidden layer, after the activation
  std::vector<float> gate;     // (T, F) gated feed-forwards: act(x W_gate) before it multiplies x W_in
  std::vector<float> rope_cos, rope_sin;  // (T, dh/2) rotary positions: the run's angles
  std::vector<float> probs;    // (H, T, T) attention probabilities when the caller keeps none
  std::vector<float> head_out; // (T, C) one head's values through W_O (value norms)
  std::vector<float> sublayer; // (T, C) a hooked sublayer's output before its residual (hooks.h)
};

// Which keys the attention may use: the padding mask (per key, 0 or −∞; nullptr = all visible)
// and, for decoders, the causal mask. head_mask (H values, nullptr = all 1): Hugging Face's
// head_mask, each head's probabilities multiplied by its value before they weight the values (0
// switches the head off). Applied to the head's output, (m·P)V = m·(PV), so the probabilities
// kept are the head's own, as they would have been.
// scale: the factor on q·k (0: 1/√head_dim; T5: 1). relative_bias (H, 2·keys − 1, null: none): per
// head, an additive bias by the key's offset from the query's position (T5's relative positions;
// see kernels::AttentionShape).
struct AttentionMask {
  const float* key_bias = nullptr;
  bool causal = false;
  const float* head_mask = nullptr;
  float scale = 0.0f;
  const float* relative_bias = nullptr;
};

// x (T, C) = word + position (+ token type) embeddings of `ids` at the position ids `positions`
// (before any LayerNorm). token_types: nullptr for all 0, or for models without them. Models
// without learned positions (rotary) take the word embeddings alone.
void embeddings_forward(float* x, const ModelWeights& weights, const int32_t* ids, const int32_t* positions,
                        const int32_t* token_types, int T, int C);

// out (T, C) = LayerNorm(inp) with γ, β; out may be inp.
void layer_norm_forward(float* out, const float* inp, const LayerNormParams& ln, int T, int C, float eps);

// out (T, C) = RMSNorm(inp) with γ (ln.gamma; ln.beta unused); out may be inp.
void rms_norm_forward(float* out, const float* inp, const LayerNormParams& ln, int T, int C, float eps);

// q (queries, H·dh) = x W_Q + b_Q; k, v (queries, KV·dh) = x W_K + b_K, x W_V + b_V.
void qkv_projection_forward(float* q, float* k, float* v, const float* x, const AttentionWeights& attention,
                            int queries);

// Every family's attention, self or cross, threads over heads. Per query head h, over the
// key/value head h reads (layout.kv_heads of them; grouped-query attention when fewer than the
// query heads): probs_h = softmax(scale · q_h k_hᵀ + mask + relative bias), ctx_h = probs_h v_h.
// q, ctx (queries, H·dh); k, v (keys, KV·dh). Self-attention: the last `queries` key rows are the
// new positions' (causal masks by that); cross-attention: keys and values of another sequence.
// A run keeping its maps on demand (attention_sources.h) passes probs null and stats (H, queries):
// each row's softmax statistics instead of the rows.
void attention_heads_forward(float* ctx, float* probs, const float* q, const float* k, const float* v,
                             const HeadLayout& layout, const AttentionMask& mask, int queries, int keys,
                             kernels::SoftmaxStats* stats = nullptr);

// Qwen3: each head's dh values of x (rows, heads·dh) RMS-normalised with γ (dh), in place.
void head_rms_norm_forward(float* x, const std::vector<float>& gamma, int rows, int heads, int head_dim, float eps);

// What a hook does to a sublayer's output (T, C) before the residual is added (hooks.h); empty:
// nothing.
using SublayerEdit = std::function<void(float* sublayer_out)>;

// out (T, C) = ctx W_O + b_O + residual: the attention sublayer's output and its residual add
// (fused into the GEMM's store). out must not alias ctx or residual. With `sublayer_out` (T, C),
// the sum before the residual is kept there too (the same values, so the same result: the fused
// store adds the residual last as well), and `edit` (which needs it) may change it first.
void attention_output_forward(float* out, const float* ctx, const LinearLayer& o, const float* residual, int T,
                              float* sublayer_out = nullptr, const SublayerEdit& edit = {});

// ctx (queries, H·dh) = P_h v_h per head from given probabilities (H, queries, keys), with the head
// mask as attention_heads_forward applies it: the context of a pattern a hook wrote.
void attention_context_forward(float* ctx, const float* probs, const float* v, const HeadLayout& layout,
                               const float* head_mask, int queries, int keys);

// out (T, C) = act(x W_1 + b_1) W_2 + b_2 + residual; `hidden` (T, F) keeps the activation.
// out must not alias x, hidden or residual. `sublayer_out` as for attention_output_forward.
// With `pre_activation` (T, F), x W_1 + b_1 is kept there too: the same GEMM run a second time
// without the activation in its epilogue, so `hidden` and `out` are exactly what they are without
// it (applying the activation afterwards would go through a different kernel than the fused one).
void ffn_forward(float* out, float* hidden, const float* x, const FeedForwardWeights& ffn, kernels::Activation act,
                 const float* residual, int T, float* sublayer_out = nullptr, float* pre_activation = nullptr,
                 const SublayerEdit& edit = {});

// Where gated_ffn_forward keeps the gated feed-forward's parts when tracing, each (T, F) or null:
// x W_gate + b, act(x W_gate + b) and x W_in + b.
struct GatedFfnTrace {
  float *gate = nullptr, *gate_activated = nullptr, *up = nullptr;
};

// The gated feed-forward (the Llama family's SwiGLU, T5's gated-gelu): out (T, C) =
// (act(x W_gate + b) · (x W_in + b)) W_out + b + residual; `hidden` (T, F) keeps act(gate) · in, `gate` (T, F) is scratch. `sublayer_out` as for
// attention_output_forward; `trace` keeps the parts (the outputs are the same with or without it).
void gated_ffn_forward(float* out, float* hidden, float* gate, const float* x, const FeedForwardWeights& ffn,
                       kernels::Activation act, const float* residual, int T, float* sublayer_out = nullptr,
                       const GatedFfnTrace& trace = {}, const SublayerEdit& edit = {});

// word (T, C), position (T, C) and token_type (T, C) embedding rows, each where the model has
// that table (null otherwise: rotary models have no position table): the parts
// embeddings_forward sums (the trace shows them one by one).
void embedding_parts(float* word, float* position, float* token_type, const ModelWeights& weights,
                     const int32_t* ids, const int32_t* positions, const int32_t* token_types, int T, int C);

// What each head adds to the output for each key, ‖(x_j W_V,h + b_V,h) W_O,h‖ (Kobayashi et al.
// 2020, eq. 6: before the attention weight, without the output bias): norms (H, T) from the
// values v (T, KV·dh: query head h reads key/value head h / (H / KV)). head_out is (T, C) scratch.
void value_norms_forward(float* norms, float* head_out, const float* v, const AttentionWeights& attention, int T);

kernels::Activation activation_for(const std::string& hidden_act);

// Error("E_WEIGHTS") naming `stack` (e.g. "layer", "encoder layer"), the layer and the first
// position whose hidden state x (T, C) holds NaN or ±Inf: finite weights whose activations
// overflow float32 are reported where it happens, never drawn as plausible (or uniform) maps.
void check_layer_output(const float* x, int T, int C, const char* stack, int layer);

// logits (rows, V) = hidden (rows, C) · Wᵀ (+ bias (V) or null) for a vocabulary matrix W (V, C),
// f32 or f16 (widened as it is read, never copied): every family's language-model head, by
// kernels::dot_rows (a logit's bits do not depend on how many rows are asked for at once).
void vocabulary_logits(float* logits, const float* hidden, const WeightMatrix& w, const float* bias, int rows,
                       int C, int V);

}  // namespace attnscope
