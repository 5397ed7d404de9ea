// The encoder–decoder forward passes of seq2seq.h, composed from the kernels the encoder and
// decoder families use (packed linear layers with fused epilogues, LayerNorm, RMSNorm, softmax).
// Each attention keeps its probabilities: the encoder's, the decoder's causal ones (exact zeros
// above the diagonal, from −∞ scores) and the cross-attention's over the source.
#include "seq2seq.h"

#include <algorithm>
#include <cmath>

#include "buffer_size.h"
#include "error.h"
#include "half.h"
#include "kernels/layer_norm.h"
#include "kernels/rms_norm.h"
#include "relative_position.h"

namespace attnscope {

namespace {

[[noreturn]] void bad_input(const std::string& message) { throw Error("E_INPUT", message); }

// One stack's attention as the shared kernel reads it: its head layout (every head its own key/value
// head) and the factor on q·k (BART, Marian: 0, the usual 1/√dh; T5 folds it into its weights: 1).
struct StackShape {
  HeadLayout layout;
  float scale;
  int inner() const { return layout.q_width(); }
};

// The norm of a sublayer: LayerNorm (β present) or T5's RMSNorm.
void norm(float* out, const float* x, const LayerNormParams& n, int T, int C, float eps) {
  if (n.beta.empty()) kernels::rms_norm_f32(out, x, n.gamma.data(), T, C, eps);
  else kernels::layer_norm_f32(out, x, n.gamma.data(), n.beta.data(), T, C, eps);
}

// T5's relative position bias for `keys` keys, per head by the key's offset from the query
// (H, 2·keys − 1; see AttentionMask) from the stack's (buckets, H) table; empty for the other
// families.
std::vector<float> position_bias(const Seq2SeqConfig& c, const std::vector<float>& table, int H, int keys,
                                 bool bidirectional) {
  std::vector<float> bias;
  if (table.empty()) return bias;
  const size_t offsets = 2 * static_cast<size_t>(keys) - 1;
  bias.resize(buffer_elements({H, 2 * int64_t{keys} - 1}, "T5's relative position bias"));
  for (size_t o = 0; o < offsets; ++o) {
    const int b = relative_position_bucket(static_cast<int>(o) - (keys - 1), bidirectional, c.num_buckets,
                                           c.max_distance);
    for (int h = 0; h < H; ++h) bias[static_cast<size_t>(h) * offsets + o] = table[static_cast<size_t>(b) * H + h];
  }
  return bias;
}

// The attention mask of one sublayer: causal or not, T5's relative bias or none, the stack's scale.
AttentionMask sublayer_mask(const StackShape& shape, bool causal, const std::vector<float>* bias) {
  AttentionMask mask;
  mask.causal = causal;
  mask.scale = shape.scale;
  mask.relative_bias = bias && !bias->empty() ? bias->data() : nullptr;
  return mask;
}

// Scratch of one stack pass.
struct Scratch {
  std::vector<float> normed, q, ctx, sum, ff, gate, sublayer;
};

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

// Where a traced attention sublayer's steps go.
struct SublayerTrace {
  std::vector<float>*input_norm, *output, *residual, *norm;
};
SublayerTrace self_trace(Seq2SeqLayerTrace* t) {
  if (!t) return {};
  return {&t->self_attention_input_norm, &t->self_attention_output, &t->self_attention_residual, &t->self_attention_norm};
}
SublayerTrace cross_trace(Seq2SeqLayerTrace* t) {
  if (!t) return {};
  return {&t->cross_attention_input_norm, &t->cross_attention_output, &t->cross_attention_residual,
          &t->cross_attention_norm};
}

// One stack's pass over T positions (the encoder's, or the decoder's new ones): the sublayers every
// layer of both stacks is made of, pre-norm (T5) or post-norm (BART, Marian), with the trace's and
// the hooks' points.
struct StackPass {
  const Seq2SeqConfig& c;
  StackShape shape;
  HookStack stack;
  const Hooks* hooks;
  int T, first_position;
  Scratch& s;
  float* x;  // (T, C): the running hidden state
  int layer = 0;

