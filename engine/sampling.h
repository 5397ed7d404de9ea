// Choosing the next token from one row of vocabulary logits, beside the logits in wasm memory
// instead of after copying them to JavaScript: greedy (temperature 0), or drawn with temperature,
// top-k and top-p (nucleus) filtering, decision for decision as js/analysis/sampling.js's sampleToken (the
// reference, and what the page's sampling preview explains); and the softmax a generation step
// reports (the pick's probability, the top candidates) as js/analysis/mlm.js's topKSoftmax. The seeded
// random stream stays in JavaScript: the caller draws u = random() once per sampled token, as
// sampleToken does, and passes it in. Not the logit lens or the masked-LM predictions.
#pragma once
#include <cstdint>
#include <vector>

namespace attnscope {

struct SamplingOptions {
  double temperature = 1;  // 0: greedy
  int top_k = 0;           // 0: no limit
  double top_p = 1;        // in (0, 1]; 1: no limit
};

// Reused between steps so a step allocates nothing once they have grown.
struct SamplingScratch {
  std::vector<int32_t> order;
  std::vector<double> weights;
};

// Throws E_INPUT naming the bad option (temperature finite and ≥ 0, top_k ≥ 0, top_p in (0, 1]).
void check_sampling_options(const SamplingOptions& options);

// The id of the largest logit, the lowest id among equals (torch.argmax; sampling.js argmax).
int32_t argmax_id(const float* logits, int n);

// The ids of the k largest logits (min(k, n) of them), largest first, the lower id first among
// equals (mlm.js bestIds), into `out`.
void best_ids(const float* logits, int n, int k, std::vector<int32_t>& out);

// sampleToken(logits, options, () => u): the same candidates in the same order, the same weights
// exp((z − z_max)/T) in double summed in the same order, the same top-p prefix and the same draw
// u·total against the running sum. Throws E_WEIGHTS where a logit is NaN or none is finite above
// −inf (the head's activations overflowed: no distribution to draw from).
int32_t sample_token(const float* logits, int n, const SamplingOptions& options, double u,
                     SamplingScratch& scratch);

// softmax(logits) as the probabilities a step reports: probability(id) = e^(z_id − max) / sum.
struct LogitSoftmax {
  float max = 0;
  double sum = 1;
  double probability(const float* logits, int32_t id) const;
};
// Throws E_WEIGHTS as sample_token does.
LogitSoftmax logit_softmax(const float* logits, int n);

}  // namespace attnscope
