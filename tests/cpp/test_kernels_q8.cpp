// The int8 linear layer natively: quantization round trips for weights (symmetric, per
// output channel) and activations (per row, asymmetric, both the plain range [0, 255] and the
// relaxed build's [0, 127]); linear_packed_q8 against an independent float64 sum over the
// dequantized values (not the kernel's integer sum with the zero-point correction), at panel
// edges with NaN-filled outputs; bit-identical results on 1 and 2 threads; f16 input; memory;
// and the error against the f32 layer on a bert-base shape. The wasm SIMD128 kernels are tested
// bit for bit against a model of the same formulas in tests/js/kernels-q8.test.js.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "half.h"
#include "kernels/packed_linear_q8.h"
#include "kernels/packed_linear_wasmsimd.h"
#include "kernels/quantize.h"
#include "parallel.h"

using namespace attnscope;
using namespace attnscope::kernels;

namespace {
std::vector<float> uniform(size_t n, uint32_t seed, float scale = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-scale, scale);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}
std::vector<float> normal(size_t n, uint32_t seed, float sigma = 1.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, sigma);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}
}  // namespace

TEST_CASE("q8: activation rows round-trip within half a step, zero exact, range ends reached", "[kernels][q8]") {
  for (int qmax : {255, 127}) {
    for (int K : {1, 2, 15, 16, 17, 64, 3072}) {
      for (int kind = 0; kind < 4; ++kind) {
        std::vector<float> x = uniform(K, 100 * K + kind, 3.0f);
        if (kind == 1) for (auto& v : x) v = std::max(v, -0.17f);  // one-sided (GELU outputs)
        if (kind == 2) std::fill(x.begin(), x.end(), 0.0f);
        if (kind == 3) x[0] = 0.0f;
        std::vector<uint8_t> q(K, 0xAA);
        const RowQuant p = quantize_row_u8(q.data(), x.data(), K, qmax);
        std::vector<float> back(K);
        dequantize_row_u8(back.data(), q.data(), K, p);
        const float lo = std::min(0.0f, *std::min_element(x.begin(), x.end()));
        const float hi = std::max(0.0f, *std::max_element(x.begin(), x.end()));
        INFO("qmax=" << qmax << " K=" << K << " kind=" << kind);
        REQUIRE(p.zero >= 0);
        REQUIRE(p.zero <= qmax);
        for (int k = 0; k < K; ++k) {
          REQUIRE(q[k] <= qmax);
          REQUIRE(std::fabs(x[k] - back[k]) <= p.scale * 0.50001f);
          if (x[k] == 0.0f) REQUIRE(back[k] == 0.0f);
        }
        if (lo < 0) REQUIRE(*std::min_element(q.begin(), q.end()) == 0);
        if (hi > 0 && lo < 0) REQUIRE(std::fabs(p.scale * qmax - (hi - lo)) <= 1e-6f * (hi - lo));
        if (kind == 2) REQUIRE(p.scale == 1.0f);
      }
    }
  }
}

TEST_CASE("q8: weights are symmetric per output channel, within half a step, ±127 reached", "[kernels][q8]") {
  const int N = 13, K = 77;
  std::vector<float> w = normal(static_cast<size_t>(N) * K, 5, 0.05f);
  std::fill(w.begin() + 2 * K, w.begin() + 3 * K, 0.0f);  // an all-zero row
  std::vector<int8_t> q(w.size());
  std::vector<float> scale(N);
  quantize_weight_q8(q.data(), scale.data(), w.data(), N, K, K);
  for (int n = 0; n < N; ++n) {
    int top = 0;
    float amax = 0.0f;
    for (int k = 0; k < K; ++k) {
      const size_t i = static_cast<size_t>(n) * K + k;
      REQUIRE(std::abs(q[i]) <= 127);
      REQUIRE(std::fabs(w[i] - scale[n] * q[i]) <= scale[n] * 0.50001f);
      top = std::max(top, std::abs(static_cast<int>(q[i])));
      amax = std::max(amax, std::fabs(w[i]));
    }
    REQUIRE(top == (n == 2 ? 0 : 127));
    REQUIRE(scale[n] == amax / 127.0f);
  }
}