  int C() const { return c.d_model; }
  size_t TC() const { return static_cast<size_t>(T) * c.d_model; }
  float eps() const { return static_cast<float>(c.eps); }
  bool on(HookSite site) const { return hooked(hooks, stack, site, layer); }
  void fire(HookSite site, float* data, int rows, int width) const {
    if (on(site)) hooks->fire(stack, site, layer, {data, rows, width, first_position});
  }
  static void keep(std::vector<float>* to, const float* from, size_t n) {
    if (to) to->assign(from, from + n);
  }

  // out = y + residual where y = in · W (+ b) is also stored (and offered to the hook at `site`)
  // when traced or hooked; else fused into the GEMM's store (the same sum: it adds the residual
  // last too).
  void project_add(float* out, const float* in, const LinearLayer& w, const float* residual, HookSite site,
                   std::vector<float>* traced) {
    if (!traced && !on(site)) {
      kernels::LinearEpilogue add;
      add.residual = residual;
      return linear_forward(out, in, w, T, add);
    }
    float* y = traced ? (traced->resize(TC()), traced->data()) : (s.sublayer.resize(TC()), s.sublayer.data());
    linear_forward(y, in, w, T);
    fire(site, y, T, C());
    for (size_t i = 0; i < TC(); ++i) out[i] = y[i] + residual[i];
  }

  // x ← x + Attention(N(x)) (pre-norm) or x ← N(x + Attention(x)) (post-norm); keys and values
  // from k, v (key_count rows), the new positions' projected into k_new, v_new (null: cross).
  void attention(const Seq2SeqAttention& a, const float* k, const float* v, int key_count, float* probs,
                 const AttentionMask& mask, float* k_new, float* v_new, bool cross, const SublayerTrace& tr) {
    const float* in = x;
    if (c.pre_norm()) {
      norm(s.normed.data(), x, a.norm, T, C(), eps()), in = s.normed.data();
      keep(tr.input_norm, in, TC());
    }
    linear_forward(s.q.data(), in, a.q, T);
    if (k_new) {  // self-attention: the cross-attention's keys and values are the encoder's, made once
      linear_forward(k_new, in, a.k, T);
      linear_forward(v_new, in, a.v, T);
      fire(HookSite::Q, s.q.data(), T, shape.inner());
      fire(HookSite::K, k_new, T, shape.inner());
      fire(HookSite::V, v_new, T, shape.inner());
    }
    attention_heads_forward(s.ctx.data(), probs, s.q.data(), k, v, shape.layout, mask, T, key_count);
    const HookSite pattern = cross ? HookSite::CrossPattern : HookSite::Pattern;
    if (on(pattern)) {
      fire(pattern, probs, shape.layout.heads * T, key_count);
      if (hooks->writes(stack, pattern, layer))
        attention_context_forward(s.ctx.data(), probs, v, shape.layout, mask.head_mask, T, key_count);
    }
    fire(cross ? HookSite::CrossZ : HookSite::Z, s.ctx.data(), T, shape.inner());
    project_add(s.sum.data(), s.ctx.data(), a.o, x, cross ? HookSite::CrossAttnOut : HookSite::AttnOut, tr.output);
    fire(cross ? HookSite::ResidMidCross : HookSite::ResidMid, s.sum.data(), T, C());
    keep(tr.residual, s.sum.data(), TC());
    if (c.pre_norm()) {
      std::copy_n(s.sum.data(), TC(), x);
    } else {
      norm(x, s.sum.data(), a.norm, T, C(), eps());
      keep(tr.norm, x, TC());
    }
  }

