// BART and Marian: post-norm layers in both stacks, x ← LayerNorm(x + Sublayer(x)) after the
// self-attention, the decoder's cross-attention and the feed-forward; the token embeddings
// (× √d_model with scale_embedding) plus learned positions (BART: from row 2, then its
// layernorm_embedding) or sinusoidal ones (Marian).
#include <cmath>

#include "models/seq2seq_family.h"
#include "seq2seq.h"

namespace attnscope {

namespace {

void embed(float* x, const Seq2SeqConfig& c, const WeightMatrix& shared, const Seq2SeqStack& stack,
           const std::vector<int32_t>& ids, int first) {
  const int C = c.d_model, T = static_cast<int>(ids.size());
  scaled_token_embeddings(x, shared, ids, C, c.scale_embedding ? std::sqrt(static_cast<float>(C)) : 1.0f);
  // BART's learned positions start at row 2 (BartLearnedPositionalEmbedding's offset).
  const int offset = c.family == Seq2SeqFamily::Bart ? 2 : 0;
  for (int t = 0; t < T; ++t) {
    float* row = x + static_cast<size_t>(t) * C;
    const float* p = stack.positions.data() + static_cast<size_t>(first + t + offset) * C;
    for (int i = 0; i < C; ++i) row[i] += p[i];
  }
  if (!stack.embedding_norm.gamma.empty())
    layer_norm_forward(x, x, stack.embedding_norm, T, C, static_cast<float>(c.eps));
}

}  // namespace

const Seq2SeqModelFamily& bart_family(const Seq2SeqConfig& config) {
  static const Seq2SeqModelFamily bart{
      {NormPlacement::After, NormKind::LayerNorm, FeedForwardKind::Plain, Positions::Learned}, embed, false,
      " (max_position_embeddings)"};
  static const Seq2SeqModelFamily marian{
      {NormPlacement::After, NormKind::LayerNorm, FeedForwardKind::Plain, Positions::Sinusoidal}, embed, false,
      " (max_position_embeddings)"};
  return config.family == Seq2SeqFamily::Marian ? marian : bart;
}

}  // namespace attnscope
