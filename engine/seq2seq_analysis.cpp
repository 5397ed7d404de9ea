// The decoder side's logit lens and direct logit attribution (seq2seq_analysis.h), read from one
// pass's hook points (the residual stream, each head's context) and trace (the norms' inputs, the
// feed-forward's output).
#include "seq2seq_analysis.h"

#include <cmath>
#include <string>

#include "error.h"
#include "half.h"
#include "hooks.h"

namespace attnscope {

namespace {

// The options of a pass with the caller's head masks and nothing else.
Seq2SeqRunOptions masks_only(const Seq2SeqRunOptions& masks) {
  Seq2SeqRunOptions o;
  o.head_mask = masks.head_mask;
  o.decoder_head_mask = masks.decoder_head_mask;
  o.cross_attn_head_mask = masks.cross_attn_head_mask;
  return o;
}

// A read hook copying the whole activation at a point into `into`.
HookFn copy_into(std::vector<float>& into) {
  return [&into](const HookPoint&, HookTensor& t) { into.assign(t.data, t.data + static_cast<size_t>(t.rows) * t.width); };
}

}  // namespace

LogitLens seq2seq_logit_lens(const Seq2Seq& model, const std::vector<int32_t>& source,
                             const std::vector<int32_t>& decoder_ids, const Seq2SeqRunOptions& masks, int top_k) {
  if (top_k < 1) throw Error("E_INPUT", "logit lens: top_k must be at least 1, got " + std::to_string(top_k));
  const Seq2SeqConfig& c = model.config();
  const int L = c.decoder_layers, C = c.d_model;
  Seq2SeqRunOptions options = masks_only(masks);
  const EncoderOutput enc = model.encode(source, options);
  // Row 0: what layer 0 reads; row l: layer l − 1's output.
  std::vector<std::vector<float>> rows(L + 1);
  Hooks hooks;
  hooks.add({HookStack::Decoder, HookSite::ResidPre, 0}, copy_into(rows[0]), false);
  for (int l = 0; l < L; ++l) hooks.add({HookStack::Decoder, HookSite::ResidPost, l}, copy_into(rows[l + 1]), false);
  options.hooks = &hooks;
  KvCache cache;
  const DecoderOutput dec = model.decode(decoder_ids, enc, cache, options);
  const int T = dec.tokens;
  const LayerSpec& spec = model.spec();
  const bool pre_norm = spec.placement == NormPlacement::Before;
  return logit_lens_of_logits(L, T, c.vocab_size, top_k, &decoder_ids, [&](int l) {
    // The last row is the decoder's output as the run's own logits read it (after a final norm).
    if (l == L) return model.logits(dec.hidden.data(), T);
    if (!pre_norm) return model.logits(rows[l].data(), T);
    std::vector<float> normed(static_cast<size_t>(T) * C);
    const LayerNormParams& final_norm = model.weights().decoder.final_norm;
    if (spec.norm == NormKind::RmsNorm)
      rms_norm_forward(normed.data(), rows[l].data(), final_norm, T, C, static_cast<float>(c.eps));
    else
      layer_norm_forward(normed.data(), rows[l].data(), final_norm, T, C, static_cast<float>(c.eps));
    return model.logits(normed.data(), T);
  });
}

namespace {

// The decoder's residual stream at one position as a sum of parts (double), each with its label.
class Parts {
 public:
  Parts(int width, bool rms) : C_(width), rms_(rms) {}

  void add(AttributionPart label, const float* p) {
    labels_.push_back(label);
    values_.emplace_back(p, p + C_);
  }
  void add(AttributionPart label, std::vector<double> p) {
    labels_.push_back(label);
    values_.push_back(std::move(p));
  }

  // A norm held linear at the scale σ it had for `residual` (its input at this position): every part
  // p ↦ (p − mean(p)) / σ ⊙ γ (RMSNorm: p / σ ⊙ γ), and also `carried` (a bias part not yet added);
  // β, where the norm has one, is added to `carried`.
  void norm(const float* residual, const LayerNormParams& n, float eps, std::vector<double>& carried) {
    double mean = 0, var = 0;
    if (!rms_) {
      for (int c = 0; c < C_; ++c) mean += residual[c];
      mean /= C_;
    }
    for (int c = 0; c < C_; ++c) var += (residual[c] - mean) * (residual[c] - mean);
    var /= C_;  // RMSNorm: the mean square (mean held at 0)
    const double sigma = std::sqrt(var + static_cast<double>(eps));
    auto apply = [&](std::vector<double>& p) {
      double m = 0;
      if (!rms_) {
        for (double v : p) m += v;
        m /= C_;
      }
      for (int c = 0; c < C_; ++c) p[c] = (p[c] - m) / sigma * n.gamma[c];
    };
    for (auto& p : values_) apply(p);
    apply(carried);
    if (!n.beta.empty())
      for (int c = 0; c < C_; ++c) carried[c] += n.beta[c];
  }

  // Each part read along `direction` (C): its logit.
  void read(const std::vector<double>& direction, Attribution& out) const {
    for (size_t i = 0; i < values_.size(); ++i) {
      AttributionPart part = labels_[i];
      part.value = 0;
      for (int c = 0; c < C_; ++c) part.value += values_[i][c] * direction[c];
      out.parts.push_back(part);
    }
  }

