// The next-token choice (engine/sampling.h) on rows whose answers follow from the definitions by
// hand: p = (0.1, 0.2, 0.3, 0.4) as logits log p, so every draw's bucket is a running sum of p
// (or of √p at temperature 2) and top-k / top-p keep known prefixes; draws sit away from the
// bucket edges. The same functions against js/analysis/sampling.js on random rows: tests/js/sampling-wasm.test.js.
#include <cmath>
#include <limits>
#include <vector>

#include "kernels/logit_softmax.h"
#include "sampling.h"
#include "test_engine_support.h"

using namespace attnscope;

namespace {
std::vector<float> log_p(const std::vector<double>& p) {
  std::vector<float> logits;
  for (double x : p) logits.push_back(static_cast<float>(std::log(x)));
  return logits;
}
int32_t draw(const std::vector<float>& logits, double temperature, int top_k, double top_p, double u) {
  SamplingScratch scratch;
  return sample_token(logits.data(), static_cast<int>(logits.size()), {temperature, top_k, top_p}, u, scratch);
}
}  // namespace

TEST_CASE("sampling: greedy, top-k, top-p and temperature draw from the buckets the definitions give", "[sampling]") {
  const std::vector<float> z = log_p({0.1, 0.2, 0.3, 0.4});
  // Temperature 1, no limit: buckets [0, .1) [.1, .3) [.3, .6) [.6, 1) in id order.
  CHECK(draw(z, 1, 0, 1, 0.05) == 0);
  CHECK(draw(z, 1, 0, 1, 0.25) == 1);
  CHECK(draw(z, 1, 0, 1, 0.35) == 2);
  CHECK(draw(z, 1, 0, 1, 0.99) == 3);
  // Temperature 2: weights √p, running sums .163 .393 .675 1.
  CHECK(draw(z, 2, 0, 1, 0.35) == 1);
  CHECK(draw(z, 2, 0, 1, 0.70) == 3);
  // Top-k 2: ids 3, 2 (best first) with 0.4 : 0.3, so [0, 4/7) → 3, then 2. k ≥ n: no limit.
  CHECK(draw(z, 1, 2, 1, 0.50) == 3);
  CHECK(draw(z, 1, 2, 1, 0.60) == 2);
  CHECK(draw(z, 1, 4, 1, 0.05) == 0);
  // Top-p 0.5: sorted 3, 2, 1, 0; 0.4 < 0.5 ≤ 0.7 keeps two (as top-k 2); 0.3 keeps one.
  CHECK(draw(z, 1, 0, 0.5, 0.50) == 3);
  CHECK(draw(z, 1, 0, 0.5, 0.60) == 2);
  CHECK(draw(z, 1, 0, 0.3, 0.99) == 3);
  // Greedy: the largest logit, the lowest id among equals; u is not read.
  CHECK(draw({1, 3, 3, 2}, 0, 0, 1, 0.99) == 1);
  CHECK(argmax_id(std::vector<float>{1, 3, 3, 2}.data(), 4) == 1);
}

TEST_CASE("sampling: best ids and the reported softmax", "[sampling]") {
  const std::vector<float> z = {0.5f, 2, 2, -1, 7};
  std::vector<int32_t> ids;
  best_ids(z.data(), 5, 3, ids);
  CHECK(ids == std::vector<int32_t>{4, 1, 2});
  best_ids(z.data(), 5, 9, ids);
  CHECK(ids == std::vector<int32_t>{4, 1, 2, 0, 3});
  best_ids(z.data(), 5, 0, ids);
  CHECK(ids.empty());
  const std::vector<float> p = log_p({0.1, 0.2, 0.3, 0.4});
  const LogitSoftmax s = logit_softmax(p.data(), 4);
  for (int id = 0; id < 4; ++id) CHECK(s.probability(p.data(), id) == Approx(0.1 * (id + 1)).epsilon(1e-6));
  // Σ e^(x − max) for x = (0, 1, −inf), max = 1: e⁻¹ + 1 + 0 (exact inputs; the SIMD128 form's
  // float32 exponential within a few ulps).
  const std::vector<float> x = {0, 1, -std::numeric_limits<float>::infinity()};
  CHECK(kernels::sum_exp_f32(x.data(), 3, 1) == Approx(1.0 + std::exp(-1.0)).epsilon(3e-7));
  CHECK(kernels::sum_exp_f32_naive(x.data(), 3, 1) == Approx(1.0 + std::exp(-1.0)).epsilon(1e-14));
}

TEST_CASE("sampling: rows without a distribution and bad options are refused by name", "[sampling]") {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> nan_row = {0, std::numeric_limits<float>::quiet_NaN(), 1};
  const std::vector<float> all_masked = {-inf, -inf};
  const std::vector<float> z = {0, 1};
  test::expect_error([&] { draw(nan_row, 1, 0, 1, 0.5); }, "E_WEIGHTS", "NaN");
  test::expect_error([&] { draw(nan_row, 0, 0, 1, 0.5); }, "E_WEIGHTS", "NaN");
  test::expect_error([&] { logit_softmax(all_masked.data(), 2); }, "E_WEIGHTS", "-inf");
  test::expect_error([&] { draw({}, 1, 0, 1, 0.5); }, "E_INPUT", "empty");
  test::expect_error([&] { draw(z, -1, 0, 1, 0.5); }, "E_INPUT", "temperature");
  test::expect_error([&] { draw(z, 1, -2, 1, 0.5); }, "E_INPUT", "topK");
  test::expect_error([&] { draw(z, 1, 0, 0, 0.5); }, "E_INPUT", "topP");
}
