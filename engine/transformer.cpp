// Transformer: the single-stack models (the BERT family, GPT-2, the Llama family) as one pass —
// embeddings, then every layer of layer.h with the family's LayerSpec (engine/models/), then the
// decoders' final norm — filling the ForwardResult: the attention probabilities written straight
// into it (no copy), the optional outputs (Q/K/V, hidden states, value norms, trace) only when
// asked for. extend() runs a decoder's new positions over a KvCache.
#include "transformer.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "buffer_size.h"
#include "build_features.h"
#include "error.h"
#include "half.h"
#include "kernels/activation.h"
#include "kernels/layer_norm.h"
#include "kernels/linear.h"
#include "layer.h"
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

// Where a traced layer's steps go in LayerTrace: the attention's and feed-forward's, and for
// rotary positions the projections before and after the rotation and the heads' context (the
// Llama walk-through shows them); a gated feed-forward's gate, activated gate and up projection.
LayerTraceSlots trace_slots(LayerTrace* t, const LayerSpec& spec) {
  LayerTraceSlots s;
  if (!t) return s;
  s.self = {&t->attention_input_norm, &t->attention_output, &t->attention_residual, &t->attention_norm};
  if (spec.positions == Positions::Rotary) {
    s.self.q = &t->q_projection, s.self.k = &t->k_projection, s.self.v = &t->v_projection;
    s.self.q_norm = &t->q_head_norm, s.self.k_norm = &t->k_head_norm;
    s.self.q_rotated = &t->q_rotated, s.self.k_rotated = &t->k_rotated, s.self.context = &t->attention_context;
  }
  s.ffn.input_norm = &t->ffn_input_norm;
  s.ffn.intermediate = &t->ffn_intermediate;
  s.ffn.output = &t->ffn_output;
  s.ffn.residual = &t->ffn_residual;
  if (spec.ffn == FeedForwardKind::Gated) {
    s.ffn.pre_activation = &t->ffn_gate;
    s.ffn.gate_activated = &t->ffn_gate_activated;
    s.ffn.up = &t->ffn_up;
  } else {
    s.ffn.pre_activation = &t->ffn_pre_activation;
  }
  s.output = &t->output;
  return s;
}

}  // namespace

Transformer::Transformer(ModelConfig config, ModelWeights weights)
    : config_(std::move(config)), weights_(std::move(weights)), family_(&model_family(config_)) {
  // Weights normally come from load_weights(), which already checked every shape; this guards the
  // forward pass against hand-built or mismatched ModelWeights (it indexes them without checks).
  const LayerSpec& spec = family_->layer;
  const size_t C = config_.hidden_size, V = config_.vocab_size;
  // Pre-norm stacks end in a final norm; post-norm ones normalise the embeddings sum instead.
  const bool pre_norm = spec.placement == NormPlacement::Before, layer_norm = spec.norm == NormKind::LayerNorm;
  check_size(weights_.word_emb, V * C, "word embeddings");
  check_size(weights_.pos_emb,
             spec.positions == Positions::Learned ? static_cast<size_t>(config_.max_position_embeddings) * C : 0,
             "position embeddings");
  check_size(weights_.type_emb, static_cast<size_t>(config_.type_vocab_size) * C, "token type embeddings");
  check_size(weights_.ln_emb_g, pre_norm ? 0 : C, "embedding LayerNorm weight");
  check_size(weights_.ln_emb_b, pre_norm ? 0 : C, "embedding LayerNorm bias");
  check_size(weights_.ln_f_g, pre_norm ? C : 0, "final norm weight");
  check_size(weights_.ln_f_b, pre_norm && layer_norm ? C : 0, "final norm bias");
  if (weights_.lm_head.size()) check_size(weights_.lm_head, V * C, "language-model head");
  if (weights_.layers.size() != static_cast<size_t>(config_.num_layers))
    throw Error("E_WEIGHTS", "weights have " + std::to_string(weights_.layers.size()) +
                                 " layers, config says " + std::to_string(config_.num_layers));
  for (size_t l = 0; l < weights_.layers.size(); ++l) check_layer(weights_.layers[l], l);
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
  if (kBuildHasDecoders && spec.positions == Positions::Rotary) rope_inv_freq_ = rope_inverse_frequencies(config_.rope, config_.head_dim());
}

