// The logit lens (nostalgebraist 2020): the model's own output head applied to the residual stream
// after the embeddings and after every layer, so each layer's running guess can be read as tokens.
// Decoders (pre-LN): the final LayerNorm (GPT-2's ln_f) then the LM head; the last layer's hidden
// state is already after the final LayerNorm (Hugging Face's hidden_states) and is not normalised
// again, so the last row is the model's own prediction. Encoders with a masked-LM head: the head's
// transform and decoder at every position (their hidden states are already after each layer's
// LayerNorm).
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "transformer.h"

namespace attnscope {

// One (layer, position) of the lens. Probabilities are a softmax over the whole vocabulary in
// double precision; ranks are 1-based and break ties by the lower id (torch.argmax's order).
struct LensEntry {
  std::vector<int32_t> top_ids;   // the top_k most likely tokens, most likely first
  std::vector<double> top_probs;
  int final_rank = 0;             // where the last layer's top-1 token at this position stands
  double final_prob = 0;
  int next_rank = 0;              // decoders: the token that actually follows (0: none, the last position)
  double next_prob = 0;
};

struct LogitLens {
  int layers = 0, tokens = 0, top_k = 0;
  int32_t vocab = 0;
  std::vector<int32_t> final_ids;  // (T): the last layer's top-1 token at each position
  std::vector<LensEntry> entries;  // (L+1, T) row-major: row 0 the embeddings, row l after layer l
};

// The lens logits (T, V) of one row of hidden states (T, C) as ForwardResult::hidden_states holds
// them: `last` says it is the last layer's (decoders: already after the final LayerNorm), whose rows
// are computed as the model's own predictions are (decoders: all T in one batch, the last one alone;
// encoders: one row at a time).
std::vector<float> logit_lens_logits(const Transformer& model, const float* hidden, int T, bool last);

// The lens of a run: `result` must hold hidden_states (ForwardOptions::hidden_states) of `ids`.
// top_k ≥ 1 (at most the vocabulary). E_WEIGHTS for an encoder without a masked-LM head, E_INPUT
// for a result without hidden states or a top_k < 1.
LogitLens logit_lens(const Transformer& model, const ForwardResult& result, const std::vector<int32_t>& ids,
                     int top_k);

// The lens of any stack: layer_logits(l) gives the (T, V) logits read at row l (0: the embeddings, l:
// after layer l), asked for the last row first (its top-1 at each position is what every other row is
// compared with); next_ids: the ids the positions hold, for each position's next token (decoders), or
// null. E_INPUT for a top_k < 1.
LogitLens logit_lens_of_logits(int layers, int tokens, int32_t vocab, int top_k, const std::vector<int32_t>* next_ids,
                               const std::function<std::vector<float>(int layer)>& layer_logits);

// Runs the model over ids (token types, attention mask and head mask as Transformer::forward) and
// returns its lens.
LogitLens logit_lens(const Transformer& model, const std::vector<int32_t>& ids, const std::vector<int32_t>& token_types,
                     const std::vector<int32_t>& attention_mask, const std::vector<float>& head_mask, int top_k);

}  // namespace attnscope