TEST_CASE("q8: linear_packed_q8 equals a float64 sum over the dequantized values", "[kernels][q8]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int T : {1, 4, 5, 17}) {
    for (int in : {1, 3, 8, 33, 130}) {
      for (int out : {1, 7, 8, 9, 24}) {
        const auto x = uniform(static_cast<size_t>(T) * in, 1 + T + in, 2.0f);
        const auto w = normal(static_cast<size_t>(out) * in, 2 + in + out, 0.1f);
        const auto b = uniform(out, 3 + out);
        const auto residual = uniform(static_cast<size_t>(T) * out, 4 + T);
        // The independent reference: quantize both, dequantize, sum in double.
        std::vector<int8_t> qw(w.size());
        std::vector<float> sw(out);
        quantize_weight_q8(qw.data(), sw.data(), w.data(), out, in, in);
        std::vector<double> expected(static_cast<size_t>(T) * out), magnitude(expected.size());
        std::vector<uint8_t> qa(in);
        for (int t = 0; t < T; ++t) {
          const RowQuant p = quantize_row_u8(qa.data(), x.data() + t * in, in, 255);
          for (int n = 0; n < out; ++n) {
            double s = 0, g = 0;
            for (int k = 0; k < in; ++k) {
              const double term = (static_cast<double>(p.scale) * (qa[k] - p.zero)) * (static_cast<double>(sw[n]) * qw[n * in + k]);
              s += term;
              g += std::fabs(term);
            }
            expected[t * out + n] = s + b[n] + residual[t * out + n];
            magnitude[t * out + n] = std::fabs(s) + std::fabs(b[n]) + std::fabs(residual[t * out + n]);
          }
        }
        PackedLinearQ8 lin = pack_linear_q8(std::vector<float>(w), std::vector<float>(b), in, out);
        LinearEpilogue ep;
        ep.residual = residual.data();
        std::vector<float> got(expected.size(), nan);
        linear_packed_q8(got.data(), x.data(), lin, T, ep);
        for (size_t i = 0; i < got.size(); ++i) {
          INFO("T=" << T << " in=" << in << " out=" << out << " i=" << i);
          // f32(Σ) · f32(sa·sw) + b + r: five f32 roundings of terms no larger than `magnitude`
          REQUIRE(std::fabs(got[i] - expected[i]) <= 4e-7 * magnitude[i] + 1e-30);
        }
      }
    }
  }
}

TEST_CASE("q8: 2 threads give the 1-thread result bit for bit (the split is over output panels)", "[kernels][q8][threads]") {
  set_max_threads(std::max(max_threads(), 2));
  const int T = 64, in = 256, out = 200;  // 25 panels of 131,072 multiply-adds: worth splitting
  const auto x = normal(static_cast<size_t>(T) * in, 11);
  const auto w = normal(static_cast<size_t>(out) * in, 12, 0.05f);
  const auto b = normal(out, 13);
  PackedLinearQ8 lin = pack_linear_q8(std::vector<float>(w), std::vector<float>(b), in, out);
  LinearEpilogue ep;
  ep.activate = true;
  ep.activation = Activation::GeluTanh;
  std::vector<float> one(static_cast<size_t>(T) * out), two(one.size());
  {
    ThreadScope scope(1);
    linear_packed_q8(one.data(), x.data(), lin, T, ep);
  }
  const size_t before = split_jobs();
  {
    ThreadScope scope(2);
    linear_packed_q8(two.data(), x.data(), lin, T, ep);
  }
  REQUIRE(split_jobs() == before + 1);
  REQUIRE(std::memcmp(one.data(), two.data(), one.size() * sizeof(float)) == 0);
}