void Transformer::check_layer(const LayerWeights& L, size_t l) const {
  const ModelConfig& c = config_;
  const LayerSpec& spec = family_->layer;
  const LayerBiases biases = family_->biases(c);
  const size_t C = c.hidden_size, F = c.intermediate_size, Q = c.q_width(), KV = c.kv_width(), dh = c.head_dim();
  const bool gated = spec.ffn == FeedForwardKind::Gated, beta = spec.norm == NormKind::LayerNorm;
  const std::string p = "layer " + std::to_string(l) + " ";
  check_size(L.q_w, Q * C, p + "query weight");
  check_size(L.k_w, KV * C, p + "key weight");
  check_size(L.v_w, KV * C, p + "value weight");
  check_size(L.o_w, C * Q, p + "attention output weight");
  check_size(L.q_b, biases.qkv ? Q : 0, p + "query bias");
  check_size(L.k_b, biases.qkv ? KV : 0, p + "key bias");
  check_size(L.v_b, biases.qkv ? KV : 0, p + "value bias");
  check_size(L.o_b, biases.o ? C : 0, p + "attention output bias");
  check_size(L.ln_attn_g, C, p + "attention norm weight");
  check_size(L.ln_attn_b, beta ? C : 0, p + "attention norm bias");
  check_size(L.ln_out_g, C, p + "feed-forward norm weight");
  check_size(L.ln_out_b, beta ? C : 0, p + "feed-forward norm bias");
  check_size(L.q_norm_g, c.qk_norm ? dh : 0, p + "q_norm weight");
  check_size(L.k_norm_g, c.qk_norm ? dh : 0, p + "k_norm weight");
  check_size(L.ff_g_w, gated ? F * C : 0, p + "feed-forward gate weight");
  check_size(L.ff_i_w, F * C, p + "feed-forward input weight");
  check_size(L.ff_o_w, C * F, p + "feed-forward output weight");
  check_size(L.ff_g_b, gated && biases.mlp ? F : 0, p + "feed-forward gate bias");
  check_size(L.ff_i_b, biases.mlp ? F : 0, p + "feed-forward input bias");
  check_size(L.ff_o_b, biases.mlp ? C : 0, p + "feed-forward output bias");
}

