// RMSNorm: the mean of squares accumulated in float (as LlamaRMSNorm's hidden_states.pow(2).mean
// in float32), then one reciprocal square root per row.
#include "rms_norm.h"

#include <Eigen/Core>
#include <cmath>

namespace attnscope::kernels {

void rms_norm_f32_naive(float* out, const float* inp, const float* gamma, int T, int C, float eps) {
  for (int t = 0; t < T; ++t) {
    const float* x = inp + static_cast<size_t>(t) * C;
    float* y = out + static_cast<size_t>(t) * C;
    float squares = 0.0f;
    for (int c = 0; c < C; ++c) squares += x[c] * x[c];
    const float inv = 1.0f / std::sqrt(squares / static_cast<float>(C) + eps);
    for (int c = 0; c < C; ++c) y[c] = gamma[c] * (x[c] * inv);
  }
}

void rms_norm_f32_eigen(float* out, const float* inp, const float* gamma, int T, int C, float eps) {
  using Row = Eigen::Array<float, 1, Eigen::Dynamic>;
  const Eigen::Map<const Row> g(gamma, C);
  for (int t = 0; t < T; ++t) {
    const Eigen::Map<const Row> x(inp + static_cast<size_t>(t) * C, C);
    const float inv = 1.0f / std::sqrt(x.square().mean() + eps);
    Eigen::Map<Row>(out + static_cast<size_t>(t) * C, C) = g * (x * inv);
  }
}

}  // namespace attnscope::kernels
