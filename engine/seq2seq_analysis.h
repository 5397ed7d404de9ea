// The decoder side's readouts of an encoder–decoder, as the single-stack decoders have them: the
// logit lens (logit_lens.h) and direct logit attribution (attribution.h), each from one ordinary
// pass (encode, then decode over decoder_start_token_id and the target) whose hook points and
// trace they read. Not the encoder's: its states reach the logits only through cross-attention.
#pragma once
#include <cstdint>
#include <vector>

#include "attribution.h"
#include "logit_lens.h"
#include "seq2seq.h"

namespace attnscope {

// The lens of the decoder: row 0 its embeddings (hook_resid_pre of layer 0), row l the residual
// stream after layer l (hook_resid_post), each read through the model's own head as its last row
// is: pre-norm stacks (T5) through the decoder's final norm first, post-norm ones (BART, Marian)
// as they are (every layer already ends in its LayerNorm). The last row is the model's own
// prediction bit for bit. next_rank / next_prob: the decoder id that follows. Head masks as
// Seq2SeqRunOptions (trace and hooks ignored).
LogitLens seq2seq_logit_lens(const Seq2Seq& model, const std::vector<int32_t>& source,
                             const std::vector<int32_t>& decoder_ids, const Seq2SeqRunOptions& masks, int top_k);

// The logit of token_id (−1: the top-1 there) at decoder `position` (−1: the last) split into what
// each part of the decoder's residual stream wrote there, every norm on the way held linear at the
// scale it had for this position (TransformerLens' convention, attribution.h): a norm maps each part
// p to (p − mean(p)) / σ ⊙ γ (RMSNorm: p / σ ⊙ γ) and adds β as a part of its own. Parts, in order:
// embeddings; per layer its self-attention heads (m Σ_j P[t,j] v_j W_O,h), attention_bias (b_O, where
// there is one), its cross-attention heads (cross_head) and cross_attention_bias, mlp (with its
// output bias), and, post-norm, norm_bias (that layer's norms' β carried through the later norms);
// final_norm_bias (a final LayerNorm's β), logits_bias (BART's and Marian's final_logits_bias).
// The parts add up to the logit; the head read along is logits()' (with T5's rescale). E_INPUT for
// a position or token id out of range.
Attribution seq2seq_attribution(const Seq2Seq& model, const std::vector<int32_t>& source,
                                const std::vector<int32_t>& decoder_ids, const Seq2SeqRunOptions& masks,
                                int position = -1, int32_t token_id = -1);

}  // namespace attnscope
