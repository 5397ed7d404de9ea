// Next-token choice over a vocabulary row (sampling.h). Each step mirrors js/analysis/sampling.js's
// sampleToken line for line, in double where it computes in double, so that a seeded stream gives
// the same ids; only the exponential's last bit may differ between the two libms (V8's fdlibm and
// musl's), which moves a draw only if u·total falls within ~1e-16 of a boundary.
#include "sampling.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "error.h"
#include "kernels/logit_softmax.h"

namespace attnscope {

namespace {

// The row's max, refusing rows with no distribution: a NaN or +inf logit (an overflow upstream)
// or every logit −inf would give NaN weights, which JavaScript would turn into a silent pick.
float checked_max(const float* logits, int n) {
  if (n <= 0) throw Error("E_INPUT", "sampling: the vocabulary row is empty");
  const kernels::LogitRowStats stats = kernels::logit_row_stats(logits, n);
  if (stats.has_nan || !std::isfinite(stats.max)) {
    throw Error("E_WEIGHTS", std::string("sampling: the next-token logits hold ") +
                                 (stats.has_nan ? "NaN" : std::isinf(stats.max) && stats.max > 0 ? "+inf" : "only -inf") +
                                 " (the model's activations overflowed float32): there is no distribution to draw from");
  }
  return stats.max;
}

}  // namespace

void check_sampling_options(const SamplingOptions& o) {
  if (!(o.temperature >= 0) || !std::isfinite(o.temperature))
    throw Error("E_INPUT", "temperature must be a finite number >= 0, got " + std::to_string(o.temperature));
  if (o.top_k < 0) throw Error("E_INPUT", "topK must be an integer >= 0, got " + std::to_string(o.top_k));
  if (!(o.top_p > 0 && o.top_p <= 1)) throw Error("E_INPUT", "topP must be in (0, 1], got " + std::to_string(o.top_p));
}

int32_t argmax_id(const float* logits, int n) {
  int32_t best = 0;
  for (int32_t id = 1; id < n; ++id)
    if (logits[id] > logits[best]) best = id;
  return best;
}

void best_ids(const float* logits, int n, int k, std::vector<int32_t>& out) {
  // A small sorted list of the k best: k is tiny next to the vocabulary, so nearly every logit is
  // turned away by one comparison with the k-th best.
  out.clear();
  if (k <= 0) return;
  for (int32_t id = 0; id < n; ++id) {
    const float x = logits[id];
    if (static_cast<int>(out.size()) == k && x <= logits[out.back()]) continue;
    size_t at = out.size();
    while (at > 0 && logits[out[at - 1]] < x) --at;
    out.insert(out.begin() + static_cast<std::ptrdiff_t>(at), id);
    if (static_cast<int>(out.size()) > k) out.pop_back();
  }
}

int32_t sample_token(const float* logits, int n, const SamplingOptions& o, double u, SamplingScratch& scratch) {
  check_sampling_options(o);
  const float max = checked_max(logits, n);
  if (o.temperature == 0) return argmax_id(logits, n);
  // Candidates best first (ties: lower id first): top-k selects them without sorting the whole
  // vocabulary; top-p needs the whole order; neither: every id, in id order.
  std::vector<int32_t>& order = scratch.order;
  if (o.top_k > 0 && o.top_k < n) {
    best_ids(logits, n, o.top_k, order);
  } else {
    order.resize(n);
    for (int32_t id = 0; id < n; ++id) order[id] = id;
    if (o.top_p < 1)  // no NaN here (checked_max): a strict order
      std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
        return logits[a] != logits[b] ? logits[a] > logits[b] : a < b;
      });
  }
  std::vector<double>& weights = scratch.weights;
  weights.resize(order.size());
  double total = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    weights[i] = std::exp((static_cast<double>(logits[order[i]]) - static_cast<double>(max)) / o.temperature);
    total += weights[i];
  }
  size_t kept = order.size();
  if (o.top_p < 1) {  // the smallest prefix whose probability reaches top_p
    size_t prefix = 0;
    double mass = 0;
    while (prefix < order.size() && mass < o.top_p * total) mass += weights[prefix++];
    kept = std::max<size_t>(prefix, 1);
    total = 0;
    for (size_t i = 0; i < kept; ++i) total += weights[i];
  }
  const double target = u * total;
  double cumulative = 0;
  for (size_t i = 0; i < kept; ++i) {
    cumulative += weights[i];
    if (target < cumulative) return order[i];
  }
  return order[kept - 1];  // u within rounding of the total
}

double LogitSoftmax::probability(const float* logits, int32_t id) const {
  return std::exp(static_cast<double>(logits[id]) - static_cast<double>(max)) / sum;
}

LogitSoftmax logit_softmax(const float* logits, int n) {
  LogitSoftmax s;
  s.max = checked_max(logits, n);
  s.sum = kernels::sum_exp_f32(logits, n, s.max);
  return s;
}

}  // namespace attnscope
