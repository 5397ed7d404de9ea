// Activation kernels. GELU constants are written as their definitions (1/√2, √(2/π)) so they can be
// checked against the formulas in Hendrycks & Gimpel (2016) rather than against magic numbers.
#include "activation.h"

#include <Eigen/Core>
#include <cmath>

namespace attnscope::kernels {

namespace {
const float kInvSqrt2 = static_cast<float>(1.0 / std::sqrt(2.0));
const float kSqrt2OverPi = static_cast<float>(std::sqrt(2.0 / 3.14159265358979323846));
constexpr float kTanhCubic = 0.044715f;

float gelu_erf(float x) { return 0.5f * x * (1.0f + std::erf(x * kInvSqrt2)); }
float silu(float x) { return x / (1.0f + std::exp(-x)); }
float gelu_tanh(float x) {
  return 0.5f * x * (1.0f + std::tanh(kSqrt2OverPi * (x + kTanhCubic * x * x * x)));
}
}  // namespace

void activation_f32_naive(float* x, size_t n, Activation act) {
  for (size_t i = 0; i < n; ++i) {
    switch (act) {
      case Activation::GeluErf: x[i] = gelu_erf(x[i]); break;
      case Activation::GeluTanh: x[i] = gelu_tanh(x[i]); break;
      case Activation::Relu: x[i] = x[i] > 0.0f ? x[i] : 0.0f; break;
      case Activation::Silu: x[i] = silu(x[i]); break;
    }
  }
}

void activation_f32_eigen(float* x, size_t n, Activation act) {
  Eigen::Map<Eigen::ArrayXf> a(x, static_cast<Eigen::Index>(n));
  switch (act) {
    case Activation::GeluErf:
      // Eigen's array erf lives in the unsupported SpecialFunctions module; std::erf per element
      // keeps the build on Eigen's supported core.
      a = a.unaryExpr([](float v) { return gelu_erf(v); });
      break;
    case Activation::GeluTanh:
      a = 0.5f * a * (1.0f + (kSqrt2OverPi * (a + kTanhCubic * a.cube())).tanh());
      break;
    case Activation::Relu:
      a = a.max(0.0f);
      break;
    case Activation::Silu:
      a = a / (1.0f + (-a).exp());
      break;
  }
}

void multiply_f32(float* up, const float* activated_gate, size_t n) {
  Eigen::Map<Eigen::ArrayXf>(up, static_cast<Eigen::Index>(n)) *=
      Eigen::Map<const Eigen::ArrayXf>(activated_gate, static_cast<Eigen::Index>(n));
}

}  // namespace attnscope::kernels
