// Kernel tests in the XNNPACK style: every fast kernel against its naive loop at sizes around
// SIMD tile widths (1, 3, 4, 5, 8, 17, 64), outputs pre-filled with NaN so an unwritten element
// fails, fixed seeds. Softmax edge cases (−inf masks, huge logits) and GELU reference values.
#include <cmath>
#include <limits>
#include <random>
#include <tuple>

#include "kernels/activation.h"
#include "kernels/attention.h"
#include "kernels/layer_norm.h"
#include "kernels/linear.h"
#include "kernels/softmax.h"
#include "test_engine_support.h"

using namespace attnscope::kernels;

namespace {

const int kSizes[] = {1, 3, 4, 5, 8, 17, 64};
const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

std::vector<float> random_vector(size_t n, uint32_t seed, float scale = 1.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, scale);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
  double m = 0.0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(a[i]) || std::isnan(b[i])) return INFINITY;
    m = std::max(m, std::fabs(static_cast<double>(a[i]) - b[i]));
  }
  return m;
}

}  // namespace

TEST_CASE("kernels: linear eigen == naive at tile-edge sizes", "[engine][kernels]") {
  for (int T : kSizes)
    for (int C : kSizes)
      for (int OC : {1, 4, 5, 17}) {
        const auto x = random_vector(static_cast<size_t>(T) * C, 1 + T * 100 + C);
        const auto w = random_vector(static_cast<size_t>(OC) * C, 2 + OC);
        const auto b = random_vector(OC, 3);
        std::vector<float> ref(static_cast<size_t>(T) * OC, kNaN), fast(ref);
        linear_f32_naive(ref.data(), x.data(), w.data(), b.data(), T, C, OC);
        linear_f32_eigen(fast.data(), x.data(), w.data(), b.data(), T, C, OC);
        INFO("T=" << T << " C=" << C << " OC=" << OC);
        CHECK(max_abs_diff(ref, fast) <= 1e-4 * std::sqrt(C));
        // without bias
        std::fill(fast.begin(), fast.end(), kNaN);
        linear_f32_eigen(fast.data(), x.data(), w.data(), nullptr, T, C, OC);
        for (int t = 0; t < T; ++t)
          for (int o = 0; o < OC; ++o) REQUIRE(std::fabs(fast[t * OC + o] + b[o] - ref[t * OC + o]) <= 1e-4 * std::sqrt(C));
      }
}

TEST_CASE("kernels: the naive linear is y = x Wᵀ + b", "[engine][kernels]") {
  // x = [1, 2], W = [[1, 0], [0, 1], [1, 1]], b = [0.5, 0, -1] → y = [1.5, 2, 2]
  const float x[] = {1, 2}, w[] = {1, 0, 0, 1, 1, 1}, b[] = {0.5f, 0, -1};
  float y[3] = {kNaN, kNaN, kNaN};
  linear_f32_naive(y, x, w, b, 1, 2, 3);
  CHECK(y[0] == 1.5f);
  CHECK(y[1] == 2.0f);
  CHECK(y[2] == 2.0f);
}

TEST_CASE("kernels: layer norm eigen == naive, and normalises", "[engine][kernels]") {
  for (int T : kSizes)
    for (int C : kSizes) {
      const auto x = random_vector(static_cast<size_t>(T) * C, 10 + T * 7 + C, 3.0f);
      std::vector<float> g(C, 1.0f), b(C, 0.0f);
      std::vector<float> ref(x.size(), kNaN), fast(x.size(), kNaN);
      layer_norm_f32_naive(ref.data(), x.data(), g.data(), b.data(), T, C, 1e-12f);
      layer_norm_f32_eigen(fast.data(), x.data(), g.data(), b.data(), T, C, 1e-12f);
      INFO("T=" << T << " C=" << C);
      CHECK(max_abs_diff(ref, fast) <= 1e-5);
      if (C > 1) {  // unit gamma, zero beta: each row has mean 0 and (biased) variance 1
        for (int t = 0; t < T; ++t) {
          double mean = 0, var = 0;
          for (int c = 0; c < C; ++c) mean += fast[t * C + c];
          mean /= C;
          for (int c = 0; c < C; ++c) var += (fast[t * C + c] - mean) * (fast[t * C + c] - mean);
          CHECK(std::fabs(mean) <= 1e-5);
          CHECK(std::fabs(var / C - 1.0) <= 1e-4);
        }
      }
    }
  // in place (out aliases inp) gives the same answer
  auto x = random_vector(5 * 17, 77);
  std::vector<float> g = random_vector(17, 78), b = random_vector(17, 79), out(x.size(), kNaN);
  layer_norm_f32_naive(out.data(), x.data(), g.data(), b.data(), 5, 17, 1e-5f);
  layer_norm_f32_eigen(x.data(), x.data(), g.data(), b.data(), 5, 17, 1e-5f);
  CHECK(max_abs_diff(out, x) <= 1e-5);
}

