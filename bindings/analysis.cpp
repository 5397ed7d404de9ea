// Embind glue for the logit lens and direct logit attribution (analysis.h).
#include "analysis.h"

#include <emscripten/val.h>

#include "attribution.h"
#include "convert.h"
#include "logit_lens.h"

namespace attnscope::bindings {

namespace {

template <typename T>
val copy_of(const std::vector<T>& data) {  // a fresh typed array (never a view of the heap)
  return val(emscripten::typed_memory_view(data.size(), data.data())).call<val>("slice");
}

std::vector<float> head_mask_from_js(const val& head_mask) {
  if (head_mask.isNull() || head_mask.isUndefined()) return {};
  return float_vector_from_js(head_mask);
}

}  // namespace

val logit_lens_js(const Transformer& model, const val& ids, const val& token_types, const val& attention_mask,
                  const val& head_mask, int top_k) {
  return lens_to_js(logit_lens(model, int32_vector_from_js(ids), int32_vector_from_js(token_types),
                               int32_vector_from_js(attention_mask), head_mask_from_js(head_mask), top_k));
}

val lens_to_js(const LogitLens& lens) {
  const size_t n = lens.entries.size(), k = lens.top_k;
  std::vector<int32_t> top_ids(n * k), final_ranks(n), next_ranks(n);
  std::vector<double> top_probs(n * k), final_probs(n), next_probs(n);
  for (size_t i = 0; i < n; ++i) {
    const LensEntry& e = lens.entries[i];
    std::copy(e.top_ids.begin(), e.top_ids.end(), top_ids.begin() + i * k);
    std::copy(e.top_probs.begin(), e.top_probs.end(), top_probs.begin() + i * k);
    final_ranks[i] = e.final_rank;
    final_probs[i] = e.final_prob;
    next_ranks[i] = e.next_rank;
    next_probs[i] = e.next_prob;
  }
  val out = val::object();
  out.set("layers", lens.layers);
  out.set("tokens", lens.tokens);
  out.set("topK", lens.top_k);
  out.set("topIds", copy_of(top_ids));
  out.set("topProbs", copy_of(top_probs));
  out.set("finalIds", copy_of(lens.final_ids));
  out.set("finalRanks", copy_of(final_ranks));
  out.set("finalProbs", copy_of(final_probs));
  out.set("nextRanks", copy_of(next_ranks));
  out.set("nextProbs", copy_of(next_probs));
  return out;
}

val attribution_js(const Transformer& model, const val& ids, const val& attention_mask, const val& head_mask,
                   int position, int token_id) {
  return attribution_to_js(direct_logit_attribution(model, int32_vector_from_js(ids),
                                                    int32_vector_from_js(attention_mask), head_mask_from_js(head_mask),
                                                    position, token_id));
}

val attribution_to_js(const Attribution& a) {
  val kinds = val::array();
  std::vector<int32_t> layers, heads;
  std::vector<double> values;
  for (const AttributionPart& p : a.parts) {
    kinds.call<void>("push", val(attribution_kind_name(p.kind)));
    layers.push_back(p.layer);
    heads.push_back(p.head);
    values.push_back(p.value);
  }
  val out = val::object();
  out.set("position", a.position);
  out.set("tokenId", a.token_id);
  out.set("logit", a.logit);
  out.set("sum", a.sum);
  out.set("kinds", kinds);
  out.set("layers", copy_of(layers));
  out.set("heads", copy_of(heads));
  out.set("values", copy_of(values));
  return out;
}

}  // namespace attnscope::bindings
