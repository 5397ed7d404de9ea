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
  std::vector<float> normed, q, ctx, sum, ff, gate;
};

// out (T, C) = x + FFN(x'), x' the sublayer's input; T5's gated form act(x' W_gate) · x' W_in.
void ffn(float* out, Scratch& s, const float* in, const Seq2SeqLayer& y, kernels::Activation act,
         const float* residual, int T, bool gated) {
  const size_t TF = static_cast<size_t>(T) * y.ff_in.out;
  s.ff.resize(TF);
  kernels::LinearEpilogue activated;
  activated.activate = true;
  activated.activation = act;
  if (gated) {
    s.gate.resize(TF);
    linear_forward(s.gate.data(), in, y.ff_gate, T, activated);
    linear_forward(s.ff.data(), in, y.ff_in, T);
    kernels::multiply_f32(s.ff.data(), s.gate.data(), TF);
  } else {
    linear_forward(s.ff.data(), in, y.ff_in, T, activated);
  }
  kernels::LinearEpilogue add;
  add.residual = residual;
  linear_forward(out, s.ff.data(), y.ff_out, T, add);
}

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

EncoderOutput Seq2Seq::encode(const std::vector<int32_t>& source) const {
  check_ids(source, 0, "source");
  const Seq2SeqConfig& c = config_;
  const int S = static_cast<int>(source.size()), C = c.d_model, H = c.encoder_heads;
  const StackShape shape{{H, H, c.encoder_head_dim()}, c.pre_norm() ? 1.0f : 0.0f};
  const size_t SC = static_cast<size_t>(S) * C, SW = static_cast<size_t>(S) * shape.inner();
  const float eps = static_cast<float>(c.eps);
  const kernels::Activation act = activation_for(c.activation);
  // Every buffer sized in 64 bits before any is allocated (buffer_size.h).
  const size_t maps = buffer_elements({c.encoder_layers, H, S, S}, "the encoder's attention maps");
  buffer_elements({S, std::max({C, shape.inner(), std::max(c.encoder_ffn, c.decoder_ffn), c.decoder_heads * c.decoder_head_dim()})},
                  "the encoder's activations");
  EncoderOutput out;
  out.source_len = S;
  out.hidden.resize(SC);
  out.attentions.resize(maps);
  float* x = out.hidden.data();
  embed(x, weights_.encoder, source, 0);
  const std::vector<float> bias = position_bias(c, weights_.encoder.relative_bias, H, S, true);
  const AttentionMask mask = sublayer_mask(shape, false, &bias);
  Scratch s;
  s.normed.resize(SC);
  s.sum.resize(SC);
  for (auto* b : {&s.q, &s.ctx}) b->resize(SW);
  std::vector<float> k(SW), v(SW);
  for (int l = 0; l < c.encoder_layers; ++l) {
    const Seq2SeqLayer& y = weights_.encoder.layers[l];
    float* probs = out.attentions.data() + static_cast<size_t>(l) * H * S * S;
    kernels::LinearEpilogue add;
    add.residual = x;
    const float* in = x;
    if (c.pre_norm()) norm(s.normed.data(), x, y.self.norm, S, C, eps), in = s.normed.data();
    linear_forward(s.q.data(), in, y.self.q, S);
    linear_forward(k.data(), in, y.self.k, S);
    linear_forward(v.data(), in, y.self.v, S);
    attention_heads_forward(s.ctx.data(), probs, s.q.data(), k.data(), v.data(), shape.layout, mask, S, S);
    linear_forward(s.sum.data(), s.ctx.data(), y.self.o, S, add);
    if (c.pre_norm()) {
      norm(s.normed.data(), s.sum.data(), y.ffn_norm, S, C, eps);
      ffn(x, s, s.normed.data(), y, act, s.sum.data(), S, c.gated_ffn);
    } else {
      norm(x, s.sum.data(), y.self.norm, S, C, eps);
      ffn(s.sum.data(), s, x, y, act, x, S, c.gated_ffn);
      norm(x, s.sum.data(), y.ffn_norm, S, C, eps);
    }
    check_layer_output(x, S, C, "encoder layer", l);
  }
  if (c.pre_norm()) norm(x, x, weights_.encoder.final_norm, S, C, eps);
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
                              bool trace) const {
  const Seq2SeqConfig& c = config_;
  check_ids(ids, cache.length, "target");
  const int L = c.decoder_layers, H = c.decoder_heads, C = c.d_model, S = enc.source_len;
  const StackShape shape{{H, H, c.decoder_head_dim()}, c.pre_norm() ? 1.0f : 0.0f};
  const int W = shape.inner();
  if (S <= 0 || static_cast<int>(enc.cross_k.size()) != L || enc.hidden.size() != static_cast<size_t>(S) * C)
    bad_input("the encoder output is not this model's (run encode() on the source first)");
  const int T = static_cast<int>(ids.size()), first = cache.length, keys = first + T;
  const size_t TC = static_cast<size_t>(T) * C, TW = static_cast<size_t>(T) * W;
  const float eps = static_cast<float>(c.eps);
  const kernels::Activation act = activation_for(c.activation);
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
  if (trace) {
    out.trace.embeddings.assign(x, x + TC);
    out.trace.layers.resize(L);
  }
  const std::vector<float> bias = position_bias(c, weights_.decoder.relative_bias, H, keys, false);
  const AttentionMask self_mask = sublayer_mask(shape, true, &bias), cross_mask = sublayer_mask(shape, false, nullptr);
  Scratch s;
  s.normed.resize(TC);
  s.sum.resize(TC);
  for (auto* b : {&s.q, &s.ctx}) b->resize(TW);

  // Where a traced sublayer's steps go (null: not traced).
  struct SublayerTrace {
    std::vector<float>*input_norm, *output, *residual, *norm;
  };
  // x ← x + Attention(N(x)) (pre-norm) or x ← N(x + Attention(x)) (post-norm), keys and values
  // from k, v (keys rows).
  auto sublayer = [&](const Seq2SeqAttention& a, const float* k, const float* v, int key_count, float* probs,
                      const AttentionMask& mask, bool project_kv, float* k_new, float* v_new,
                      const SublayerTrace* tr) {
    kernels::LinearEpilogue add;
    add.residual = x;
    const float* in = x;
    if (c.pre_norm()) {
      norm(s.normed.data(), x, a.norm, T, C, eps), in = s.normed.data();
      if (tr) tr->input_norm->assign(in, in + TC);
    }
    linear_forward(s.q.data(), in, a.q, T);
    if (project_kv) {
      linear_forward(k_new, in, a.k, T);
      linear_forward(v_new, in, a.v, T);
    }
    attention_heads_forward(s.ctx.data(), probs, s.q.data(), k, v, shape.layout, mask, T, key_count);
    linear_forward(s.sum.data(), s.ctx.data(), a.o, T, add);
    if (tr) {  // the projection alone, beside the fused one the pass keeps
      tr->output->resize(TC);
      linear_forward(tr->output->data(), s.ctx.data(), a.o, T);
      tr->residual->assign(s.sum.begin(), s.sum.begin() + TC);
    }
    if (c.pre_norm()) {
      std::copy_n(s.sum.data(), TC, x);
    } else {
      norm(x, s.sum.data(), a.norm, T, C, eps);
      if (tr) tr->norm->assign(x, x + TC);
    }
  };
  for (int l = 0; l < L; ++l) {
    const Seq2SeqLayer& y = weights_.decoder.layers[l];
    std::vector<float>& k = cache.k[l];
    std::vector<float>& v = cache.v[l];
    k.resize(static_cast<size_t>(keys) * W);
    v.resize(static_cast<size_t>(keys) * W);
    float* self_probs = out.self_attentions.data() + static_cast<size_t>(l) * H * T * keys;
    float* cross_probs = out.cross_attentions.data() + static_cast<size_t>(l) * H * T * S;
    Seq2SeqDecoderLayerTrace* lt = trace ? &out.trace.layers[l] : nullptr;
    const SublayerTrace self_trace{lt ? &lt->self_attention_input_norm : nullptr, lt ? &lt->self_attention_output : nullptr,
                                   lt ? &lt->self_attention_residual : nullptr, lt ? &lt->self_attention_norm : nullptr};
    const SublayerTrace cross_trace{lt ? &lt->cross_attention_input_norm : nullptr,
                                    lt ? &lt->cross_attention_output : nullptr,
                                    lt ? &lt->cross_attention_residual : nullptr, lt ? &lt->cross_attention_norm : nullptr};
    sublayer(y.self, k.data(), v.data(), keys, self_probs, self_mask, true,
             k.data() + static_cast<size_t>(first) * W, v.data() + static_cast<size_t>(first) * W,
             lt ? &self_trace : nullptr);
    sublayer(y.cross, enc.cross_k[l].data(), enc.cross_v[l].data(), S, cross_probs, cross_mask, false, nullptr,
             nullptr, lt ? &cross_trace : nullptr);
    const float* ffn_in = x;
    if (c.pre_norm()) {
      norm(s.normed.data(), x, y.ffn_norm, T, C, eps);
      ffn_in = s.normed.data();
      if (lt) lt->ffn_input_norm.assign(ffn_in, ffn_in + TC);
    }
    if (lt) {  // before the activation (and the gate's product), beside the fused pass
      lt->ffn_pre_activation.resize(static_cast<size_t>(T) * y.ff_in.out);
      linear_forward(lt->ffn_pre_activation.data(), ffn_in, c.gated_ffn ? y.ff_gate : y.ff_in, T);
    }
    if (c.pre_norm()) {
      std::copy_n(x, TC, s.sum.data());
      ffn(x, s, s.normed.data(), y, act, s.sum.data(), T, c.gated_ffn);
      if (lt) lt->ffn_residual.assign(x, x + TC);
    } else {
      ffn(s.sum.data(), s, x, y, act, x, T, c.gated_ffn);
      if (lt) lt->ffn_residual.assign(s.sum.begin(), s.sum.begin() + TC);
      norm(x, s.sum.data(), y.ffn_norm, T, C, eps);
    }
    if (lt) {
      lt->ffn_intermediate.assign(s.ff.begin(), s.ff.begin() + static_cast<size_t>(T) * y.ff_in.out);
      lt->ffn_output.resize(TC);
      linear_forward(lt->ffn_output.data(), s.ff.data(), y.ff_out, T);
      lt->output.assign(x, x + TC);
    }
    check_layer_output(x, T, C, "decoder layer", l);
  }
  if (c.pre_norm()) {
    norm(x, x, weights_.decoder.final_norm, T, C, eps);
    if (trace) out.trace.final_norm.assign(x, x + TC);
  }
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
