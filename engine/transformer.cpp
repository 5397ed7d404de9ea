// The forward passes as the papers read them, composed from blocks.h:
//   encoder layer (post-LN: BERT, DistilBERT, MiniLM, RoBERTa):
//     x ← Norm(x + Attention(x));  x ← Norm(x + FFN(x))
//   decoder layer (pre-LN: GPT-2; pre-RMSNorm with rotary, grouped-query attention and SwiGLU: the
//   Llama family):
//     x ← x + Attention(Norm(x), causal);  x ← x + FFN(Norm(x))
// Each layer fires its hook points (hooks.h) on the way; the attention probabilities are written
// straight into the result (no copy); the optional outputs (Q/K/V, hidden states, value norms,
// trace) are filled only when asked for. The encoder–decoders compose the same blocks in seq2seq.cpp.
#include "transformer.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "buffer_size.h"
#include "error.h"
#include "half.h"
#include "kernels/activation.h"
#include "kernels/layer_norm.h"
#include "kernels/linear.h"
#include "parallel.h"
#include "rotary.h"

namespace attnscope {

namespace {

[[noreturn]] void bad_input(const std::string& message) { throw Error("E_INPUT", message); }

template <typename Values>  // std::vector<float> or WeightMatrix
void check_size(const Values& v, size_t expected, const std::string& what) {
  if (v.size() != expected)
    throw Error("E_WEIGHTS", what + " has " + std::to_string(v.size()) + " values, expected " +
                                 std::to_string(expected));
}

// The trace's copy of an intermediate (nothing when tracing is off: `to` is null).
void keep(std::vector<float>* to, const float* from, size_t n) {
  if (to) to->assign(from, from + n);
}
// Where a sublayer keeps an intermediate the fused kernels never store (its output before the
// residual, the FFN's pre-activation) when tracing (null otherwise).
float* sublayer_slot(std::vector<float>* slot, size_t n) {
  if (!slot) return nullptr;
  slot->resize(n);
  return slot->data();
}

// Where a layer fires its hooks (hooks.h); `hooks` null: none.
struct LayerHooks {
  const Hooks* hooks = nullptr;
  int layer = 0, first_position = 0;
  float* scratch = nullptr;  // (T, C): a hooked sublayer output the fused kernels would not store

