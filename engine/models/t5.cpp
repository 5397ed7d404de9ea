// T5: pre-norm layers in both stacks, x ← x + Sublayer(RMSNorm(x)), a final RMSNorm after each
// stack; no positions in the embeddings (each stack's self-attention adds a learned bias per head
// by the key's relative position instead), no 1/√d_k on the scores (folded into the weights), a
// plain or gated ("gated-gelu") feed-forward, and the head reading the last state × d_model^-0.5
// when tied.
#include "models/seq2seq_family.h"
#include "seq2seq.h"

namespace attnscope {

namespace {

void embed(float* x, const Seq2SeqConfig& c, const WeightMatrix& shared, const Seq2SeqStack&,
           const std::vector<int32_t>& ids, int) {
  scaled_token_embeddings(x, shared, ids, c.d_model, 1.0f);
}

}  // namespace

const Seq2SeqModelFamily& t5_family(const Seq2SeqConfig& config) {
  static const Seq2SeqModelFamily plain{
      {NormPlacement::Before, NormKind::RmsNorm, FeedForwardKind::Plain, Positions::RelativeBias, 1.0f}, embed, true,
      ""};
  static const Seq2SeqModelFamily gated{
      {NormPlacement::Before, NormKind::RmsNorm, FeedForwardKind::Gated, Positions::RelativeBias, 1.0f}, embed, true,
      ""};
  return config.gated_ffn ? gated : plain;
}

}  // namespace attnscope
