// The encoder–decoder passes of seq2seq.h: each stack embeds its tokens as its family does, runs
// the one layer of layer.h over them (the decoder's with a cross-attention over the encoder's
// keys and values, computed once per source) and, pre-norm, a final norm. Each attention keeps its
// probabilities: the encoder's, the decoder's causal ones (exact zeros above the diagonal, from
// −∞ scores) and the cross-attention's over the source.
#include "seq2seq.h"

#include <algorithm>
#include <cmath>

#include "buffer_size.h"
#include "error.h"
#include "half.h"
#include "relative_position.h"

namespace attnscope {

namespace {

[[noreturn]] void bad_input(const std::string& message) { throw Error("E_INPUT", message); }

// E_INPUT unless `mask` is empty or layers × heads finite values.
void check_head_mask(const std::vector<float>& mask, int layers, int heads, const char* name) {
  if (mask.empty()) return;
  if (mask.size() != static_cast<size_t>(layers) * heads)
    throw Error("E_INPUT", std::string(name) + " has " + std::to_string(mask.size()) + " values for " +
                               std::to_string(layers) + " layers × " + std::to_string(heads) + " heads");
  for (size_t i = 0; i < mask.size(); ++i)
    if (!std::isfinite(mask[i]))
      throw Error("E_INPUT", std::string(name) + " value for layer " + std::to_string(i / heads) + " head " +
                                 std::to_string(i % heads) + " is not a finite number");
}

// Where a traced layer's steps go in Seq2SeqLayerTrace (a gated feed-forward's pre-activation is
// its gate's).
LayerTraceSlots trace_slots(Seq2SeqLayerTrace* t) {
  LayerTraceSlots s;
  if (!t) return s;
  s.self = {&t->self_attention_input_norm, &t->self_attention_output, &t->self_attention_residual,
            &t->self_attention_norm};
  s.cross = {&t->cross_attention_input_norm, &t->cross_attention_output, &t->cross_attention_residual,
             &t->cross_attention_norm};
  s.ffn.input_norm = &t->ffn_input_norm;
  s.ffn.pre_activation = &t->ffn_pre_activation;
  s.ffn.intermediate = &t->ffn_intermediate;
  s.ffn.output = &t->ffn_output;
  s.ffn.residual = &t->ffn_residual;
  s.output = &t->output;
  return s;
}

// One stack's scratch for T positions: `width` the heads' concatenated width, F its feed-forward's.
void size_activations(Activations& a, const LayerSpec& spec, int T, int C, int width, int F, const Hooks* hooks) {
  const size_t TC = static_cast<size_t>(T) * C;
  a.ln.resize(TC);
  a.sum.resize(TC);
  for (auto* b : {&a.q, &a.ctx}) b->resize(static_cast<size_t>(T) * width);
  a.ff.resize(static_cast<size_t>(T) * F);
  a.gate.resize(spec.ffn == FeedForwardKind::Gated ? static_cast<size_t>(T) * F : 0);
  a.sublayer.resize(hooks && !hooks->empty() ? TC : 0);
}

// The relative position bias of a stack's self-attention (H, 2·keys − 1; see AttentionMask) when
// its family's positions are relative; empty otherwise.
std::vector<float> position_bias(const Seq2SeqConfig& c, const LayerSpec& spec, const Seq2SeqStack& stack, int H,
                                 int keys, bool bidirectional) {
  if (spec.positions != Positions::RelativeBias) return {};
  return relative_position_bias(stack.relative_bias, H, keys, bidirectional, c.num_buckets, c.max_distance);
}

AttentionMask sublayer_mask(const LayerSpec& spec, bool causal, const std::vector<float>& bias) {
  AttentionMask mask;
  mask.causal = causal;
  mask.scale = spec.scale;
  mask.relative_bias = bias.empty() ? nullptr : bias.data();
  return mask;
}

const float* layer_head_mask(const std::vector<float>& mask, int l, int H) {
  return mask.empty() ? nullptr : mask.data() + static_cast<size_t>(l) * H;
}

}  // namespace

void scaled_token_embeddings(float* x, const WeightMatrix& shared, const std::vector<int32_t>& ids, int C,
                             float scale) {
  for (size_t t = 0; t < ids.size(); ++t) {
    float* row = x + t * C;
    const size_t at = static_cast<size_t>(ids[t]) * C;
    if (shared.is_f16()) f16_to_f32(row, shared.f16.data() + at, C);
    else std::copy_n(shared.f32.data() + at, C, row);
    for (int c = 0; c < C; ++c) row[c] *= scale;
  }
}

Seq2Seq::Seq2Seq(Seq2SeqConfig config, Seq2SeqWeights weights)
    : config_(std::move(config)), weights_(std::move(weights)), family_(&seq2seq_family(config_)) {
  if (weights_.shared.size() != static_cast<size_t>(config_.vocab_size) * config_.d_model ||
      static_cast<int>(weights_.encoder.layers.size()) != config_.encoder_layers ||
      static_cast<int>(weights_.decoder.layers.size()) != config_.decoder_layers)
    throw Error("E_WEIGHTS", "the weights do not match config.json's vocabulary, width or layer counts");
}

void Seq2Seq::check_ids(const std::vector<int32_t>& ids, int first, const char* what) const {
  if (ids.empty()) bad_input(std::string("no ") + what + " tokens: the pass needs at least one token id");
  const int limit = config_.max_tokens();
  if (ids.size() > static_cast<size_t>(limit - first))
    bad_input(std::to_string(first) + " + " + std::to_string(ids.size()) + " " + what +
              " positions is more than the model's " + std::to_string(limit) + family_->position_limit);
  for (size_t t = 0; t < ids.size(); ++t)
    if (ids[t] < 0 || ids[t] >= config_.vocab_size)
      bad_input(std::string(what) + " token id " + std::to_string(ids[t]) + " at position " + std::to_string(t) +
                " is out of vocab range [0, " + std::to_string(config_.vocab_size) + ")");
}

EncoderOutput Seq2Seq::encode(const std::vector<int32_t>& source, const Seq2SeqRunOptions& options) const {
  check_ids(source, 0, "source");
  const Seq2SeqConfig& c = config_;
  const LayerSpec& spec = family_->layer;
  const int S = static_cast<int>(source.size()), C = c.d_model, H = c.encoder_heads, L = c.encoder_layers;
  const int W = H * c.encoder_head_dim();
  check_head_mask(options.head_mask, L, H, "head_mask");
  const size_t SC = static_cast<size_t>(S) * C, SW = static_cast<size_t>(S) * W;
  // Every buffer sized in 64 bits before any is allocated (buffer_size.h).
  const HeadLayout layout{H, H, c.encoder_head_dim()};
  const bool relative = spec.positions == Positions::RelativeBias;
  const bool on_demand = maps_on_demand(options.maps, static_cast<size_t>(L) * H * S * S * sizeof(float),
                                        AttentionSources::bytes_for(L, S, S, layout, false, relative),
                                        options.hooks && !options.hooks->empty());
  const size_t maps = on_demand ? 0 : buffer_elements({L, H, S, S}, "the encoder's attention maps");
  buffer_elements({S, std::max({C, W, std::max(c.encoder_ffn, c.decoder_ffn), c.decoder_heads * c.decoder_head_dim()})},
                  "the encoder's activations");
  EncoderOutput out;
  out.source_len = S;
  out.hidden.resize(SC);
  out.attentions.resize(maps);
  float* x = out.hidden.data();
  family_->embed(x, c, weights_.shared, weights_.encoder, source, 0);
  if (options.trace) {
    out.trace.embeddings.assign(x, x + SC);
    out.trace.layers.resize(L);
  }
  const std::vector<float> bias = position_bias(c, spec, weights_.encoder, H, S, true);
  AttentionMask mask = sublayer_mask(spec, false, bias);
  Activations a;
  size_activations(a, spec, S, C, W, c.encoder_ffn, options.hooks);
  std::vector<float> k(SW), v(SW);
  LayerPass pass{spec, activation_for(c.activation), static_cast<float>(c.eps), HookStack::Encoder, options.hooks,
                 S, 0, a, x};
  if (on_demand) {
    out.attention_sources.prepare(L, S, S, layout, mask);
    pass.self_sources = &out.attention_sources;
  }
  for (int l = 0; l < L; ++l) {
    pass.layer = l;
    mask.head_mask = layer_head_mask(options.head_mask, l, H);
    pass.run(weights_.encoder.layers[l], KeysValues::self(k.data(), v.data(), S, S, W),
             on_demand ? nullptr : out.attentions.data() + static_cast<size_t>(l) * H * S * S, mask, nullptr, nullptr, {},
             trace_slots(options.trace ? &out.trace.layers[l] : nullptr), "encoder layer");
  }
  if (spec.placement == NormPlacement::Before) {
    pass.norm(x, x, weights_.encoder.final_norm);
    if (options.trace) out.trace.final_norm.assign(x, x + SC);
  }
  // Every decoder layer's cross keys and values over this source, once.
  const size_t DW = static_cast<size_t>(S) * c.decoder_heads * c.decoder_head_dim();
  out.cross_k.resize(c.decoder_layers);
  out.cross_v.resize(c.decoder_layers);
  for (int l = 0; l < c.decoder_layers; ++l) {
    const AttentionWeights& cross = weights_.decoder.layers[l].cross;
    out.cross_k[l].resize(DW);
    out.cross_v[l].resize(DW);
    linear_forward(out.cross_k[l].data(), x, cross.k, S);
    linear_forward(out.cross_v[l].data(), x, cross.v, S);
  }
  return out;
}

DecoderOutput Seq2Seq::decode(const std::vector<int32_t>& ids, const EncoderOutput& enc, KvCache& cache,
                              const Seq2SeqRunOptions& options) const {
  const Seq2SeqConfig& c = config_;
  const LayerSpec& spec = family_->layer;
  check_ids(ids, cache.length, "target");
  const int L = c.decoder_layers, H = c.decoder_heads, C = c.d_model, S = enc.source_len;
  const int W = H * c.decoder_head_dim();
  check_head_mask(options.decoder_head_mask, L, H, "decoder_head_mask");
  check_head_mask(options.cross_attn_head_mask, L, H, "cross_attn_head_mask");
  if (S <= 0 || static_cast<int>(enc.cross_k.size()) != L || enc.hidden.size() != static_cast<size_t>(S) * C)
    bad_input("the encoder output is not this model's (run encode() on the source first)");
  const int T = static_cast<int>(ids.size()), first = cache.length, keys = first + T;
  const size_t TC = static_cast<size_t>(T) * C;
  // Every buffer sized in 64 bits before any is allocated (buffer_size.h).
  const HeadLayout layout{H, H, c.decoder_head_dim()};
  const bool relative = spec.positions == Positions::RelativeBias;
  const bool on_demand =
      maps_on_demand(options.maps, static_cast<size_t>(L) * H * T * (static_cast<size_t>(keys) + S) * sizeof(float),
                     AttentionSources::bytes_for(L, T, keys, layout, false, relative) +
                         AttentionSources::bytes_for(L, T, S, layout, false, false),
                     options.hooks && !options.hooks->empty());
  const size_t self_maps = on_demand ? 0 : buffer_elements({L, H, T, keys}, "the decoder's attention maps");
  const size_t cross_maps = on_demand ? 0 : buffer_elements({L, H, T, S}, "the cross-attention maps");
  buffer_elements({T, std::max({C, W, c.decoder_ffn})}, "the decoder's activations");
  reserve_kv_cache(cache, L, keys, W, c.max_tokens());

  DecoderOutput out;
  out.tokens = T;
  out.keys = keys;
  out.source_len = S;
  out.hidden.resize(TC);
  out.self_attentions.resize(self_maps);
  out.cross_attentions.resize(cross_maps);
  float* x = out.hidden.data();
  family_->embed(x, c, weights_.shared, weights_.decoder, ids, first);
  if (options.trace) {
    out.trace.embeddings.assign(x, x + TC);
    out.trace.layers.resize(L);
  }
  const std::vector<float> bias = position_bias(c, spec, weights_.decoder, H, keys, false);
  AttentionMask self_mask = sublayer_mask(spec, true, bias), cross_mask = sublayer_mask(spec, false, {});
  Activations a;
  size_activations(a, spec, T, C, W, c.decoder_ffn, options.hooks);
  LayerPass pass{spec, activation_for(c.activation), static_cast<float>(c.eps), HookStack::Decoder, options.hooks,
                 T, first, a, x};
  if (on_demand) {
    out.self_sources.prepare(L, T, keys, layout, self_mask);
    out.cross_sources.prepare(L, T, S, layout, cross_mask);
    pass.self_sources = &out.self_sources;
    pass.cross_sources = &out.cross_sources;
  }
  for (int l = 0; l < L; ++l) {
    pass.layer = l;
    self_mask.head_mask = layer_head_mask(options.decoder_head_mask, l, H);
    cross_mask.head_mask = layer_head_mask(options.cross_attn_head_mask, l, H);
    const KeysValues cross = KeysValues::other(enc.cross_k[l].data(), enc.cross_v[l].data(), S);
    pass.run(weights_.decoder.layers[l], KeysValues::self(cache.k_layer(l, W), cache.v_layer(l, W), keys, T, W),
             on_demand ? nullptr : out.self_attentions.data() + static_cast<size_t>(l) * H * T * keys, self_mask,
             &cross, on_demand ? nullptr : out.cross_attentions.data() + static_cast<size_t>(l) * H * T * S, cross_mask,
             trace_slots(options.trace ? &out.trace.layers[l] : nullptr), "decoder layer");
  }
  if (spec.placement == NormPlacement::Before) {
    pass.norm(x, x, weights_.decoder.final_norm);
    if (options.trace) out.trace.final_norm.assign(x, x + TC);
  }
  cache.length = keys;
  return out;
}

std::vector<float> Seq2Seq::logits(const float* hidden, int rows) const {
  const int C = config_.d_model, V = config_.vocab_size;
  if (rows <= 0) bad_input("logits: needs at least one hidden state row");
  std::vector<float> out(buffer_elements({rows, V}, "the vocabulary logits"));
  std::vector<float> h(hidden, hidden + static_cast<size_t>(rows) * C);
  const float scale = head_input_scale();
  if (scale != 1.0f)
    for (float& value : h) value *= scale;
  const WeightMatrix& head = unembedding();
  const float* bias = weights_.final_logits_bias.empty() ? nullptr : weights_.final_logits_bias.data();
  vocabulary_logits(out.data(), h.data(), head, bias, rows, C, V);
  return out;
}

float Seq2Seq::head_input_scale() const {
  const bool rescaled = config_.tie_word_embeddings && family_->rescales_tied_head;
  return rescaled ? 1.0f / std::sqrt(static_cast<float>(config_.d_model)) : 1.0f;
}

}  // namespace attnscope