 private:
  int C_;
  bool rms_;
  std::vector<AttributionPart> labels_;
  std::vector<std::vector<double>> values_;
};

}  // namespace

Attribution seq2seq_attribution(const Seq2Seq& model, const std::vector<int32_t>& source,
                                const std::vector<int32_t>& decoder_ids, const Seq2SeqRunOptions& masks, int position,
                                int32_t token_id) {
  const Seq2SeqConfig& c = model.config();
  const int L = c.decoder_layers, H = c.decoder_heads, C = c.d_model, V = c.vocab_size, dh = c.decoder_head_dim();
  const int T = static_cast<int>(decoder_ids.size());
  if (position < 0) position = T - 1;
  if (position >= T)
    throw Error("E_INPUT", "attribution position " + std::to_string(position) + " is past the " + std::to_string(T) +
                               " decoder tokens");
  if (token_id >= V)
    throw Error("E_INPUT", "attribution token id " + std::to_string(token_id) + " is out of vocab range [0, " +
                               std::to_string(V) + ")");
  Seq2SeqRunOptions options = masks_only(masks);
  const EncoderOutput enc = model.encode(source, options);
  // Each head's context (hook_z: the head mask applied), self and cross, of every layer.
  std::vector<std::vector<float>> z(L), cross_z(L);
  Hooks hooks;
  for (int l = 0; l < L; ++l) {
    hooks.add({HookStack::Decoder, HookSite::Z, l}, copy_into(z[l]), false);
    hooks.add({HookStack::Decoder, HookSite::CrossZ, l}, copy_into(cross_z[l]), false);
  }
  options.hooks = &hooks;
  options.trace = true;  // the norms' inputs and the feed-forward's outputs
  KvCache cache;
  const DecoderOutput dec = model.decode(decoder_ids, enc, cache, options);
  const size_t row = static_cast<size_t>(position) * C, z_row = static_cast<size_t>(position) * H * dh;

  Attribution out;
  out.position = position;
  const std::vector<float> logits = model.logits(dec.hidden.data() + row, 1);
  token_id = attributed_token(logits, token_id);
  out.token_id = token_id;
  out.logit = logits[token_id];

  const LayerSpec& spec = model.spec();
  const bool post_norm = spec.placement == NormPlacement::After;
  const float eps = static_cast<float>(c.eps);
  using Kind = AttributionPart::Kind;
  Parts parts(C, spec.norm == NormKind::RmsNorm);
  parts.add({Kind::Embeddings, -1, -1, 0}, dec.trace.embeddings.data() + row);
  std::vector<float> head_out(C);
  // One attention sublayer's heads (each head's context through its slice of W_O) and b_O.
  auto attention = [&](const AttentionWeights& w, const std::vector<float>& contexts, Kind head, Kind bias, int l) {
    for (int h = 0; h < H; ++h) {
      linear_slice_forward(head_out.data(), contexts.data() + z_row + static_cast<size_t>(h) * dh, dh, w.o, 1, h * dh,
                           dh);
      parts.add({head, l, h, 0}, head_out.data());
    }
    if (!w.o.bias().empty()) parts.add({bias, l, -1, 0}, w.o.bias().data());
  };
  for (int l = 0; l < L; ++l) {
    const Layer& w = model.weights().decoder.layers[l];
    const Seq2SeqLayerTrace& y = dec.trace.layers[l];
    std::vector<double> norm_bias(C, 0.0);  // post-norm: this layer's β, carried through its later norms
    attention(w.self, z[l], Kind::Head, Kind::AttentionBias, l);
    if (post_norm) parts.norm(y.self_attention_residual.data() + row, w.self.norm, eps, norm_bias);
    attention(w.cross, cross_z[l], Kind::CrossHead, Kind::CrossAttentionBias, l);
    if (post_norm) parts.norm(y.cross_attention_residual.data() + row, w.cross.norm, eps, norm_bias);
    parts.add({Kind::Mlp, l, -1, 0}, y.ffn_output.data() + row);
    if (post_norm) {
      parts.norm(y.ffn_residual.data() + row, w.ffn.norm, eps, norm_bias);
      parts.add({Kind::NormBias, l, -1, 0}, std::move(norm_bias));
    }
  }
  if (!post_norm) {  // the decoder's final norm, of the last layer's output
    const LayerNormParams& final_norm = model.weights().decoder.final_norm;
    std::vector<double> final_bias(C, 0.0);
    parts.norm(dec.trace.layers[L - 1].output.data() + row, final_norm, eps, final_bias);
    if (!final_norm.beta.empty()) parts.add({Kind::FinalNormBias, -1, -1, 0}, std::move(final_bias));
  }
  // The head's row for token_id, times the scale logits() puts on the hidden state first.
  std::vector<float> unembed(C);
  const WeightMatrix& wu = model.unembedding();
  if (wu.is_f16())
    f16_to_f32(unembed.data(), wu.f16.data() + static_cast<size_t>(token_id) * C, C);
  else
    std::copy_n(wu.f32.data() + static_cast<size_t>(token_id) * C, C, unembed.data());
  std::vector<double> direction(C);
  const double scale = model.head_input_scale();
  for (int c = 0; c < C; ++c) direction[c] = scale * unembed[c];
  parts.read(direction, out);
  const std::vector<float>& logits_bias = model.weights().final_logits_bias;
  if (!logits_bias.empty()) out.parts.push_back({Kind::LogitsBias, -1, -1, logits_bias[token_id]});
  for (const AttributionPart& p : out.parts) out.sum += p.value;
  return out;
}

}  // namespace attnscope
