// The logit lens: each row of hidden states through the model's own head (logit_lens.h).
#include "logit_lens.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "buffer_size.h"
#include "error.h"

namespace attnscope {

std::vector<float> logit_lens_logits(const Transformer& model, const float* hidden, int T, bool last) {
  const ModelConfig& cfg = model.config();
  if (!model.has_lm_head())
    throw Error("E_WEIGHTS", "the logit lens needs the model's output head; this checkpoint has no masked-LM head");
  if (last) {
    // As the model's own predictions are computed (js/api/model.js), because the GEMM's summation order
    // depends on the row count and these rows must be those predictions bit for bit: a decoder's
    // next-token predictions at every position in one batch and the last row (`next`, after the
    // text) once more alone; an encoder's [MASK] predictions one row at a time.
    const int C = cfg.hidden_size, V = cfg.vocab_size;
    std::vector<float> logits = cfg.is_decoder() ? model.lm_logits(hidden, T) : std::vector<float>(buffer_elements({T, V}, "the vocabulary logits"));
    for (int t = cfg.is_decoder() ? T - 1 : 0; t < T; ++t) {
      const std::vector<float> row = model.lm_logits(hidden + static_cast<size_t>(t) * C, 1);
      std::copy(row.begin(), row.end(), logits.begin() + static_cast<size_t>(t) * V);
    }
    return logits;
  }
  if (!cfg.is_decoder()) return model.lm_logits(hidden, T);
  // A decoder's intermediate residual stream: the final norm first, as the model's last layer gets.
  std::vector<float> normed(static_cast<size_t>(T) * cfg.hidden_size);
  model.final_norm_forward(normed.data(), hidden, T);
  return model.lm_logits(normed.data(), T);
}

namespace {

// Does logit a at id i come before logit b at id j (larger first, then lower id)?
bool before(float a, int32_t i, float b, int32_t j) { return a > b || (a == b && i < j); }

}  // namespace

LogitLens logit_lens(const Transformer& model, const ForwardResult& result, const std::vector<int32_t>& ids,
                     int top_k) {
  const ModelConfig& cfg = model.config();
  const int L = cfg.num_layers, T = result.tokens, C = cfg.hidden_size;
  if (result.hidden_states.size() != static_cast<size_t>(L + 1) * T * C)
    throw Error("E_INPUT", "logit lens: the run kept no hidden states (ForwardOptions::hidden_states)");
  if (ids.size() != static_cast<size_t>(T))
    throw Error("E_INPUT", "logit lens: " + std::to_string(ids.size()) + " ids for a run of " + std::to_string(T));
  return logit_lens_of_logits(L, T, cfg.vocab_size, top_k, cfg.is_decoder() ? &ids : nullptr, [&](int l) {
    return logit_lens_logits(model, result.hidden_states.data() + static_cast<size_t>(l) * T * C, T, l == L);
  });
}

LogitLens logit_lens_of_logits(int L, int T, int32_t V, int top_k, const std::vector<int32_t>* next_ids,
                               const std::function<std::vector<float>(int layer)>& layer_logits) {
  if (top_k < 1) throw Error("E_INPUT", "logit lens: top_k must be at least 1, got " + std::to_string(top_k));
  top_k = std::min(top_k, static_cast<int>(V));
  LogitLens lens;
  lens.layers = L;
  lens.tokens = T;
  lens.top_k = top_k;
  lens.vocab = V;
  lens.entries.resize(static_cast<size_t>(L + 1) * T);
  lens.final_ids.assign(T, 0);
  // The last layer first: its top-1 at each position is what every other layer is compared with.
  for (int l = L; l >= 0; --l) {
    const std::vector<float> z = layer_logits(l);
    std::vector<int32_t> order(V);
    for (int t = 0; t < T; ++t) {
      const float* row = z.data() + static_cast<size_t>(t) * V;
      // Softmax in double: max, then Σ exp(z − max) in id order.
      float max = row[0];
      int32_t argmax = 0;
      for (int32_t v = 1; v < V; ++v)
        if (row[v] > max) max = row[v], argmax = v;
      double sum = 0;
      for (int32_t v = 0; v < V; ++v) sum += std::exp(static_cast<double>(row[v]) - max);
      auto prob = [&](int32_t v) { return std::exp(static_cast<double>(row[v]) - max) / sum; };
      auto rank = [&](int32_t id) {
        int r = 1;
        for (int32_t v = 0; v < V; ++v) r += before(row[v], v, row[id], id);
        return r;
      };
      if (l == L) lens.final_ids[t] = argmax;
      LensEntry& e = lens.entries[static_cast<size_t>(l) * T + t];
      for (int32_t v = 0; v < V; ++v) order[v] = v;
      std::partial_sort(order.begin(), order.begin() + top_k, order.end(),
                        [&](int32_t a, int32_t b) { return before(row[a], a, row[b], b); });
      e.top_ids.assign(order.begin(), order.begin() + top_k);
      e.top_probs.resize(top_k);
      for (int i = 0; i < top_k; ++i) e.top_probs[i] = prob(order[i]);
      const int32_t final_id = lens.final_ids[t];
      e.final_rank = rank(final_id);
      e.final_prob = prob(final_id);
      if (next_ids && t + 1 < T) {
        e.next_rank = rank((*next_ids)[t + 1]);
        e.next_prob = prob((*next_ids)[t + 1]);
      }
    }
  }
  return lens;
}

LogitLens logit_lens(const Transformer& model, const std::vector<int32_t>& ids, const std::vector<int32_t>& token_types,
                     const std::vector<int32_t>& attention_mask, const std::vector<float>& head_mask, int top_k) {
  if (!model.has_lm_head())
    throw Error("E_WEIGHTS", "the logit lens needs the model's output head; this checkpoint has no masked-LM head");
  ForwardOptions options;
  options.attentions = false;
  options.hidden_states = true;
  options.head_mask = head_mask;
  const ForwardResult result = model.forward(ids, token_types, attention_mask, options);
  return logit_lens(model, result, ids, top_k);
}

}  // namespace attnscope
