// Direct logit attribution (attribution.h) from one traced run: the heads' outputs at the chosen
// position are rebuilt from the kept probabilities and values through each head's slice of W_O.
#include "attribution.h"

#include <algorithm>
#include <cmath>

#include "build_features.h"
#include "error.h"
#include "half.h"

namespace attnscope {

const char* attribution_kind_name(AttributionPart::Kind kind) {
  switch (kind) {
    case AttributionPart::Kind::Embeddings: return "embeddings";
    case AttributionPart::Kind::Head: return "head";
    case AttributionPart::Kind::AttentionBias: return "attention_bias";
    case AttributionPart::Kind::Mlp: return "mlp";
    case AttributionPart::Kind::FinalNormBias: return "final_norm_bias";
    case AttributionPart::Kind::CrossHead: return "cross_head";
    case AttributionPart::Kind::CrossAttentionBias: return "cross_attention_bias";
    case AttributionPart::Kind::NormBias: return "norm_bias";
    case AttributionPart::Kind::LogitsBias: return "logits_bias";
  }
  return "?";
}

int32_t attributed_token(const std::vector<float>& logits, int32_t token_id) {
  if (token_id >= 0) return token_id;
  int32_t top = 0;
  for (int32_t v = 1; v < static_cast<int32_t>(logits.size()); ++v)
    if (logits[v] > logits[top]) top = v;
  return top;
}

Attribution direct_logit_attribution(const Transformer& model, const std::vector<int32_t>& ids,
                                     const std::vector<int32_t>& attention_mask, const std::vector<float>& head_mask,
                                     int position, int32_t token_id) {
  const ModelConfig& cfg = model.config();
  if (!kBuildHasDecoders || !cfg.is_decoder())  // the encoder build has no decoders
    throw Error("E_INPUT", "direct logit attribution needs a pre-norm decoder; " + cfg.model_type +
                               " is an encoder: it normalises after each layer and reads its masked-LM head through a"
                               " non-linear transform, so its layers' outputs do not add up to a logit");
  const int T = static_cast<int>(ids.size());
  if (position < 0) position = T - 1;
  if (position >= T)
    throw Error("E_INPUT", "attribution position " + std::to_string(position) + " is past the " + std::to_string(T) +
                               " tokens");
  const int L = cfg.num_layers, H = cfg.num_heads, C = cfg.hidden_size, V = cfg.vocab_size, dh = cfg.head_dim();
  if (token_id >= V)
    throw Error("E_INPUT", "attribution token id " + std::to_string(token_id) + " is out of vocab range [0, " +
                               std::to_string(V) + ")");

  ForwardOptions options;
  options.attentions = true;
  options.qkv = true;
  options.trace = true;
  options.head_mask = head_mask;
  const ForwardResult r = model.forward(ids, {}, attention_mask, options);
  const size_t row = static_cast<size_t>(position) * C;

  Attribution out;
  out.position = position;
  const std::vector<float> logits = model.lm_logits(r.hidden_out.data() + row, 1);
  token_id = attributed_token(logits, token_id);
  out.token_id = token_id;
  out.logit = logits[token_id];

  // The direction a part is read along: γ ⊙ W_U[token] / σ, applied after centring the part
  // (LayerNorm) or as it is (RMSNorm, whose σ is the root mean square).
  std::vector<float> unembed(C);
  const WeightMatrix& wu = model.unembedding();
  if (wu.is_f16())
    f16_to_f32(unembed.data(), wu.f16.data() + static_cast<size_t>(token_id) * C, C);
  else
    std::copy_n(wu.f32.data() + static_cast<size_t>(token_id) * C, C, unembed.data());
  const LayerNormParams& ln = model.final_norm();
  const float* residual = r.trace.layers[L - 1].output.data() + row;  // before the final norm
  const bool rms = model.spec().norm == NormKind::RmsNorm;
  double mean = 0, var = 0;
  if (!rms) {
    for (int c = 0; c < C; ++c) mean += residual[c];
    mean /= C;
  }
  for (int c = 0; c < C; ++c) var += (residual[c] - mean) * (residual[c] - mean);
  var /= C;  // RMSNorm: the mean square (mean held at 0)
  const double sigma = std::sqrt(var + static_cast<double>(static_cast<float>(cfg.layer_norm_eps)));
  std::vector<double> direction(C);
  double direction_sum = 0;
  for (int c = 0; c < C; ++c) {
    direction[c] = static_cast<double>(ln.gamma[c]) * unembed[c] / sigma;
    direction_sum += direction[c];
  }
  // ((p − mean(p)) / σ ⊙ γ) · W_U[token] = p · direction − mean(p) Σ direction; RMSNorm: p · direction
  auto read = [&](const double* p) {
    double dot = 0, sum = 0;
    for (int c = 0; c < C; ++c) dot += p[c] * direction[c], sum += p[c];
    return rms ? dot : dot - sum / C * direction_sum;
  };
  std::vector<double> part(C);
  auto read_floats = [&](const float* p) {
    for (int c = 0; c < C; ++c) part[c] = p[c];
    return read(part.data());
  };
  using Kind = AttributionPart::Kind;
  out.parts.push_back({Kind::Embeddings, -1, -1, read_floats(r.trace.embeddings.output.data() + row)});

  std::vector<float> ctx(dh), head_out(C);
  const int keys = r.keys;
  for (int l = 0; l < L; ++l) {
    const AttentionWeights& layer = model.layer(l).self;
    for (int h = 0; h < H; ++h) {
      // ctx_h = m · Σ_j P[t, j] v_{j,h}, then through W_O's h-th slice (no bias).
      const size_t lh = static_cast<size_t>(l) * H + h;
      const float* p = r.attentions.data() + (lh * T + position) * keys;
      const float* v = r.v.data() + lh * T * dh;
      const double m = head_mask.empty() ? 1.0 : head_mask[lh];
      std::vector<double> acc(dh, 0.0);
      for (int j = 0; j < keys; ++j)
        for (int d = 0; d < dh; ++d) acc[d] += static_cast<double>(p[j]) * v[static_cast<size_t>(j) * dh + d];
      for (int d = 0; d < dh; ++d) ctx[d] = static_cast<float>(m * acc[d]);
      linear_slice_forward(head_out.data(), ctx.data(), dh, layer.o, 1, h * dh, dh);
      out.parts.push_back({Kind::Head, l, h, read_floats(head_out.data())});
    }
    if (!layer.o.bias().empty())  // the Llama family's o_proj has one only with attention_bias
      out.parts.push_back({Kind::AttentionBias, l, -1, read_floats(layer.o.bias().data())});
    out.parts.push_back({Kind::Mlp, l, -1, read_floats(r.trace.layers[l].ffn_output.data() + row)});
  }
  if (!ln.beta.empty()) {  // RMSNorm has no β
    double bias = 0;
    for (int c = 0; c < C; ++c) bias += static_cast<double>(ln.beta[c]) * unembed[c];
    out.parts.push_back({Kind::FinalNormBias, -1, -1, bias});
  }
  for (const AttributionPart& p : out.parts) out.sum += p.value;
  return out;
}

}  // namespace attnscope
