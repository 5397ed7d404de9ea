// The Llama family's kernels against their definitions and their naive loops: RMSNorm (naive ==
// Eigen at odd sizes, and the formula in double), SiLU (x·σ(x) in double), the rotary rotation
// (the rotate_half formula per pair) and the rope frequencies (transformers' default, linear and
// llama3 written out), and grouped-query attention (a query head over its shared K/V head equals
// the same head with that K/V copied).
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "blocks.h"
#include "kernels/activation.h"
#include "kernels/attention.h"
#include "kernels/rms_norm.h"
#include "rotary.h"

using namespace attnscope;
using namespace attnscope::kernels;

namespace {

std::vector<float> random_values(size_t n, unsigned seed, float scale = 1.0f) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> dist(0.0f, scale);
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  return v;
}

}  // namespace

TEST_CASE("llama kernels: RMSNorm naive == Eigen == the formula in double", "[engine][kernels][llama]") {
  for (int C : {1, 3, 7, 8, 9, 16, 17, 64, 576}) {
    const int T = 5;
    const auto x = random_values(static_cast<size_t>(T) * C, 10 + C, 2.0f), g = random_values(C, 20 + C);
    std::vector<float> naive(x.size(), std::numeric_limits<float>::quiet_NaN()), eigen = naive;
    rms_norm_f32_naive(naive.data(), x.data(), g.data(), T, C, 1e-6f);
    rms_norm_f32_eigen(eigen.data(), x.data(), g.data(), T, C, 1e-6f);
    for (int t = 0; t < T; ++t) {
      double squares = 0;
      for (int c = 0; c < C; ++c) squares += static_cast<double>(x[t * C + c]) * x[t * C + c];
      const double inv = 1.0 / std::sqrt(squares / C + 1e-6);
      for (int c = 0; c < C; ++c) {
        const double want = g[c] * (x[t * C + c] * inv);
        INFO("C " << C << " t " << t << " c " << c);
        CHECK(std::fabs(naive[t * C + c] - want) <= 1e-5 * std::max(1.0, std::fabs(want)));
        CHECK(std::fabs(eigen[t * C + c] - want) <= 1e-5 * std::max(1.0, std::fabs(want)));
      }
    }
  }
  std::vector<float> row = {3.0f, 4.0f}, gamma = {1.0f, 2.0f};  // rms = √12.5
  rms_norm_f32_eigen(row.data(), row.data(), gamma.data(), 1, 2, 0.0f);  // in place
  CHECK(std::fabs(row[0] - 3.0 / std::sqrt(12.5)) <= 1e-6);
  CHECK(std::fabs(row[1] - 8.0 / std::sqrt(12.5)) <= 1e-6);
}

TEST_CASE("llama kernels: SiLU is x·σ(x); the gate multiplies", "[engine][kernels][llama]") {
  const std::vector<float> xs = {-100.0f, -20.0f, -3.0f, -1.0f, -0.1f, 0.0f, 0.5f, 1.0f, 4.0f, 30.0f};
  for (auto act : {activation_f32_naive, activation_f32_eigen}) {
    auto y = xs;
    act(y.data(), y.size(), Activation::Silu);
    for (size_t i = 0; i < xs.size(); ++i) {
      const double want = xs[i] / (1.0 + std::exp(-static_cast<double>(xs[i])));
      CHECK(std::fabs(y[i] - want) <= 2e-6 * std::max(1.0, std::fabs(want)));
    }
  }
  std::vector<float> up = {2.0f, -3.0f, 0.5f};
  const std::vector<float> gate = {1.5f, 2.0f, -4.0f};
  multiply_f32(up.data(), gate.data(), up.size());
  CHECK(up == std::vector<float>{3.0f, -6.0f, -2.0f});
}