  bool on(HookSite site) const { return hooked(hooks, HookStack::Model, site, layer); }
  void fire(HookSite site, float* data, int rows, int width) const {
    if (on(site)) hooks->fire(HookStack::Model, site, layer, {data, rows, width, first_position});
  }
  // Where a sublayer's output goes before its residual: the trace's slot, else scratch when hooked.
  float* sublayer_slot(std::vector<float>* traced, HookSite site, size_t n) const {
    if (traced) return attnscope::sublayer_slot(traced, n);
    return on(site) ? scratch : nullptr;
  }
  SublayerEdit edit(HookSite site, int rows, int width) const {
    if (!on(site)) return {};
    return [this, site, rows, width](float* out) { fire(site, out, rows, width); };
  }
  // The queries (queries, H·dh) and the new positions' keys and values (queries, KV·dh) as the
  // scores use them; written ones are what the heads then read.
  void projections(float* q, float* k_new, float* v_new, const Layer& weights, int queries) const {
    fire(HookSite::Q, q, queries, weights.q.out);
    fire(HookSite::K, k_new, queries, weights.k.out);
    fire(HookSite::V, v_new, queries, weights.v.out);
  }
  // After the heads: the pattern (H, queries, keys) and then each head's context (queries, H·dh);
  // a written pattern weights the values anew.
  void attention(float* ctx, float* probs, const float* v, const Layer& weights, const AttentionMask& mask,
                 int queries, int keys) const {
    if (on(HookSite::Pattern)) {
      fire(HookSite::Pattern, probs, weights.heads * queries, keys);
      if (hooks->writes(HookStack::Model, HookSite::Pattern, layer))
        attention_context_forward(ctx, probs, v, weights.layout(), mask.head_mask, queries, keys);
    }
    fire(HookSite::Z, ctx, queries, weights.q.out);
  }
};

// One encoder layer (BERT, DistilBERT): x ← Norm(x + Attention(x)); x ← Norm(x + FFN(x)).
// `trace` (null: off) receives every intermediate.
void encoder_layer_forward(float* x, Activations& a, const Layer& layer, float* probs, const AttentionMask& mask,
                           int T, kernels::Activation act, float eps, LayerTrace* trace,
                           const LayerHooks& hooks) {
  const int C = layer.q.in, F = layer.ff_in.out;
  const size_t TC = static_cast<size_t>(T) * C;
  qkv_projection_forward(a.q.data(), a.k.data(), a.v.data(), x, layer, T);
  hooks.projections(a.q.data(), a.k.data(), a.v.data(), layer, T);
  attention_heads_forward(a.ctx.data(), probs, a.q.data(), a.k.data(), a.v.data(), layer.layout(), mask, T, T);
  hooks.attention(a.ctx.data(), probs, a.v.data(), layer, mask, T, T);
  attention_output_forward(a.sum.data(), a.ctx.data(), layer, /*residual=*/x, T,             // Add
                           hooks.sublayer_slot(trace ? &trace->attention_output : nullptr, HookSite::AttnOut, TC),
                           hooks.edit(HookSite::AttnOut, T, C));
  hooks.fire(HookSite::ResidMid, a.sum.data(), T, C);
  keep(trace ? &trace->attention_residual : nullptr, a.sum.data(), TC);
  layer_norm_forward(x, a.sum.data(), layer.ln_attn, T, C, eps);                             // & Norm
  keep(trace ? &trace->attention_norm : nullptr, x, TC);
  ffn_forward(a.sum.data(), a.ff.data(), x, layer, act, /*residual=*/x, T,                   // Add
              hooks.sublayer_slot(trace ? &trace->ffn_output : nullptr, HookSite::MlpOut, TC),
              sublayer_slot(trace ? &trace->ffn_pre_activation : nullptr, static_cast<size_t>(T) * F),
              hooks.edit(HookSite::MlpOut, T, C));
  keep(trace ? &trace->ffn_intermediate : nullptr, a.ff.data(), static_cast<size_t>(T) * F);
  keep(trace ? &trace->ffn_residual : nullptr, a.sum.data(), TC);
  layer_norm_forward(x, a.sum.data(), layer.ln_ffn, T, C, eps);                              // & Norm
  keep(trace ? &trace->output : nullptr, x, TC);
}

// One decoder layer (GPT-2) over `queries` new positions whose keys and values join the `keys`
// rows of k, v: x ← x + Attention(Norm(x)); x ← x + FFN(Norm(x)).
void decoder_layer_forward(float* x, Activations& a, const Layer& layer, float* probs, float* k, float* v,
                           const AttentionMask& mask, int queries, int keys, kernels::Activation act,
                           float eps, LayerTrace* trace, const LayerHooks& hooks) {
  const int C = layer.q.in, F = layer.ff_in.out;
  const size_t TC = static_cast<size_t>(queries) * C;
  layer_norm_forward(a.ln.data(), x, layer.ln_attn, queries, C, eps);
  keep(trace ? &trace->attention_input_norm : nullptr, a.ln.data(), TC);
  const size_t first_new = static_cast<size_t>(keys - queries) * layer.k.out;
  qkv_projection_forward(a.q.data(), k + first_new, v + first_new, a.ln.data(), layer, queries);
  hooks.projections(a.q.data(), k + first_new, v + first_new, layer, queries);
  attention_heads_forward(a.ctx.data(), probs, a.q.data(), k, v, layer.layout(), mask, queries, keys);
  hooks.attention(a.ctx.data(), probs, v, layer, mask, queries, keys);
  attention_output_forward(a.sum.data(), a.ctx.data(), layer, /*residual=*/x, queries,
                           hooks.sublayer_slot(trace ? &trace->attention_output : nullptr, HookSite::AttnOut, TC),
                           hooks.edit(HookSite::AttnOut, queries, C));
  hooks.fire(HookSite::ResidMid, a.sum.data(), queries, C);
  keep(trace ? &trace->attention_residual : nullptr, a.sum.data(), TC);
  layer_norm_forward(a.ln.data(), a.sum.data(), layer.ln_ffn, queries, C, eps);
  keep(trace ? &trace->ffn_input_norm : nullptr, a.ln.data(), TC);
  ffn_forward(x, a.ff.data(), a.ln.data(), layer, act, /*residual=*/a.sum.data(), queries,
              hooks.sublayer_slot(trace ? &trace->ffn_output : nullptr, HookSite::MlpOut, TC),
              sublayer_slot(trace ? &trace->ffn_pre_activation : nullptr, static_cast<size_t>(queries) * F),
              hooks.edit(HookSite::MlpOut, queries, C));
  keep(trace ? &trace->ffn_intermediate : nullptr, a.ff.data(), static_cast<size_t>(queries) * F);
  keep(trace ? &trace->ffn_residual : nullptr, x, TC);
  keep(trace ? &trace->output : nullptr, x, TC);
}

// One Llama-family layer (Llama, Mistral, Qwen2, Qwen3) over `queries` new positions whose keys and
// values join the `keys` rows of k, v (KV·dh wide): GPT-2's pre-norm layer with RMSNorm, rotary
// positions on q and k (after Qwen3's per-head RMSNorm), grouped-query attention and SwiGLU:
//   x ← x + Attention(RMSNorm(x)); x ← x + SwiGLU(RMSNorm(x)).
void llama_layer_forward(float* x, Activations& a, const Layer& layer, float* probs, float* k, float* v,
                         const AttentionMask& mask, int queries, int keys, kernels::Activation act, float eps,
                         LayerTrace* trace, const LayerHooks& hooks) {
  const int C = layer.q.in, F = layer.ff_in.out;
  const size_t TC = static_cast<size_t>(queries) * C, TF = static_cast<size_t>(queries) * F;
  const size_t TQ = static_cast<size_t>(queries) * layer.q.out, TKV = static_cast<size_t>(queries) * layer.k.out;
  const size_t first_new = static_cast<size_t>(keys - queries) * layer.k.out;
  float *q = a.q.data(), *k_new = k + first_new, *v_new = v + first_new;
  auto slot = [&](std::vector<float> LayerTrace::*field) { return trace ? &(trace->*field) : nullptr; };
  rms_norm_forward(a.ln.data(), x, layer.ln_attn, queries, C, eps);
  keep(slot(&LayerTrace::attention_input_norm), a.ln.data(), TC);
  qkv_projection_forward(q, k_new, v_new, a.ln.data(), layer, queries);
  keep(slot(&LayerTrace::q_projection), q, TQ);
  keep(slot(&LayerTrace::k_projection), k_new, TKV);
  keep(slot(&LayerTrace::v_projection), v_new, TKV);
  if (!layer.q_norm.gamma.empty()) {
    head_rms_norm_forward(q, layer.q_norm.gamma, queries, layer.heads, layer.head_dim, eps);
    head_rms_norm_forward(k_new, layer.k_norm.gamma, queries, layer.kv_heads, layer.head_dim, eps);
    keep(slot(&LayerTrace::q_head_norm), q, TQ);
    keep(slot(&LayerTrace::k_head_norm), k_new, TKV);
  }
  rotary_forward(q, queries, layer.heads, layer.head_dim, layer.q.out, a.rope_cos, a.rope_sin);
  rotary_forward(k_new, queries, layer.kv_heads, layer.head_dim, layer.k.out, a.rope_cos, a.rope_sin);
  keep(slot(&LayerTrace::q_rotated), q, TQ);
  keep(slot(&LayerTrace::k_rotated), k_new, TKV);
  hooks.projections(q, k_new, v_new, layer, queries);
  attention_heads_forward(a.ctx.data(), probs, q, k, v, layer.layout(), mask, queries, keys);
  hooks.attention(a.ctx.data(), probs, v, layer, mask, queries, keys);
  keep(slot(&LayerTrace::attention_context), a.ctx.data(), TQ);
  attention_output_forward(a.sum.data(), a.ctx.data(), layer, /*residual=*/x, queries,
                           hooks.sublayer_slot(slot(&LayerTrace::attention_output), HookSite::AttnOut, TC),
                           hooks.edit(HookSite::AttnOut, queries, C));
  hooks.fire(HookSite::ResidMid, a.sum.data(), queries, C);
  keep(slot(&LayerTrace::attention_residual), a.sum.data(), TC);
  rms_norm_forward(a.ln.data(), a.sum.data(), layer.ln_ffn, queries, C, eps);
  keep(slot(&LayerTrace::ffn_input_norm), a.ln.data(), TC);
  const GatedFfnTrace parts{sublayer_slot(slot(&LayerTrace::ffn_gate), TF),
                            sublayer_slot(slot(&LayerTrace::ffn_gate_activated), TF),
                            sublayer_slot(slot(&LayerTrace::ffn_up), TF)};
  gated_ffn_forward(x, a.ff.data(), a.gate.data(), a.ln.data(), layer, act, /*residual=*/a.sum.data(), queries,
                    hooks.sublayer_slot(slot(&LayerTrace::ffn_output), HookSite::MlpOut, TC), parts,
                    hooks.edit(HookSite::MlpOut, queries, C));
  keep(slot(&LayerTrace::ffn_intermediate), a.ff.data(), TF);
  keep(slot(&LayerTrace::ffn_residual), x, TC);
  keep(slot(&LayerTrace::output), x, TC);
}

// Position ids of T tokens starting at `first`: first, first + 1, ... For RoBERTa, Hugging Face's
// create_position_ids_from_input_ids: padding tokens sit at position pad_token_id and the others
// count on from pad_token_id + 1, skipping the padding.
std::vector<int32_t> position_ids(const ModelConfig& config, const std::vector<int32_t>& ids, int first) {
  std::vector<int32_t> positions(ids.size());
  if (config.family != Family::Roberta) {
    for (size_t t = 0; t < ids.size(); ++t) positions[t] = first + static_cast<int32_t>(t);
    return positions;
  }
  int32_t seen = 0;
  for (size_t t = 0; t < ids.size(); ++t)
    positions[t] = ids[t] == config.pad_token_id ? config.pad_token_id : config.pad_token_id + ++seen;
  return positions;
}

}  // namespace

Transformer::Transformer(ModelConfig config, ModelWeights weights)
    : config_(std::move(config)), weights_(std::move(weights)) {
  // Weights normally come from load_weights(), which already checked every shape; this guards the
  // forward pass against hand-built or mismatched ModelWeights (it indexes them without checks).
  const size_t C = config_.hidden_size, F = config_.intermediate_size, V = config_.vocab_size;
  const bool decoder = config_.is_decoder(), rotary = config_.family == Family::Llama;
  check_size(weights_.word_emb, V * C, "word embeddings");
  check_size(weights_.pos_emb, rotary ? 0 : static_cast<size_t>(config_.max_position_embeddings) * C,
             "position embeddings");
  check_size(weights_.type_emb, static_cast<size_t>(config_.type_vocab_size) * C, "token type embeddings");
  check_size(weights_.ln_emb_g, decoder ? 0 : C, "embedding LayerNorm weight");
  check_size(weights_.ln_emb_b, decoder ? 0 : C, "embedding LayerNorm bias");
  check_size(weights_.ln_f_g, decoder ? C : 0, "final LayerNorm weight");
  check_size(weights_.ln_f_b, decoder && !rotary ? C : 0, "final LayerNorm bias");
  if (weights_.lm_head.size()) check_size(weights_.lm_head, V * C, "language-model head");
  if (weights_.layers.size() != static_cast<size_t>(config_.num_layers))
    throw Error("E_WEIGHTS", "weights have " + std::to_string(weights_.layers.size()) +
                                 " layers, config says " + std::to_string(config_.num_layers));
  for (size_t l = 0; l < weights_.layers.size() && rotary; ++l) check_llama_layer(weights_.layers[l], l);
  for (size_t l = 0; l < weights_.layers.size() && !rotary; ++l) {
    const LayerWeights& L = weights_.layers[l];
    const std::string p = "layer " + std::to_string(l) + " ";
    for (auto* m : {&L.q_w, &L.k_w, &L.v_w, &L.o_w}) check_size(*m, C * C, p + "attention weight");
    for (auto* b : {&L.q_b, &L.k_b, &L.v_b, &L.o_b, &L.ln_attn_g, &L.ln_attn_b, &L.ff_o_b, &L.ln_out_g,
                    &L.ln_out_b})
      check_size(*b, C, p + "bias / LayerNorm vector");
    check_size(L.ff_i_w, F * C, p + "FFN input weight");
    check_size(L.ff_i_b, F, p + "FFN input bias");
    check_size(L.ff_o_w, C * F, p + "FFN output weight");
  }
  if (weights_.has_mlm_head) {
    const MlmHeadWeights& m = weights_.mlm;
    check_size(m.dense_w, C * C, "MLM transform weight");
    for (auto* b : {&m.dense_b, &m.ln_g, &m.ln_b}) check_size(*b, C, "MLM transform vector");
    if (!m.decoder_w.empty()) check_size(m.decoder_w, V * C, "MLM decoder weight");  // empty: tied
    check_size(m.bias, V, "MLM decoder bias");
  }

  // Pack each layer once for the GEMM; packing consumes the loaded vectors.
  layers_.reserve(weights_.layers.size());
  for (LayerWeights& L : weights_.layers)
    layers_.push_back(pack_layer(std::move(L), config_, weights_.precision));
  weights_.layers.clear();
  ln_embeddings_ = {std::move(weights_.ln_emb_g), std::move(weights_.ln_emb_b)};
  ln_final_ = {std::move(weights_.ln_f_g), std::move(weights_.ln_f_b)};
  if (rotary) rope_inv_freq_ = rope_inverse_frequencies(config_.rope, config_.head_dim());
}

void Transformer::check_llama_layer(const LayerWeights& L, size_t l) const {
  const ModelConfig& c = config_;
  const size_t C = c.hidden_size, F = c.intermediate_size, Q = c.q_width(), KV = c.kv_width(), dh = c.head_dim();
  const std::string p = "layer " + std::to_string(l) + " ";
  check_size(L.q_w, Q * C, p + "q_proj weight");
  check_size(L.k_w, KV * C, p + "k_proj weight");
  check_size(L.v_w, KV * C, p + "v_proj weight");
  check_size(L.o_w, C * Q, p + "o_proj weight");
  check_size(L.q_b, c.qkv_bias ? Q : 0, p + "q_proj bias");
  check_size(L.k_b, c.qkv_bias ? KV : 0, p + "k_proj bias");
  check_size(L.v_b, c.qkv_bias ? KV : 0, p + "v_proj bias");
  check_size(L.o_b, c.o_bias ? C : 0, p + "o_proj bias");
  check_size(L.ln_attn_g, C, p + "input_layernorm weight");
  check_size(L.ln_out_g, C, p + "post_attention_layernorm weight");
  check_size(L.q_norm_g, c.qk_norm ? dh : 0, p + "q_norm weight");
  check_size(L.k_norm_g, c.qk_norm ? dh : 0, p + "k_norm weight");
  check_size(L.ff_g_w, F * C, p + "gate_proj weight");
  check_size(L.ff_i_w, F * C, p + "up_proj weight");
  check_size(L.ff_o_w, C * F, p + "down_proj weight");
  check_size(L.ff_g_b, c.mlp_bias ? F : 0, p + "gate_proj bias");
  check_size(L.ff_i_b, c.mlp_bias ? F : 0, p + "up_proj bias");
  check_size(L.ff_o_b, c.mlp_bias ? C : 0, p + "down_proj bias");
}

std::vector<std::pair<std::string, const LayerNormParams*>> Transformer::layer_norms() const {
  std::vector<std::pair<std::string, const LayerNormParams*>> out;
  if (!ln_embeddings_.gamma.empty()) out.emplace_back("embeddings", &ln_embeddings_);
  for (size_t l = 0; l < layers_.size(); ++l) {
    out.emplace_back("layers." + std::to_string(l) + ".attention", &layers_[l].ln_attn);
    out.emplace_back("layers." + std::to_string(l) + ".ffn", &layers_[l].ln_ffn);
    if (!layers_[l].q_norm.gamma.empty()) {  // Qwen3's per-head RMSNorms (dh values each)
      out.emplace_back("layers." + std::to_string(l) + ".q_norm", &layers_[l].q_norm);
      out.emplace_back("layers." + std::to_string(l) + ".k_norm", &layers_[l].k_norm);
    }
  }
  if (!ln_final_.gamma.empty()) out.emplace_back("final", &ln_final_);
  return out;
}

ForwardResult Transformer::forward(const std::vector<int32_t>& ids, const std::vector<int32_t>& token_types,
                                   const std::vector<int32_t>& attention_mask, const ForwardOptions& options) const {
  ForwardResult result;
  Activations activations;
  forward(ids, token_types, attention_mask, options, result, activations);
  return result;
}

void Transformer::check_input(const std::vector<int32_t>& ids, const std::vector<int32_t>& token_types,
                              const std::vector<int32_t>& attention_mask) const {
  const ModelConfig& cfg = config_;
  if (ids.empty()) bad_input("no tokens: a forward pass needs at least one token id");
  if (ids.size() > static_cast<size_t>(cfg.max_tokens()))
    bad_input(std::to_string(ids.size()) + " tokens is more than the model's " + std::to_string(cfg.max_tokens()) +
              (cfg.position_limit_key() == "sliding_window"
                   ? " positions (sliding_window = " + std::to_string(cfg.sliding_window) +
                         ": the sliding-window mask is not implemented, runs stay inside the window)"
                   : " positions (max_position_embeddings = " + std::to_string(cfg.max_position_embeddings) + ")"));
  const int T = static_cast<int>(ids.size());
  if (!token_types.empty() && token_types.size() != ids.size())
    bad_input("token_types has " + std::to_string(token_types.size()) + " entries for " +
              std::to_string(T) + " token ids");
  if (!attention_mask.empty() && attention_mask.size() != ids.size())
    bad_input("attention_mask has " + std::to_string(attention_mask.size()) + " entries for " +
              std::to_string(T) + " token ids");
  for (int t = 0; t < T; ++t) {
    if (ids[t] < 0 || ids[t] >= cfg.vocab_size)
      bad_input("token id " + std::to_string(ids[t]) + " at position " + std::to_string(t) +
                " is out of vocab range [0, " + std::to_string(cfg.vocab_size) + ")");
    if (!token_types.empty()) {
      const int32_t tt = token_types[t];
      if (cfg.type_vocab_size == 0 && tt != 0)
        bad_input("token type " + std::to_string(tt) + " at position " + std::to_string(t) + ": " +
                  cfg.model_type + " has no token types (all must be 0)");
      if (cfg.type_vocab_size > 0 && (tt < 0 || tt >= cfg.type_vocab_size))
        bad_input("token type " + std::to_string(tt) + " at position " + std::to_string(t) +
                  " is out of range [0, " + std::to_string(cfg.type_vocab_size) + ")");
    }
    if (!attention_mask.empty() && attention_mask[t] != 0 && attention_mask[t] != 1)
      bad_input("attention_mask value " + std::to_string(attention_mask[t]) + " at position " +
                std::to_string(t) + " is not 0 or 1");
  }
}

void Transformer::prepare(ForwardResult& res, const ForwardOptions& options, int T, int keys) const {
  const ModelConfig& cfg = config_;
  const int L = cfg.num_layers, H = cfg.num_heads, C = cfg.hidden_size, F = cfg.intermediate_size;
  // Every buffer of the run sized in 64 bits before any is allocated (buffer_size.h); those of
  // run_layers' scratch too, so a run that cannot fit fails here with nothing changed.
  const size_t maps = buffer_elements({L, H, T, keys}, "the attention maps");
  const size_t TC = buffer_elements({T, C}, "a hidden state");
  buffer_elements({T, F}, "the feed-forward activations");
  buffer_elements({T, cfg.q_width()}, "the queries");
  const size_t states = options.hidden_states ? buffer_elements({L + 1, T, C}, "the hidden states") : 0;
  const size_t qkv_size = options.qkv ? buffer_elements({L, H, T, cfg.head_dim()}, "the per-head Q, K, V") : 0;
  if (options.trace) buffer_elements({L, T, std::max(C, F)}, "one traced step of every layer");
  // Buffers are resized, never reallocated smaller (resize keeps capacity), and every element
  // is overwritten by the pass, so a reused result needs no clearing.
  res.layers = L;
  res.heads = H;
  res.tokens = T;
  res.keys = keys;
  res.hidden = C;
  res.head_dim = cfg.head_dim();
  res.attentions.resize(options.attentions ? maps : 0);
  res.hidden_out.resize(TC);
  res.hidden_states.resize(states);
  res.q.resize(qkv_size);
  res.k.resize(qkv_size);
  res.v.resize(qkv_size);
  res.value_norms.resize(options.value_norms ? static_cast<size_t>(L) * H * T : 0);
  if (!options.trace) res.trace = ForwardTrace{};
}

void Transformer::forward(const std::vector<int32_t>& ids, const std::vector<int32_t>& token_types,
                          const std::vector<int32_t>& attention_mask, const ForwardOptions& options,
                          ForwardResult& res, Activations& a) const {
  check_input(ids, token_types, attention_mask);
  const size_t heads = static_cast<size_t>(config_.num_layers) * config_.num_heads;
  if (!options.head_mask.empty()) {
    if (options.head_mask.size() != heads)
      bad_input("head_mask has " + std::to_string(options.head_mask.size()) + " values for " +
                std::to_string(config_.num_layers) + " layers × " + std::to_string(config_.num_heads) + " heads");
    for (size_t i = 0; i < heads; ++i)
      if (!std::isfinite(options.head_mask[i]))
        bad_input("head_mask value for layer " + std::to_string(i / config_.num_heads) + " head " +
                  std::to_string(i % config_.num_heads) + " is not a finite number");
  }
  const int T = static_cast<int>(ids.size()), C = config_.hidden_size;
  prepare(res, options, T, T);

  const std::vector<float> key_bias = key_bias_of(attention_mask);

  float* x = res.hidden_out.data();  // the running hidden state ends as the output
  const int32_t* types = token_types.empty() ? nullptr : token_types.data();
  const std::vector<int32_t> positions = position_ids(config_, ids, 0);
  embeddings_forward(x, weights_, ids.data(), positions.data(), types, T, C);
  EmbeddingsTrace* trace = options.trace ? &res.trace.embeddings : nullptr;
  if (trace) {
    const size_t TC = static_cast<size_t>(T) * C;
    trace->word.resize(TC);
    trace->position.resize(weights_.pos_emb.empty() ? 0 : TC);  // rotary models: no position table
    trace->token_type.resize(weights_.type_emb.empty() ? 0 : TC);
    embedding_parts(trace->word.data(), trace->position.empty() ? nullptr : trace->position.data(),
                    trace->token_type.empty() ? nullptr : trace->token_type.data(), weights_, ids.data(),
                    positions.data(), types, T, C);
    keep(&trace->sum, x, TC);
  }
  if (!config_.is_decoder())  // encoders normalise the embeddings sum
    layer_norm_forward(x, x, ln_embeddings_, T, C, static_cast<float>(config_.layer_norm_eps));
  if (trace) keep(&trace->output, x, static_cast<size_t>(T) * C);
  // One (T, KV·dh) buffer of keys and values, reused by every layer.
  a.k.resize(static_cast<size_t>(T) * config_.kv_width());
  a.v.resize(static_cast<size_t>(T) * config_.kv_width());
  run_layers(x, T, 0, KvView{a.k.data(), a.v.data(), 0}, key_bias.empty() ? nullptr : key_bias.data(), options,
             res, a);
}

std::vector<float> Transformer::key_bias_of(const std::vector<int32_t>& attention_mask) {
  // −inf removes the key from every query's softmax.
  std::vector<float> key_bias;
  if (std::find(attention_mask.begin(), attention_mask.end(), 0) == attention_mask.end()) return key_bias;
  key_bias.resize(attention_mask.size());
  for (size_t t = 0; t < attention_mask.size(); ++t)
    key_bias[t] = attention_mask[t] ? 0.0f : -std::numeric_limits<float>::infinity();
  return key_bias;
}

void Transformer::forward_from_layer(int first_layer, const float* resid_pre, int T,
                                     const std::vector<int32_t>& attention_mask, const ForwardOptions& options,
                                     ForwardResult& res, Activations& a) const {
  const int L = config_.num_layers, C = config_.hidden_size;
  if (first_layer < 0 || first_layer > L)
    bad_input("first layer " + std::to_string(first_layer) + " is outside [0, " + std::to_string(L) + "]");
  if (T < 1 || T > config_.max_tokens())
    bad_input(std::to_string(T) + " positions is outside [1, " + std::to_string(config_.max_tokens()) + "]");
  if (!attention_mask.empty() && attention_mask.size() != static_cast<size_t>(T))
    bad_input("attention_mask has " + std::to_string(attention_mask.size()) + " entries for " + std::to_string(T) +
              " positions");
  if (options.hidden_states || options.trace || options.qkv || options.value_norms || !options.head_mask.empty())
    bad_input("forward_from_layer keeps no hidden states, trace, q/k/v or value norms and takes no head mask");
  prepare(res, options, T, T);
  std::copy_n(resid_pre, static_cast<size_t>(T) * C, res.hidden_out.data());
  const std::vector<float> key_bias = key_bias_of(attention_mask);
  a.k.resize(static_cast<size_t>(T) * config_.kv_width());
  a.v.resize(static_cast<size_t>(T) * config_.kv_width());
  run_layers(res.hidden_out.data(), T, 0, KvView{a.k.data(), a.v.data(), 0}, key_bias.empty() ? nullptr : key_bias.data(),
             options, res, a, first_layer);
}

void Transformer::extend(const std::vector<int32_t>& ids, KvCache& cache, ForwardResult& res, Activations& a,
                         const Hooks* hooks) const {
  const ModelConfig& cfg = config_;
  if (!cfg.is_decoder())
    bad_input("only decoders run incrementally: " + cfg.model_type + " sees every token at once");
  if (ids.empty()) bad_input("no tokens: a step needs at least one token id");
  const int T = static_cast<int>(ids.size()), first = cache.length, keys = first + T;
  if (keys > cfg.max_tokens())
    bad_input(std::to_string(first) + " positions so far plus " + std::to_string(T) +
              " new ones is more than the model's " + std::to_string(cfg.max_tokens()) + " positions (" +
              cfg.position_limit_key() + ")");
  check_input(ids, {}, {});
  const int L = cfg.num_layers, C = cfg.hidden_size, KV = cfg.kv_width();

  if (keys > cache.capacity) {  // grow: each layer's rows move to the new layer stride
    int capacity = std::max(keys, std::min(cfg.max_tokens(), 2 * cache.capacity));
    // Doubling must not be what makes the cache too large: fall back to what this step needs.
    try {
      buffer_elements({L, capacity, KV}, "the KV cache");
    } catch (const Error&) {
      capacity = keys;
    }
    buffer_elements({L, capacity, KV}, "the KV cache");
    for (std::vector<float>* buffer : {&cache.k, &cache.v}) {
      std::vector<float> grown(static_cast<size_t>(L) * capacity * KV);
      for (int l = 0; l < L && cache.length > 0; ++l)
        std::copy_n(buffer->data() + static_cast<size_t>(l) * cache.capacity * KV, static_cast<size_t>(first) * KV,
                    grown.data() + static_cast<size_t>(l) * capacity * KV);
      buffer->swap(grown);
    }
    cache.capacity = capacity;
  }

  ForwardOptions options;  // attentions only
  options.hooks = hooks;
  prepare(res, options, T, keys);
  float* x = res.hidden_out.data();
  const std::vector<int32_t> positions = position_ids(config_, ids, first);
  embeddings_forward(x, weights_, ids.data(), positions.data(), nullptr, T, C);
  const size_t layer_stride = static_cast<size_t>(cache.capacity) * KV;
  run_layers(x, T, first, KvView{cache.k.data(), cache.v.data(), layer_stride}, nullptr, options, res, a);
  cache.length = keys;
}

void Transformer::run_layers(float* x, int T, int first_position, const KvView& kv, const float* key_bias,
                             const ForwardOptions& options, ForwardResult& res, Activations& a,
                             int first_layer) const {
  const ModelConfig& cfg = config_;
  const int L = cfg.num_layers, H = cfg.num_heads, C = cfg.hidden_size, F = cfg.intermediate_size;
  const int keys = first_position + T;
  const size_t TC = static_cast<size_t>(T) * C, layer_probs = static_cast<size_t>(H) * T * keys;
  const kernels::Activation act = activation_for(cfg.hidden_act);
  const float eps = static_cast<float>(cfg.layer_norm_eps);
  const bool decoder = cfg.is_decoder();

  const bool rotary = cfg.family == Family::Llama;
  for (auto* buffer : {&a.q, &a.ctx}) buffer->resize(static_cast<size_t>(T) * cfg.q_width());
  a.sum.resize(TC);
  a.ln.resize(decoder ? TC : 0);
  a.ff.resize(static_cast<size_t>(T) * F);
  a.gate.resize(rotary ? static_cast<size_t>(T) * F : 0);
  if (rotary) rope_angles(a.rope_cos, a.rope_sin, rope_inv_freq_, first_position, T);
  a.probs.resize(options.attentions ? 0 : layer_probs);
  a.head_out.resize(options.value_norms ? TC : 0);
  a.sublayer.resize(options.hooks && !options.hooks->empty() ? TC : 0);
  if (options.hidden_states) std::copy_n(x, TC, res.hidden_states.begin());

  AttentionMask mask{key_bias, decoder};
  if (options.trace) res.trace.layers.resize(L);
  for (int l = first_layer; l < L; ++l) {
    mask.head_mask = options.head_mask.empty() ? nullptr : options.head_mask.data() + static_cast<size_t>(l) * H;
    float* probs = options.attentions ? res.attentions.data() + l * layer_probs : a.probs.data();
    float* k = kv.k + l * kv.layer_stride;
    float* v = kv.v + l * kv.layer_stride;
    LayerTrace* trace = options.trace ? &res.trace.layers[l] : nullptr;
    const LayerHooks hooks{options.hooks, l, first_position, a.sublayer.data()};
    hooks.fire(HookSite::ResidPre, x, T, C);
    if (rotary)
      llama_layer_forward(x, a, layers_[l], probs, k, v, mask, T, keys, act, eps, trace, hooks);
    else if (decoder)
      decoder_layer_forward(x, a, layers_[l], probs, k, v, mask, T, keys, act, eps, trace, hooks);
    else
      encoder_layer_forward(x, a, layers_[l], probs, mask, T, act, eps, trace, hooks);
    hooks.fire(HookSite::ResidPost, x, T, C);
    check_layer_output(x, T, C, "layer", l);
    record_attention(l, T, k, v, options, res, a);
    if (options.hidden_states) std::copy_n(x, TC, res.hidden_states.begin() + static_cast<size_t>(l + 1) * TC);
  }
  if (decoder) {
    final_norm_forward(x, x, T);
    if (options.trace) keep(&res.trace.final_norm, x, TC);
    // Hugging Face's last hidden_states entry is after the final norm.
    if (options.hidden_states) std::copy_n(x, TC, res.hidden_states.begin() + static_cast<size_t>(L) * TC);
  }
}

void Transformer::final_norm_forward(float* out, const float* inp, int T) const {
  if (!config_.is_decoder()) throw Error("E_INTERNAL", "final_norm_forward: " + config_.model_type + " has no final norm");
  const int C = config_.hidden_size;
  const float eps = static_cast<float>(config_.layer_norm_eps);
  if (config_.family == Family::Llama)
    rms_norm_forward(out, inp, ln_final_, T, C, eps);
  else
    layer_norm_forward(out, inp, ln_final_, T, C, eps);
}

void Transformer::record_attention(int l, int T, const float* k, const float* v, const ForwardOptions& options,
                                   ForwardResult& res, Activations& a) const {
  const int H = config_.num_heads, dh = config_.head_dim(), Q = config_.q_width(), KV = config_.kv_width();
  if (options.qkv) {  // (T, H·dh) head columns → (T, dh) block at [l][h]; k, v: query head h's key/value head
    for (int h = 0; h < H; ++h) {
      const size_t lh = static_cast<size_t>(l) * H + h, col = static_cast<size_t>(h) * dh;
      const size_t kv_col = static_cast<size_t>(config_.kv_head_of(h)) * dh;
      for (int t = 0; t < T; ++t) {
        const size_t dst = (lh * T + t) * dh;
        std::copy_n(a.q.data() + static_cast<size_t>(t) * Q + col, dh, res.q.data() + dst);
        std::copy_n(k + static_cast<size_t>(t) * KV + kv_col, dh, res.k.data() + dst);
        std::copy_n(v + static_cast<size_t>(t) * KV + kv_col, dh, res.v.data() + dst);
      }
    }
  }
  if (options.value_norms)
    value_norms_forward(res.value_norms.data() + static_cast<size_t>(l) * H * T, a.head_out.data(), v, layers_[l], T);
}

std::vector<float> Transformer::lm_logits(const float* hidden, int rows) const {
  const int C = config_.hidden_size, V = config_.vocab_size;
  if (rows <= 0) throw Error("E_INPUT", "lm_logits: needs at least one hidden state row");
  std::vector<float> logits(buffer_elements({rows, V}, "the vocabulary logits"));
  if (config_.is_decoder()) {  // GPT-2: logits = h · W_teᵀ (tied) or h · lm_headᵀ, no bias
    const WeightMatrix& head = weights_.lm_head.size() ? weights_.lm_head : weights_.word_emb;
    vocabulary_logits(logits.data(), hidden, head, nullptr, rows, C, V);
    return logits;
  }
  if (!weights_.has_mlm_head)
    throw Error("E_WEIGHTS", "this checkpoint has no masked-LM head (cls.predictions.* / vocab_transform.*)");
  // Masked-LM head: transform (dense, activation, LayerNorm), then the decoder.
  const MlmHeadWeights& m = weights_.mlm;
  std::vector<float> h(static_cast<size_t>(rows) * C);
  kernels::linear_f32(h.data(), hidden, m.dense_w.data(), m.dense_b.data(), rows, C, C);
  kernels::activation_f32(h.data(), h.size(), activation_for(config_.mlm_head_act));
  const float eps = static_cast<float>(config_.layer_norm_eps);
  kernels::layer_norm_f32(h.data(), h.data(), m.ln_g.data(), m.ln_b.data(), rows, C, eps);
  if (!m.decoder_w.empty()) {
    kernels::linear_f32(logits.data(), h.data(), m.decoder_w.data(), m.bias.data(), rows, C, V);
    return logits;
  }
  vocabulary_logits(logits.data(), h.data(), weights_.word_emb, m.bias.data(), rows, C, V);  // tied
  return logits;
}

}  // namespace attnscope
