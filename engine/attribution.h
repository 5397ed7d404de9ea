// Direct logit attribution for pre-norm decoders (GPT-2, the Llama family): the logit of one token at one position
// split into what each part of the residual stream wrote there. The final residual is a sum,
//   x = embeddings + Σ_l (Σ_h head_{l,h} + b_O,l) + Σ_l mlp_l,
// where head_{l,h}[t] = m_{l,h} Σ_j P_{l,h}[t,j] (v_{j,h} W_O,h) (m: the head mask) and mlp_l
// includes its output bias. The final LayerNorm is linear once its scale is held at the value it
// had for this position (TransformerLens' convention): each part p contributes
//   ((p − mean(p)) / σ ⊙ γ) · W_U[token],  σ = sqrt(var(x) + ε) of the whole residual x,
// and β · W_U[token] is the final norm's bias; the parts add up to the logit.
// The Llama family's final RMSNorm, γ ⊙ x / σ with σ = sqrt(mean(x²) + ε), is linear the same way
// once σ is held: each part contributes (p / σ ⊙ γ) · W_U[token], with no centring and no bias
// term (there is no β), and a head writes m Σ_j P[t,j] (v_{j,g(h)} W_O,h) with g(h) the key/value
// head it reads (grouped-query attention). o_proj has a bias only with attention_bias, so the
// attention_bias part is there only then. Computed in double from the run's float32 intermediates.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "transformer.h"

namespace attnscope {

struct AttributionPart {
  // CrossHead, CrossAttentionBias, NormBias (a post-norm layer's norms' β), LogitsBias: an
  // encoder–decoder's decoder (seq2seq_analysis.h).
  enum class Kind { Embeddings, Head, AttentionBias, Mlp, FinalNormBias, CrossHead, CrossAttentionBias, NormBias, LogitsBias };
  Kind kind;
  int layer = -1, head = -1;  // -1 where the kind has none
  double value = 0;
};

const char* attribution_kind_name(AttributionPart::Kind kind);  // "embeddings", "head", ...

struct Attribution {
  int position = 0;
  int32_t token_id = 0;
  float logit = 0;   // the model's own logit for token_id at position
  double sum = 0;    // Σ parts
  // embeddings; per layer its heads in order, attention_bias (where W_O has a bias), mlp;
  // final_norm_bias last (LayerNorm models only)
  std::vector<AttributionPart> parts;
};

// The token an attribution explains: token_id, or for −1 the top-1 token of `logits` (the
// position's row). Both stacks' attributions pick it this way.
int32_t attributed_token(const std::vector<float>& logits, int32_t token_id);

// Runs the decoder over ids (attention mask and head mask as Transformer::forward) and attributes
// the logit of token_id (−1: the top-1 token there) at `position` (−1: the last). E_INPUT for an
// encoder, a position or token id out of range.
Attribution direct_logit_attribution(const Transformer& model, const std::vector<int32_t>& ids,
                                     const std::vector<int32_t>& attention_mask, const std::vector<float>& head_mask,
                                     int position = -1, int32_t token_id = -1);

}  // namespace attnscope