  // x ← x + FFN(N(x)) or x ← N(x + FFN(x)); T5's gated form act(x' W_gate) · x' W_in.
  void feed_forward(const Seq2SeqLayer& y, Seq2SeqLayerTrace* lt) {
    const float* in = x;
    if (c.pre_norm()) {
      norm(s.normed.data(), x, y.ffn_norm, T, C(), eps());
      in = s.normed.data();
      keep(lt ? &lt->ffn_input_norm : nullptr, in, TC());
    }
    const size_t TF = static_cast<size_t>(T) * y.ff_in.out;
    if (lt) {  // before the activation (and the gate's product): the GEMM again without its epilogue
      lt->ffn_pre_activation.resize(TF);
      linear_forward(lt->ffn_pre_activation.data(), in, c.gated_ffn ? y.ff_gate : y.ff_in, T);
    }
    s.ff.resize(TF);
    kernels::LinearEpilogue activated;
    activated.activate = true;
    activated.activation = activation_for(c.activation);
    if (c.gated_ffn) {
      s.gate.resize(TF);
      linear_forward(s.gate.data(), in, y.ff_gate, T, activated);
      linear_forward(s.ff.data(), in, y.ff_in, T);
      kernels::multiply_f32(s.ff.data(), s.gate.data(), TF);
    } else {
      linear_forward(s.ff.data(), in, y.ff_in, T, activated);
    }
    keep(lt ? &lt->ffn_intermediate : nullptr, s.ff.data(), TF);
    // The residual is the sublayer's input before its norm: x (kept aside in sum when pre-norm, as
    // the sum is written over x).
    float* out = c.pre_norm() ? x : s.sum.data();
    const float* residual = x;
    if (c.pre_norm()) {
      std::copy_n(x, TC(), s.sum.data());
      residual = s.sum.data();
    }
    project_add(out, s.ff.data(), y.ff_out, residual, HookSite::MlpOut, lt ? &lt->ffn_output : nullptr);
    keep(lt ? &lt->ffn_residual : nullptr, out, TC());
    if (!c.pre_norm()) norm(x, s.sum.data(), y.ffn_norm, T, C(), eps());
  }

  // The feed-forward that ends a layer, then the layer's output: hooked, traced and checked.
  void finish_layer(const Seq2SeqLayer& y, Seq2SeqLayerTrace* lt, const char* name) {
    feed_forward(y, lt);
    fire(HookSite::ResidPost, x, T, C());
    keep(lt ? &lt->output : nullptr, x, TC());
    check_layer_output(x, T, C(), name, layer);
  }

  // T5's final norm of the stack's output (the post-LN families have none).
  void final_norm(const LayerNormParams& n, Seq2SeqStackTrace& trace, bool traced) {
    if (!c.pre_norm()) return;
    norm(x, x, n, T, C(), eps());
    if (traced) trace.final_norm.assign(x, x + TC());
  }
};

}  // namespace

Seq2Seq::Seq2Seq(Seq2SeqConfig config, Seq2SeqWeights weights)
    : config_(std::move(config)), weights_(std::move(weights)) {
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
              " positions is more than the model's " + std::to_string(limit) +
              (config_.family == Seq2SeqFamily::T5 ? "" : " (max_position_embeddings)"));
  for (size_t t = 0; t < ids.size(); ++t)
    if (ids[t] < 0 || ids[t] >= config_.vocab_size)
      bad_input(std::string(what) + " token id " + std::to_string(ids[t]) + " at position " + std::to_string(t) +
                " is out of vocab range [0, " + std::to_string(config_.vocab_size) + ")");
}

void Seq2Seq::embed(float* x, const Seq2SeqStack& stack, const std::vector<int32_t>& ids, int first) const {
  const int C = config_.d_model, T = static_cast<int>(ids.size());
  const float scale = config_.scale_embedding ? std::sqrt(static_cast<float>(C)) : 1.0f;
  // BART's learned positions start at row 2 (BartLearnedPositionalEmbedding's offset).
  const int offset = config_.family == Seq2SeqFamily::Bart ? 2 : 0;
  for (int t = 0; t < T; ++t) {
    float* row = x + static_cast<size_t>(t) * C;
    const size_t at = static_cast<size_t>(ids[t]) * C;
    if (weights_.shared.is_f16()) f16_to_f32(row, weights_.shared.f16.data() + at, C);
    else std::copy_n(weights_.shared.f32.data() + at, C, row);
    for (int c = 0; c < C; ++c) row[c] *= scale;
    if (!stack.positions.empty()) {
      const float* p = stack.positions.data() + static_cast<size_t>(first + t + offset) * C;
      for (int c = 0; c < C; ++c) row[c] += p[c];
    }
  }
  if (!stack.embedding_norm.gamma.empty()) norm(x, x, stack.embedding_norm, T, C, static_cast<float>(config_.eps));
}

