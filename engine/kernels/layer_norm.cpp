// Layer norm kernels. Mean and variance are accumulated in double: hidden states of real models
// carry outliers (|x| in the hundreds) where a float sum of squares loses digits that the golden
// tests would see.
#include "layer_norm.h"

#include <Eigen/Core>
#include <cmath>

namespace attnscope::kernels {

void layer_norm_f32_naive(float* out, const float* inp, const float* gamma, const float* beta,
                          int T, int C, float eps) {
  for (int t = 0; t < T; ++t) {
    const float* x = inp + static_cast<size_t>(t) * C;
    float* y = out + static_cast<size_t>(t) * C;
    double mean = 0.0;
    for (int c = 0; c < C; ++c) mean += x[c];
    mean /= C;
    double var = 0.0;
    for (int c = 0; c < C; ++c) var += (x[c] - mean) * (x[c] - mean);
    var /= C;
    const double rstd = 1.0 / std::sqrt(var + eps);
    for (int c = 0; c < C; ++c) y[c] = static_cast<float>((x[c] - mean) * rstd) * gamma[c] + beta[c];
  }
}

void layer_norm_f32_eigen(float* out, const float* inp, const float* gamma, const float* beta,
                          int T, int C, float eps) {
  using RowVectorD = Eigen::Matrix<double, 1, Eigen::Dynamic>;
  Eigen::Map<const Eigen::ArrayXf> g(gamma, C), b(beta, C);
  RowVectorD centered(C);
  for (int t = 0; t < T; ++t) {
    Eigen::Map<const Eigen::ArrayXf> x(inp + static_cast<size_t>(t) * C, C);
    Eigen::Map<Eigen::ArrayXf> y(out + static_cast<size_t>(t) * C, C);
    const double mean = x.cast<double>().mean();
    centered = (x.cast<double>() - mean).matrix().transpose();
    const double rstd = 1.0 / std::sqrt(centered.squaredNorm() / C + eps);
    y = (centered.transpose().array() * rstd).cast<float>() * g + b;
  }
}

}  // namespace attnscope::kernels