std::vector<std::pair<std::string, const LayerNormParams*>> Transformer::layer_norms() const {
  std::vector<std::pair<std::string, const LayerNormParams*>> out;
  if (!ln_embeddings_.gamma.empty()) out.emplace_back("embeddings", &ln_embeddings_);
  for (size_t l = 0; l < layers_.size(); ++l) {
    const AttentionWeights& attention = layers_[l].self;
    out.emplace_back("layers." + std::to_string(l) + ".attention", &attention.norm);
    out.emplace_back("layers." + std::to_string(l) + ".ffn", &layers_[l].ffn.norm);
    if (!attention.q_norm.gamma.empty()) {  // Qwen3's per-head RMSNorms (dh values each)
      out.emplace_back("layers." + std::to_string(l) + ".q_norm", &attention.q_norm);
      out.emplace_back("layers." + std::to_string(l) + ".k_norm", &attention.k_norm);
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

void Transformer::prepare(ForwardResult& res, const ForwardOptions& options, int T, int keys,
                          const std::vector<float>* key_bias) const {
  const ModelConfig& cfg = config_;
  const int L = cfg.num_layers, H = cfg.num_heads, C = cfg.hidden_size, F = cfg.intermediate_size;
  const HeadLayout layout{H, cfg.kv_heads(), cfg.head_dim()};
  const bool has_key_bias = key_bias && !key_bias->empty();
  // Maps on demand (forward() only: extend() and forward_from_layer() pass no key_bias and keep
  // theirs eagerly); the sources' size is then checked instead of the maps' (which may not fit).
  const bool on_demand =
      options.attentions && key_bias &&
      maps_on_demand(options.maps, static_cast<size_t>(L) * H * T * keys * sizeof(float),
                     AttentionSources::bytes_for(L, T, keys, layout, has_key_bias, false),
                     options.hooks && !options.hooks->empty());
  // Every buffer of the run sized in 64 bits before any is allocated (buffer_size.h); those of
  // run_layers' scratch too, so a run that cannot fit fails here with nothing changed.
  const size_t maps = on_demand ? 0 : buffer_elements({L, H, T, keys}, "the attention maps");
  if (on_demand) buffer_elements({L, T, cfg.q_width()}, "the attention maps' queries");
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
  if (on_demand) std::vector<float>().swap(res.attentions);  // an earlier eager run's memory goes back
  if (on_demand) {
    AttentionMask mask{has_key_bias ? key_bias->data() : nullptr, cfg.is_decoder()};
    res.attention_sources.prepare(L, T, keys, layout, mask);
  } else {
    res.attention_sources.clear();
  }
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
  const std::vector<float> key_bias = key_bias_of(attention_mask);
  prepare(res, options, T, T, &key_bias);

  float* x = res.hidden_out.data();  // the running hidden state ends as the output
  const int32_t* types = token_types.empty() ? nullptr : token_types.data();
  const std::vector<int32_t> positions = family_->position_ids(config_, ids, 0);
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
  if (!ln_embeddings_.gamma.empty())  // post-norm stacks normalise the embeddings sum
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
  if (!kBuildHasDecoders || !cfg.is_decoder())  // the encoder build has no decoders
    bad_input("only decoders run incrementally: " + cfg.model_type + " sees every token at once");
  if (ids.empty()) bad_input("no tokens: a step needs at least one token id");
  const int T = static_cast<int>(ids.size()), first = cache.length, keys = first + T;
  if (keys > cfg.max_tokens())
    bad_input(std::to_string(first) + " positions so far plus " + std::to_string(T) +
              " new ones is more than the model's " + std::to_string(cfg.max_tokens()) + " positions (" +
              cfg.position_limit_key() + ")");
  check_input(ids, {}, {});
  const int L = cfg.num_layers, C = cfg.hidden_size, KV = cfg.kv_width();

  reserve_kv_cache(cache, L, keys, KV, cfg.max_tokens());

  ForwardOptions options;  // attentions only
  options.hooks = hooks;
  prepare(res, options, T, keys);
  float* x = res.hidden_out.data();
  const std::vector<int32_t> positions = family_->position_ids(config_, ids, first);
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

  const LayerSpec& spec = family_->layer;
  for (auto* buffer : {&a.q, &a.ctx}) buffer->resize(static_cast<size_t>(T) * cfg.q_width());
  a.sum.resize(TC);
  a.ln.resize(spec.placement == NormPlacement::Before ? TC : 0);
  a.ff.resize(static_cast<size_t>(T) * F);
  a.gate.resize(spec.ffn == FeedForwardKind::Gated ? static_cast<size_t>(T) * F : 0);
  if (kBuildHasDecoders && spec.positions == Positions::Rotary) rope_angles(a.rope_cos, a.rope_sin, rope_inv_freq_, first_position, T);
  const bool on_demand = !res.attention_sources.empty();
  a.probs.resize(options.attentions || on_demand ? 0 : layer_probs);
  a.head_out.resize(options.value_norms ? TC : 0);
  a.sublayer.resize(options.hooks && !options.hooks->empty() ? TC : 0);
  if (options.hidden_states) std::copy_n(x, TC, res.hidden_states.begin());

  AttentionMask mask{key_bias, decoder};
  if (options.trace) res.trace.layers.resize(L);
  LayerPass pass{spec, act, eps, HookStack::Model, options.hooks, T, first_position, a, x};
  if (on_demand) pass.self_sources = &res.attention_sources;
  for (int l = first_layer; l < L; ++l) {
    mask.head_mask = options.head_mask.empty() ? nullptr : options.head_mask.data() + static_cast<size_t>(l) * H;
    float* probs = on_demand ? nullptr : options.attentions ? res.attentions.data() + l * layer_probs : a.probs.data();
    float* k = kv.k + l * kv.layer_stride;
    float* v = kv.v + l * kv.layer_stride;
    pass.layer = l;
    pass.run(layers_[l], KeysValues::self(k, v, keys, T, cfg.kv_width()), probs, mask, nullptr, nullptr, {},
             trace_slots(options.trace ? &res.trace.layers[l] : nullptr, spec), "layer");
    record_attention(l, T, k, v, options, res, a);
    if (options.hidden_states) std::copy_n(x, TC, res.hidden_states.begin() + static_cast<size_t>(l + 1) * TC);
  }
  if (spec.placement == NormPlacement::Before) {  // a pre-norm stack's output is normalised once more
    final_norm_forward(x, x, T);
    if (options.trace) res.trace.final_norm.assign(x, x + TC);
    // Hugging Face's last hidden_states entry is after the final norm.
    if (options.hidden_states) std::copy_n(x, TC, res.hidden_states.begin() + static_cast<size_t>(L) * TC);
  }
}

void Transformer::final_norm_forward(float* out, const float* inp, int T) const {
  if (ln_final_.gamma.empty()) throw Error("E_INTERNAL", "final_norm_forward: a post-norm stack has no final norm");
  const int C = config_.hidden_size;
  const float eps = static_cast<float>(config_.layer_norm_eps);
  if (kBuildHasDecoders && family_->layer.norm == NormKind::RmsNorm)  // the encoder build: BERT's LayerNorm
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
    value_norms_forward(res.value_norms.data() + static_cast<size_t>(l) * H * T, a.head_out.data(), v, layers_[l].self,
                        T);
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
    throw Error("E_WEIGHTS", "this checkpoint has no masked-LM head (its file holds no output-head tensors)");
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