EncoderOutput Seq2Seq::encode(const std::vector<int32_t>& source, const Seq2SeqRunOptions& options) const {
  check_ids(source, 0, "source");
  const Seq2SeqConfig& c = config_;
  const int S = static_cast<int>(source.size()), C = c.d_model, H = c.encoder_heads, L = c.encoder_layers;
  check_head_mask(options.head_mask, L, H, "head_mask");
  const StackShape shape{{H, H, c.encoder_head_dim()}, c.pre_norm() ? 1.0f : 0.0f};
  const size_t SC = static_cast<size_t>(S) * C, SW = static_cast<size_t>(S) * shape.inner();
  // Every buffer sized in 64 bits before any is allocated (buffer_size.h).
  const size_t maps = buffer_elements({L, H, S, S}, "the encoder's attention maps");
  buffer_elements({S, std::max({C, shape.inner(), std::max(c.encoder_ffn, c.decoder_ffn), c.decoder_heads * c.decoder_head_dim()})},
                  "the encoder's activations");
  EncoderOutput out;
  out.source_len = S;
  out.hidden.resize(SC);
  out.attentions.resize(maps);
  float* x = out.hidden.data();
  embed(x, weights_.encoder, source, 0);
  if (options.trace) {
    out.trace.embeddings.assign(x, x + SC);
    out.trace.layers.resize(L);
  }
  const std::vector<float> bias = position_bias(c, weights_.encoder.relative_bias, H, S, true);
  AttentionMask mask = sublayer_mask(shape, false, &bias);
  Scratch s;
  s.normed.resize(SC);
  s.sum.resize(SC);
  for (auto* b : {&s.q, &s.ctx}) b->resize(SW);
  std::vector<float> k(SW), v(SW);
  StackPass pass{c, shape, HookStack::Encoder, options.hooks, S, 0, s, x};
  for (int l = 0; l < L; ++l) {
    const Seq2SeqLayer& y = weights_.encoder.layers[l];
    Seq2SeqLayerTrace* lt = options.trace ? &out.trace.layers[l] : nullptr;
    pass.layer = l;
    mask.head_mask = options.head_mask.empty() ? nullptr : options.head_mask.data() + static_cast<size_t>(l) * H;
    pass.fire(HookSite::ResidPre, x, S, C);
    pass.attention(y.self, k.data(), v.data(), S, out.attentions.data() + static_cast<size_t>(l) * H * S * S, mask,
                   k.data(), v.data(), false, self_trace(lt));
    pass.finish_layer(y, lt, "encoder layer");
  }
  pass.final_norm(weights_.encoder.final_norm, out.trace, options.trace);
  // Every decoder layer's cross keys and values over this source, once.
  const size_t DW = static_cast<size_t>(S) * c.decoder_heads * c.decoder_head_dim();
  out.cross_k.resize(c.decoder_layers);
  out.cross_v.resize(c.decoder_layers);
  for (int l = 0; l < c.decoder_layers; ++l) {
    const Seq2SeqAttention& cross = weights_.decoder.layers[l].cross;
    out.cross_k[l].resize(DW);
    out.cross_v[l].resize(DW);
    linear_forward(out.cross_k[l].data(), x, cross.k, S);
    linear_forward(out.cross_v[l].data(), x, cross.v, S);
  }
  return out;
}

