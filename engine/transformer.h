// A single-stack transformer checkpoint ready to run: the encoders (the BERT family: post-LN,
// bidirectional) and the decoders (GPT-2: pre-LN, causal; the Llama family: pre-RMSNorm, rotary,
// grouped-query attention, SwiGLU), each family a LayerSpec and a few functions
// (engine/models/) over the one layer of layer.h. Every run keeps every attention probability matrix (the point of AttnScope) and, on
// request, the per-layer hidden states, the per-head Q, K, V (the formula walk-through) and the
// per-head value-vector norms ‖f(x_j)‖ (Kobayashi et al. 2020). Decoders also run incrementally
// over a KV cache: a generation step costs one position's work, not a new pass.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "attention_sources.h"
#include "blocks.h"
#include "config.h"
#include "hooks.h"
#include "kv_cache.h"
#include "layer.h"
#include "models/family.h"
#include "weights.h"

namespace attnscope {

struct ForwardOptions {
  bool attentions = true;        // fill ForwardResult::attentions
  bool hidden_states = false;    // fill ForwardResult::hidden_states
  bool qkv = false;              // fill q, k, v
  bool value_norms = false;      // fill value_norms
  bool trace = false;            // fill trace: every intermediate of every block
  // Hugging Face's head_mask, (L, H) row-major, or empty (every head at 1): head h of layer l
  // has its attention multiplied by head_mask[l·H + h] before it weights the values (0 switches
  // it off). The attentions returned stay the heads' own.
  std::vector<float> head_mask;
  // Hook points read or written during the pass (hooks.h); null or empty: none. Not owned.
  const Hooks* hooks = nullptr;
  // How `attentions` are kept: written in full (Eager), or computed when asked for from what they
  // are made of (attention_sources.h; OnDemand, or Auto by maps_on_demand's rule). forward() only:
  // extend() and forward_from_layer() keep theirs eagerly.
  AttentionMaps maps = AttentionMaps::Eager;
};

// The embeddings step by step, each (T, C): the rows looked up, their sum, and the model's input
// to layer 0 (encoders: the sum's LayerNorm; decoders: the sum itself). Rotary models have no
// position table: position is empty and sum = word.
struct EmbeddingsTrace {
  std::vector<float> word, position;
  std::vector<float> token_type;  // empty for models without token types (DistilBERT, GPT-2)
  std::vector<float> sum, output;
};

// One block step by step, each (T, C) but ffn_pre_activation and ffn_intermediate (T, F).
// Encoders (post-LN):
//   attention_output = Attention(input) (heads concatenated × W_O + b, before the residual)
//   attention_residual = input + attention_output;  attention_norm = LayerNorm(attention_residual)
//   ffn_pre_activation = attention_norm W_1 + b_1;  ffn_intermediate = act(ffn_pre_activation)
//   ffn_output = ffn_intermediate W_2 + b_2
//   ffn_residual = attention_norm + ffn_output;  output = LayerNorm(ffn_residual)
// Decoders (pre-LN) add the LayerNorms in front of each sublayer:
//   attention_input_norm = LayerNorm(input);  attention_output = Attention(attention_input_norm)
//   attention_residual = input + attention_output;  ffn_input_norm = LayerNorm(attention_residual)
//   ffn_pre_activation, ffn_intermediate, ffn_output from ffn_input_norm;  ffn_residual = attention_residual + ffn_output
//   output = ffn_residual  (attention_norm is empty)
// The Llama family (pre-RMSNorm, rotary, grouped-query attention, SwiGLU) fills the decoder's
// steps, its norms RMSNorms (attention_input_norm = input_layernorm, ffn_input_norm =
// post_attention_layernorm), ffn_pre_activation empty, and these, (T, H·dh) for q, (T, KV·dh) for
// k and v, heads side by side:
//   q_projection, k_projection, v_projection = x W + b (q_proj, k_proj, v_proj; before any rotation)
//   q_head_norm, k_head_norm = each head's RMSNorm (Qwen3's q_norm, k_norm; empty for the others)
//   q_rotated, k_rotated = the rotary rotation of the above (what the scores use)
//   attention_context = the heads' Σ_j P_ij v_j side by side (T, H·dh), before o_proj
//   ffn_gate = x W_gate + b, ffn_gate_activated = act(ffn_gate), ffn_up = x W_up + b (T, F);
//   ffn_intermediate = ffn_gate_activated · ffn_up; ffn_output = ffn_intermediate W_down + b
struct LayerTrace {
  std::vector<float> attention_input_norm, attention_output, attention_residual, attention_norm;
  std::vector<float> ffn_input_norm, ffn_pre_activation, ffn_intermediate, ffn_output, ffn_residual, output;
  std::vector<float> q_projection, k_projection, v_projection, q_head_norm, k_head_norm, q_rotated, k_rotated;
  std::vector<float> attention_context, ffn_gate, ffn_gate_activated, ffn_up;
};

struct ForwardTrace {
  EmbeddingsTrace embeddings;
  std::vector<LayerTrace> layers;
  std::vector<float> final_norm;  // decoders: the final norm of the last output (GPT-2's ln_f, Llama's model.norm)
};

struct ForwardResult {
  int layers = 0, heads = 0, hidden = 0, head_dim = 0;
  int tokens = 0;                    // T: positions run (queries)
  int keys = 0;                      // positions attended over: T, or all so far for extend()
  std::vector<float> attentions;     // (L, H, T, keys): attentions[l][h][i][j] = P(query i -> key j)
  // Maps on demand (ForwardOptions::maps): attentions is empty and a head's map is
  // attention_sources.map(l, h, out), equal to what attentions would have held.
  AttentionSources attention_sources;
  std::vector<float> hidden_out;     // (T, C): the last hidden state (decoders: after the final LayerNorm)
  // (L+1, T, C): the embeddings output, then each layer's output; for decoders the last one is
  // after the final LayerNorm (Hugging Face's hidden_states).
  std::vector<float> hidden_states;
  // (L, H, T, dh): per-head projections, q NOT pre-scaled. The Llama family: q and k after the
  // rotation (and Qwen3's norms), as the scores use them; k, v of each query head's key/value head.
  std::vector<float> q, k, v;
  std::vector<float> value_norms;    // (L, H, T): ‖(x_j W_V,h + b_V,h) W_O,h‖ per key token j
  ForwardTrace trace;                // with ForwardOptions::trace; otherwise its vectors are empty
};

class Transformer {
 public:
  Transformer(ModelConfig config, ModelWeights weights);