TEST_CASE("llama kernels: rope frequencies and the rotate_half rotation", "[engine][llama]") {
  RopeConfig rope;
  rope.theta = 10000.0;
  std::vector<double> f = rope_inverse_frequencies(rope, 8);
  REQUIRE(f.size() == 4);
  for (int i = 0; i < 4; ++i) CHECK(f[i] == Approx(std::pow(10000.0, -2.0 * i / 8)).epsilon(1e-15));
  rope.scaling = RopeConfig::Scaling::Linear;
  rope.factor = 4.0;
  const std::vector<double> linear = rope_inverse_frequencies(rope, 8);
  for (int i = 0; i < 4; ++i) CHECK(linear[i] == Approx(f[i] / 4.0).epsilon(1e-15));
  // llama3 with original_max 64, low 1, high 4: wavelengths 2π/f; > 64 slowed by factor, < 16 kept,
  // between blended by smooth = (64 / wavelength − 1) / 3.
  rope.scaling = RopeConfig::Scaling::Llama3;
  rope.factor = 8.0;
  rope.original_max_position_embeddings = 64;
  rope.theta = 50.0;  // wavelengths 6.3, 16.7, 44.4, 118.2 for dh = 8
  const std::vector<double> base = [&] { RopeConfig plain; plain.theta = 50.0; return rope_inverse_frequencies(plain, 8); }();
  const std::vector<double> llama3 = rope_inverse_frequencies(rope, 8);
  for (int i = 0; i < 4; ++i) {
    const double wavelength = 2 * M_PI / base[i];
    double want = base[i];
    if (wavelength > 64) want = base[i] / 8;
    else if (wavelength >= 16) { const double s = (64 / wavelength - 1) / 3; want = (1 - s) * base[i] / 8 + s * base[i]; }
    INFO("i " << i << " wavelength " << wavelength);
    CHECK(llama3[i] == Approx(want).epsilon(1e-15));
  }
  CHECK(llama3[0] == base[0]);          // high frequency: kept
  CHECK(llama3[3] == base[3] / 8);      // low frequency: slowed
  CHECK(llama3[1] != base[1]);          // the blended band
  CHECK(llama3[2] != base[2] / 8);

  // Rotation of 2 heads of dh 4 at positions 3, 4: x1' = x1 cos − x2 sin, x2' = x2 cos + x1 sin.
  std::vector<float> cos, sin;
  const std::vector<double> inv = {0.5, 0.01};
  rope_angles(cos, sin, inv, 3, 2);
  const auto x = random_values(2 * 8, 7);
  auto y = x;
  rotary_forward(y.data(), 2, 2, 4, 8, cos, sin);
  for (int t = 0; t < 2; ++t)
    for (int h = 0; h < 2; ++h)
      for (int i = 0; i < 2; ++i) {
        const double angle = (3 + t) * inv[i];
        const float a = x[t * 8 + h * 4 + i], b = x[t * 8 + h * 4 + i + 2];
        CHECK(y[t * 8 + h * 4 + i] == Approx(a * std::cos(angle) - b * std::sin(angle)).margin(1e-6));
        CHECK(y[t * 8 + h * 4 + i + 2] == Approx(b * std::cos(angle) + a * std::sin(angle)).margin(1e-6));
      }
}

TEST_CASE("llama kernels: grouped-query attention == each query head over a copy of its K/V head", "[engine][llama]") {
  // 4 query heads of 3 over 2 K/V heads: heads 0, 1 read K/V head 0; heads 2, 3 read K/V head 1.
  const int T = 5, H = 4, KV = 2, dh = 3;
  const HeadLayout layout{H, KV, dh};
  const auto q = random_values(T * H * dh, 1), k = random_values(T * KV * dh, 2), v = random_values(T * KV * dh, 3);
  std::vector<float> ctx(T * H * dh), probs(static_cast<size_t>(H) * T * T);
  AttentionMask mask;
  mask.causal = true;
  attention_heads_forward(ctx.data(), probs.data(), q.data(), k.data(), v.data(), layout, mask, T, T);
  // The reference: K and V repeated per query head (transformers' repeat_kv), plain attention.
  std::vector<float> k_rep(T * H * dh), v_rep(T * H * dh);
  for (int t = 0; t < T; ++t)
    for (int h = 0; h < H; ++h)
      for (int d = 0; d < dh; ++d) {
        k_rep[(t * H + h) * dh + d] = k[(t * KV + h / 2) * dh + d];
        v_rep[(t * H + h) * dh + d] = v[(t * KV + h / 2) * dh + d];
      }
  AttentionShape shape;
  shape.queries = shape.keys = T;
  shape.head_dim = dh;
  shape.stride = H * dh;
  shape.causal = true;
  std::vector<float> want_ctx(T * H * dh), want_probs(static_cast<size_t>(T) * T);
  for (int h = 0; h < H; ++h) {
    attention_head_f32_naive(want_probs.data(), want_ctx.data() + h * dh, q.data() + h * dh, k_rep.data() + h * dh,
                             v_rep.data() + h * dh, nullptr, shape);
    for (int i = 0; i < T * T; ++i) CHECK(probs[h * T * T + i] == Approx(want_probs[i]).margin(1e-6));
  }
  for (size_t i = 0; i < ctx.size(); ++i) CHECK(ctx[i] == Approx(want_ctx[i]).margin(1e-6));
}