TEST_CASE("q8: from f16 bits = from the widened f32 weight; memory is a quarter of f32", "[kernels][q8]") {
  const int in = 96, out = 40;
  const auto w = normal(static_cast<size_t>(in) * out, 21, 0.1f);
  std::vector<uint16_t> h(w.size());
  f32_to_f16(h.data(), w.data(), w.size());
  std::vector<float> widened(w.size());
  f16_to_f32(widened.data(), h.data(), h.size());
  PackedLinearQ8 a = pack_linear_q8(std::move(h), std::vector<float>(out, 0.5f), in, out);
  PackedLinearQ8 b = pack_linear_q8(std::move(widened), std::vector<float>(out, 0.5f), in, out);
  REQUIRE(a.weight == b.weight);
  REQUIRE(a.scale == b.scale);
  REQUIRE(a.colsum == b.colsum);
  // 768 × 768 as bert-base's attention matrices: int8 + 12 bytes per channel (scale, column sum, bias)
  PackedLinearQ8 big = pack_linear_q8(normal(768 * 768, 22), std::vector<float>(768), 768, 768);
  const double f32_bytes = 768.0 * 768 * 4 + 768 * 4;
  REQUIRE(big.memory_bytes() <= 0.26 * f32_bytes);
}

TEST_CASE("q8: error against the f32 layer on a bert-base FFN shape stays near 1%", "[kernels][q8]") {
  const int T = 32, in = 3072, out = 768;
  auto x = normal(static_cast<size_t>(T) * in, 31);
  for (auto& v : x) v = 0.5f * v * (1.0f + std::erf(v / std::sqrt(2.0f)));  // GELU outputs
  const auto w = normal(static_cast<size_t>(out) * in, 32, 0.02f);
  const auto b = normal(out, 33, 0.02f);
  PackedLinear f = pack_linear(std::vector<float>(w), std::vector<float>(b), in, out);
  PackedLinearQ8 q = pack_linear_q8(std::vector<float>(w), std::vector<float>(b), in, out);
  std::vector<float> y32(static_cast<size_t>(T) * out), y8(y32.size());
  linear_packed_f32(y32.data(), x.data(), f, T);
  linear_packed_q8(y8.data(), x.data(), q, T);
  double num = 0, den = 0;
  for (size_t i = 0; i < y8.size(); ++i) {
    num += (y8[i] - y32[i]) * static_cast<double>(y8[i] - y32[i]);
    den += static_cast<double>(y32[i]) * y32[i];
  }
  const double relative = std::sqrt(num / den);
  INFO("relative error " << relative);
  REQUIRE(relative < 0.02);
  REQUIRE(relative > 0.001);  // it is quantized (not silently the f32 path)
}

TEST_CASE("q8: one head's slice x · W[:, k0:k0+n]ᵀ equals a float64 sum over the dequantized values", "[kernels][q8]") {
  const int T = 7, in = 96, out = 11, k0 = 32, kn = 32, ldx = 96;
  const auto x = uniform(static_cast<size_t>(T) * ldx, 41, 2.0f);
  const auto w = normal(static_cast<size_t>(out) * in, 42, 0.1f);
  PackedLinearQ8 lin = pack_linear_q8(std::vector<float>(w), std::vector<float>(out, 0.0f), in, out);
  std::vector<float> got(static_cast<size_t>(T) * out, std::numeric_limits<float>::quiet_NaN());
  linear_packed_slice_q8(got.data(), x.data() + k0, ldx, lin, T, k0, kn);
  std::vector<int8_t> qw(w.size());
  std::vector<float> sw(out);
  quantize_weight_q8(qw.data(), sw.data(), w.data(), out, in, in);
  std::vector<uint8_t> qa(kn);
  for (int t = 0; t < T; ++t) {
    const RowQuant p = quantize_row_u8(qa.data(), x.data() + t * ldx + k0, kn, 255);
    for (int n = 0; n < out; ++n) {
      double s = 0, g = 0;
      for (int k = 0; k < kn; ++k) {
        const double term = (static_cast<double>(p.scale) * (qa[k] - p.zero)) * (static_cast<double>(sw[n]) * qw[n * in + k0 + k]);
        s += term;
        g += std::fabs(term);
      }
      INFO("t=" << t << " n=" << n);
      REQUIRE(std::fabs(got[t * out + n] - s) <= 4e-7 * std::fabs(s) + 1e-30);
    }
  }
}