TEST_CASE("kernels: softmax rows sum to 1, masks and large logits", "[engine][kernels]") {
  using Fn = void (*)(float*, int);
  for (Fn softmax : {Fn(softmax_row_f32_naive), Fn(softmax_row_f32_eigen)}) {
    for (int n : kSizes) {
      auto row = random_vector(n, 40 + n, 5.0f);
      softmax(row.data(), n);
      double sum = 0;
      for (float p : row) {
        REQUIRE(p >= 0.0f);
        sum += p;
      }
      CHECK(std::fabs(sum - 1.0) <= 1e-6);
    }
    // large logits: exp(1e4) overflows without the max subtraction
    std::vector<float> big = {1e4f, 1e4f - 1.0f, -1e4f};
    softmax(big.data(), 3);
    CHECK(std::fabs(big[0] - 1.0 / (1.0 + std::exp(-1.0))) <= 1e-6);
    CHECK(std::fabs(big[1] - std::exp(-1.0) / (1.0 + std::exp(-1.0))) <= 1e-6);
    CHECK(big[2] == 0.0f);
    // −inf (masked) entries get exactly zero, the rest renormalise
    std::vector<float> masked = {0.0f, -kInf, 0.0f, -kInf, 0.0f};
    softmax(masked.data(), 5);
    CHECK(masked[1] == 0.0f);
    CHECK(masked[3] == 0.0f);
    CHECK(std::fabs(masked[0] - 1.0f / 3) <= 1e-7);
    // every entry masked: defined as uniform (what HF's finfo.min additive mask yields), not NaN
    std::vector<float> all(4, -kInf);
    softmax(all.data(), 4);
    for (float p : all) CHECK(p == 0.25f);
    // a NaN score (an overflow upstream) makes the row NaN: never a plausible or uniform row,
    // whether the other scores are finite or all masked
    for (std::vector<float> nan : {std::vector<float>{1.0f, kNaN, 2.0f}, std::vector<float>{-kInf, kNaN, -kInf}}) {
      softmax(nan.data(), 3);
      for (float p : nan) CHECK(std::isnan(p));
    }
  }
  // eigen == naive on random rows with masks
  for (int n : kSizes) {
    auto a = random_vector(n, 60 + n, 4.0f);
    for (int j = 0; j < n; j += 3) a[j] = -kInf;
    auto b = a;
    softmax_row_f32_naive(a.data(), n);
    softmax_row_f32_eigen(b.data(), n);
    CHECK(max_abs_diff(a, b) <= 1e-6);
  }
}