  // ids: T token ids; token_types: empty (all zero) or T values < type_vocab_size (models without
  // token types: all 0); attention_mask: empty (all ones) or T values in {0,1} — keys with 0 get
  // −inf before softmax (probability exactly 0). Decoders also hide every later key from each
  // query (causal). A query whose keys are all masked gets the uniform distribution over the keys
  // it may see (what Hugging Face's additive finfo.min mask produces), never NaN. Padded positions
  // are still computed as queries, as in PyTorch; callers decide whether to show them.
  // Throws Error("E_INPUT", ...) for T == 0, T > max_position_embeddings, ids out of vocab,
  // token types out of range, mismatched lengths, mask values other than 0/1, a head_mask that is
  // not L·H finite values.
  ForwardResult forward(const std::vector<int32_t>& ids, const std::vector<int32_t>& token_types,
                        const std::vector<int32_t>& attention_mask, const ForwardOptions& options) const;

  // The same, writing into `out` and `activations`, whose vectors are resized (their capacity is
  // kept, so a second run of the same length allocates nothing). Outputs not asked for in
  // `options` are left empty. On an E_INPUT error `out` is left unchanged.
  void forward(const std::vector<int32_t>& ids, const std::vector<int32_t>& token_types,
               const std::vector<int32_t>& attention_mask, const ForwardOptions& options,
               ForwardResult& out, Activations& activations) const;

  // Decoders: runs `ids` as the positions after the cache.length ones the cache holds (an empty
  // cache: a prompt), appends their keys and values, and writes out.attentions (L, H, T, keys)
  // with keys = cache.length afterwards, and out.hidden_out (T, C) after the final LayerNorm.
  // Equal to the matching rows of forward() over the whole sequence. E_INPUT for an encoder, no
  // ids, ids out of vocab, or past max_position_embeddings (the cache is then unchanged).
  // `hooks` (null: none) fire as in forward(), at the new positions (steering adds to them).
  void extend(const std::vector<int32_t>& ids, KvCache& cache, ForwardResult& out, Activations& activations,
              const Hooks* hooks = nullptr) const;