DecoderOutput Seq2Seq::decode(const std::vector<int32_t>& ids, const EncoderOutput& enc, DecoderCache& cache,
                              const Seq2SeqRunOptions& options) const {
  const Seq2SeqConfig& c = config_;
  check_ids(ids, cache.length, "target");
  const int L = c.decoder_layers, H = c.decoder_heads, C = c.d_model, S = enc.source_len;
  check_head_mask(options.decoder_head_mask, L, H, "decoder_head_mask");
  check_head_mask(options.cross_attn_head_mask, L, H, "cross_attn_head_mask");
  const StackShape shape{{H, H, c.decoder_head_dim()}, c.pre_norm() ? 1.0f : 0.0f};
  const int W = shape.inner();
  if (S <= 0 || static_cast<int>(enc.cross_k.size()) != L || enc.hidden.size() != static_cast<size_t>(S) * C)
    bad_input("the encoder output is not this model's (run encode() on the source first)");
  const int T = static_cast<int>(ids.size()), first = cache.length, keys = first + T;
  const size_t TC = static_cast<size_t>(T) * C, TW = static_cast<size_t>(T) * W;
  // Every buffer sized in 64 bits before any is allocated (buffer_size.h).
  const size_t self_maps = buffer_elements({L, H, T, keys}, "the decoder's attention maps");
  const size_t cross_maps = buffer_elements({L, H, T, S}, "the cross-attention maps");
  buffer_elements({keys, W}, "the decoder's KV cache");
  buffer_elements({T, std::max({C, W, c.decoder_ffn})}, "the decoder's activations");
  cache.k.resize(L);
  cache.v.resize(L);

  DecoderOutput out;
  out.tokens = T;
  out.keys = keys;
  out.source_len = S;
  out.hidden.resize(TC);
  out.self_attentions.resize(self_maps);
  out.cross_attentions.resize(cross_maps);
  float* x = out.hidden.data();
  embed(x, weights_.decoder, ids, first);
  if (options.trace) {
    out.trace.embeddings.assign(x, x + TC);
    out.trace.layers.resize(L);
  }
  const std::vector<float> bias = position_bias(c, weights_.decoder.relative_bias, H, keys, false);
  AttentionMask self_mask = sublayer_mask(shape, true, &bias), cross_mask = sublayer_mask(shape, false, nullptr);
  Scratch s;
  s.normed.resize(TC);
  s.sum.resize(TC);
  for (auto* b : {&s.q, &s.ctx}) b->resize(TW);
  StackPass pass{c, shape, HookStack::Decoder, options.hooks, T, first, s, x};
  auto layer_mask = [H](const std::vector<float>& mask, int l) {
    return mask.empty() ? nullptr : mask.data() + static_cast<size_t>(l) * H;
  };
  for (int l = 0; l < L; ++l) {
    const Seq2SeqLayer& y = weights_.decoder.layers[l];
    std::vector<float>& k = cache.k[l];
    std::vector<float>& v = cache.v[l];
    k.resize(static_cast<size_t>(keys) * W);
    v.resize(static_cast<size_t>(keys) * W);
    Seq2SeqLayerTrace* lt = options.trace ? &out.trace.layers[l] : nullptr;
    pass.layer = l;
    self_mask.head_mask = layer_mask(options.decoder_head_mask, l);
    cross_mask.head_mask = layer_mask(options.cross_attn_head_mask, l);
    pass.fire(HookSite::ResidPre, x, T, C);
    pass.attention(y.self, k.data(), v.data(), keys, out.self_attentions.data() + static_cast<size_t>(l) * H * T * keys,
                   self_mask, k.data() + static_cast<size_t>(first) * W, v.data() + static_cast<size_t>(first) * W,
                   false, self_trace(lt));
    pass.attention(y.cross, enc.cross_k[l].data(), enc.cross_v[l].data(), S,
                   out.cross_attentions.data() + static_cast<size_t>(l) * H * T * S, cross_mask, nullptr, nullptr, true,
                   cross_trace(lt));
    pass.finish_layer(y, lt, "decoder layer");
  }
  pass.final_norm(weights_.decoder.final_norm, out.trace, options.trace);
  cache.length = keys;
  return out;
}

std::vector<float> Seq2Seq::logits(const float* hidden, int rows) const {
  const int C = config_.d_model, V = config_.vocab_size;
  if (rows <= 0) bad_input("logits: needs at least one hidden state row");
  std::vector<float> out(buffer_elements({rows, V}, "the vocabulary logits"));
  const bool tied = config_.tie_word_embeddings;
  std::vector<float> h(hidden, hidden + static_cast<size_t>(rows) * C);
  // T5ForConditionalGeneration rescales before a tied head (Mesh TensorFlow's convention).
  if (tied && config_.family == Seq2SeqFamily::T5)
    for (float& value : h) value *= 1.0f / std::sqrt(static_cast<float>(C));
  const WeightMatrix& head = tied ? weights_.shared : weights_.lm_head;
  const float* bias = weights_.final_logits_bias.empty() ? nullptr : weights_.final_logits_bias.data();
  vocabulary_logits(out.data(), h.data(), head, bias, rows, C, V);
  return out;
}

}  // namespace attnscope