TEST_CASE("kernels: GELU and ReLU match their definitions", "[engine][kernels]") {
  // Reference values: x·Φ(x) with Φ from erfc in double, and the tanh formula in double.
  const std::vector<float> xs = {-6.0f, -3.0f, -1.0f, -0.5f, 0.0f, 0.1f, 0.5f, 1.0f, 2.0f, 3.0f, 8.0f};
  auto erf_ref = [](double x) { return x * 0.5 * std::erfc(-x / std::sqrt(2.0)); };
  auto tanh_ref = [](double x) {
    return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
  };
  using Fn = void (*)(float*, size_t, Activation);
  for (Fn act : {Fn(activation_f32_naive), Fn(activation_f32_eigen)}) {
    for (auto [kind, ref] : {std::pair<Activation, double (*)(double)>{Activation::GeluErf, +erf_ref},
                             {Activation::GeluTanh, +tanh_ref}}) {
      auto y = xs;
      act(y.data(), y.size(), kind);
      for (size_t i = 0; i < xs.size(); ++i) CHECK(std::fabs(y[i] - ref(xs[i])) <= 2e-6 * std::max(1.0f, std::fabs(xs[i])));
    }
    auto y = xs;
    act(y.data(), y.size(), Activation::Relu);
    for (size_t i = 0; i < xs.size(); ++i) CHECK(y[i] == std::max(0.0f, xs[i]));
  }
  // Φ(1) = 0.841344746... (standard normal table) pins the erf variant independently of erfc.
  float one = 1.0f;
  activation_f32_eigen(&one, 1, Activation::GeluErf);
  CHECK(std::fabs(one - 0.8413447f) <= 1e-6);
  // sizes around tile widths: eigen == naive
  for (int n : kSizes) {
    auto a = random_vector(n, 90 + n, 3.0f), b = a;
    activation_f32_naive(a.data(), n, Activation::GeluErf);
    activation_f32_eigen(b.data(), n, Activation::GeluErf);
    CHECK(max_abs_diff(a, b) <= 1e-6);
  }
}

TEST_CASE("kernels: attention head eigen == naive, strided heads, masks", "[engine][kernels]") {
  for (int T : kSizes)
    for (int dh : {1, 3, 4, 5, 8, 17}) {
      const int heads = 3, C = heads * dh;
      const auto q = random_vector(static_cast<size_t>(T) * C, 100 + T, 1.0f);
      const auto k = random_vector(static_cast<size_t>(T) * C, 200 + T, 1.0f);
      const auto v = random_vector(static_cast<size_t>(T) * C, 300 + T, 1.0f);
      std::vector<float> bias(T, 0.0f);
      for (int j = 1; j < T; j += 2) bias[j] = -kInf;  // key 0 always visible
      // (padding mask, causal, queries): a full pass, and a decoder's generation step (the last
      // query alone over every key).
      for (const auto& [masked, causal, Tq] : {std::tuple{false, false, T}, std::tuple{true, false, T},
                                               std::tuple{false, true, T}, std::tuple{true, true, T},
                                               std::tuple{false, true, 1}}) {
        AttentionShape shape;
        shape.queries = Tq;
        shape.keys = T;
        shape.head_dim = dh;
        shape.stride = C;
        shape.causal = causal;
        const float* q_rows = q.data() + static_cast<size_t>(T - Tq) * C;  // the last Tq positions
        std::vector<float> p_ref(static_cast<size_t>(Tq) * T, kNaN), p_fast(p_ref);
        std::vector<float> ctx_ref(static_cast<size_t>(Tq) * C, kNaN), ctx_fast(ctx_ref);
        const int h = 1, col = h * dh;  // a middle head: exercises the stride on both sides
        const float* kb = masked ? bias.data() : nullptr;
        attention_head_f32_naive(p_ref.data(), ctx_ref.data() + col, q_rows + col, k.data() + col,
                                 v.data() + col, kb, shape);
        attention_head_f32_eigen(p_fast.data(), ctx_fast.data() + col, q_rows + col, k.data() + col,
                                 v.data() + col, kb, shape);
        INFO("T=" << T << " dh=" << dh << " masked=" << masked << " causal=" << causal << " queries=" << Tq);
        CHECK(max_abs_diff(p_ref, p_fast) <= 1e-5);
        for (int t = 0; t < Tq; ++t)
          for (int c = 0; c < C; ++c) {
            const bool mine = c >= col && c < col + dh;
            const float r = ctx_ref[t * C + c], f = ctx_fast[t * C + c];
            if (mine) {
              REQUIRE(std::fabs(r - f) <= 1e-5);
            } else {  // other heads' columns are untouched
              REQUIRE(std::isnan(f));
            }
          }
        for (int i = 0; i < Tq; ++i) {
          const int position = T - Tq + i;
          double sum = 0.0;
          for (int j = 0; j < T; ++j) {
            const float pr = p_fast[static_cast<size_t>(i) * T + j];
            sum += pr;
            if ((masked && j % 2 == 1) || (causal && j > position)) REQUIRE(pr == 0.0f);
          }
          REQUIRE(std::fabs(sum - 1.0) <= 1e-5);
        }
      }
    }
}
