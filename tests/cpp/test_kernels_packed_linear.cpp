// PackedLinear natively (where it keeps the (out, in) weight and runs Eigen): the fused epilogue
// (bias, activation, residual), the one-head slice and f16-kept weights against the naive
// kernels, NaN-filled outputs, fixed seeds. The wasm build's packed SIMD128 path is tested in
// tests/js/kernels-simd.test.js.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "half.h"
#include "kernels/activation.h"
#include "kernels/linear.h"
#include "kernels/packed_linear_wasmsimd.h"

using namespace attnscope::kernels;

namespace {
std::vector<float> random_values(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}
}  // namespace

TEST_CASE("packed linear: act(x Wᵀ + b) + residual equals the naive kernels", "[kernels][packed]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int T : {1, 5, 17}) {
    for (int in : {3, 8, 33}) {
      for (int out : {1, 9, 24}) {
        const auto x = random_values(static_cast<size_t>(T) * in, 1 + T);
        const auto w = random_values(static_cast<size_t>(out) * in, 2 + in);
        const auto b = random_values(out, 3 + out);
        const auto residual = random_values(static_cast<size_t>(T) * out, 4);
        std::vector<float> expected(static_cast<size_t>(T) * out, nan);
        linear_f32_naive(expected.data(), x.data(), w.data(), b.data(), T, in, out);
        activation_f32_naive(expected.data(), expected.size(), Activation::GeluErf);
        for (size_t i = 0; i < expected.size(); ++i) expected[i] += residual[i];

        PackedLinear p = pack_linear(std::vector<float>(w), std::vector<float>(b), in, out);
        LinearEpilogue ep;
        ep.activate = true;
        ep.activation = Activation::GeluErf;
        ep.residual = residual.data();
        std::vector<float> got(expected.size(), nan);
        linear_packed_f32(got.data(), x.data(), p, T, ep);
        for (size_t i = 0; i < got.size(); ++i) {
          INFO("T=" << T << " in=" << in << " out=" << out << " i=" << i);
          REQUIRE(std::fabs(got[i] - expected[i]) <= 1e-5f * (1.0f + std::fabs(expected[i])));
        }
      }
    }
  }
}

TEST_CASE("packed linear: one head's slice x · W[:, k0:k0+n]ᵀ", "[kernels][packed]") {
  const int T = 7, in = 24, out = 10, k0 = 8, kn = 8;
  const auto x = random_values(static_cast<size_t>(T) * in, 11);  // head columns [k0, k0+kn)
  const auto w = random_values(static_cast<size_t>(out) * in, 12);
  PackedLinear p = pack_linear(std::vector<float>(w), std::vector<float>(out, 0.0f), in, out);
  std::vector<float> got(static_cast<size_t>(T) * out, std::numeric_limits<float>::quiet_NaN());
  linear_packed_slice_f32(got.data(), x.data() + k0, in, p, T, k0, kn);
  for (int t = 0; t < T; ++t) {
    for (int o = 0; o < out; ++o) {
      double acc = 0.0;
      for (int k = 0; k < kn; ++k) acc += double(x[t * in + k0 + k]) * w[o * in + k0 + k];
      REQUIRE(std::fabs(got[t * out + o] - acc) <= 1e-5);
    }
  }
}

TEST_CASE("packed linear: weights kept as f16 give the naive kernel on the widened weights", "[kernels][packed]") {
  // The native f16 path widens the whole matrix per call (weightPrecision f16 in tests and
  // tools): the result must be exactly the f32 kernel's on the f16-rounded weights.
  for (int T : {1, 6}) {
    const int in = 19, out = 13;
    const auto x = random_values(static_cast<size_t>(T) * in, 21 + T);
    const auto w = random_values(static_cast<size_t>(out) * in, 22);
    const auto b = random_values(out, 23);
    std::vector<uint16_t> halves(w.size());
    attnscope::f32_to_f16(halves.data(), w.data(), w.size());
    std::vector<float> widened(w.size());
    attnscope::f16_to_f32(widened.data(), halves.data(), halves.size());
    std::vector<float> expected(static_cast<size_t>(T) * out), got(expected.size(), std::numeric_limits<float>::quiet_NaN());
    linear_f32_naive(expected.data(), x.data(), widened.data(), b.data(), T, in, out);
    PackedLinear p = pack_linear(std::move(halves), std::vector<float>(b), in, out);
    REQUIRE(p.is_f16());
    linear_packed_f32(got.data(), x.data(), p, T);
    for (size_t i = 0; i < got.size(); ++i) {
      INFO("T=" << T << " i=" << i);
      REQUIRE(std::fabs(got[i] - expected[i]) <= 1e-5f * (1.0f + std::fabs(expected[i])));
    }
  }
}