  // The rest of a forward() pass from layer `first_layer` on: resid_pre (T, C) is the residual
  // stream entering that layer (what blocks.<first_layer>.hook_resid_pre holds) and layers
  // first_layer..L−1 run over it as forward() would (attention_mask as there). Activation
  // patching reuses a run's activations below the patched layer with it. out.hidden_out and the
  // attentions of the layers run are written; hidden_states and the trace are not kept (E_INPUT
  // if asked for). E_INPUT for a layer outside [0, L], T outside [1, max positions] or a mask of
  // another length.
  void forward_from_layer(int first_layer, const float* resid_pre, int T, const std::vector<int32_t>& attention_mask,
                          const ForwardOptions& options, ForwardResult& out, Activations& activations) const;

  // Vocabulary logits (rows, V) from `rows` last hidden states (rows × C): the masked-LM head of an
  // encoder (E_WEIGHTS when the checkpoint has none) or the language-model head of a decoder.
  std::vector<float> lm_logits(const float* hidden, int rows) const;

  // Every norm's γ and β by name, in the order a token meets them: "embeddings" (encoders),
  // then per layer "layers.<l>.attention" and "layers.<l>.ffn" (and Qwen3's per-head
  // "layers.<l>.q_norm", "layers.<l>.k_norm", dh values), then "final" (decoders). RMSNorms
  // (the Llama family) have an empty β. For a
  // reader recomputing a traced step (the page's block walk-through checks itself with them).
  std::vector<std::pair<std::string, const LayerNormParams*>> layer_norms() const;

  const ModelConfig& config() const { return config_; }
  // How the family's layers are composed (norm before or after, which norm, positions, FFN).
  const LayerSpec& spec() const { return family_->layer; }
  bool has_lm_head() const { return config_.is_decoder() || weights_.has_mlm_head; }

  // Read-only views for the readers of a run (logit_lens.h, attribution.h): layer l as the forward
  // pass uses it, the decoders' final LayerNorm and unembedding (lm_head, or the tied word embeddings).
  const Layer& layer(int l) const { return layers_[l]; }
  const LayerNormParams& final_norm() const { return ln_final_; }
  // Decoders: out (T, C) = the family's final norm of inp (GPT-2's ln_f LayerNorm, the Llama
  // family's RMSNorm); out may be inp. The forward pass and the logit lens both normalise with it.
  void final_norm_forward(float* out, const float* inp, int T) const;
  const WeightMatrix& unembedding() const { return weights_.lm_head.size() ? weights_.lm_head : weights_.word_emb; }

 private:
  // Where a pass reads and writes each layer's keys and values: layer l's are at
  // k + l · layer_stride (layer_stride 0: one buffer reused by every layer).
  struct KvView {
    float *k, *v;
    size_t layer_stride;
  };
  void check_input(const std::vector<int32_t>& ids, const std::vector<int32_t>& token_types,
                   const std::vector<int32_t>& attention_mask) const;
  // Sizes `out` for a run (E_TOO_LARGE before anything is allocated); `key_bias` (null: none) is
  // the padding mask a run keeping its maps on demand keeps with them.
  void prepare(ForwardResult& out, const ForwardOptions& options, int T, int keys,
               const std::vector<float>* key_bias = nullptr) const;
  // Every layer over T positions starting at `first_position`; x holds the embeddings on entry
  // and the last hidden state on return.
  void run_layers(float* x, int T, int first_position, const KvView& kv, const float* key_bias,
                  const ForwardOptions& options, ForwardResult& out, Activations& a, int first_layer = 0) const;
  // The padding mask as an additive key bias (−inf on masked keys); empty when nothing is masked.
  static std::vector<float> key_bias_of(const std::vector<int32_t>& attention_mask);
  // What a layer's attention leaves for the caller besides the probabilities: per-head Q, K, V and
  // value-vector norms.
  void record_attention(int layer, int T, const float* k, const float* v, const ForwardOptions& options,
                        ForwardResult& out, Activations& a) const;
  // Layer `index`'s shapes: q/k/v/o widths, the family's biases, norms, gate, q/k norms.
  void check_layer(const LayerWeights& layer, size_t index) const;

  ModelConfig config_;
  ModelWeights weights_;  // embeddings and heads; the layers moved into layers_
  const ModelFamily* family_;  // the config's (engine/models/)
  std::vector<Layer> layers_;
  LayerNormParams ln_embeddings_, ln_final_;  // moved out of weights_ (empty where the family has none)
  std::vector<double> rope_inv_freq_;         // rotary positions' frequencies (dh / 2)
};

}  // namespace attnscope
