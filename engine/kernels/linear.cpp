// Fully connected layer kernels: a plain triple loop (reference) and an Eigen GEMM (fast).
// Both accumulate in the order their implementation chooses, so they agree to rounding only.
#include "linear.h"

#include <Eigen/Core>

namespace attnscope::kernels {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowVector = Eigen::Matrix<float, 1, Eigen::Dynamic>;

void linear_f32_naive(float* out, const float* inp, const float* weight, const float* bias,
                      int T, int C, int OC) {
  for (int t = 0; t < T; ++t) {
    const float* x = inp + static_cast<size_t>(t) * C;
    for (int o = 0; o < OC; ++o) {
      const float* w = weight + static_cast<size_t>(o) * C;
      float acc = bias ? bias[o] : 0.0f;
      for (int c = 0; c < C; ++c) acc += x[c] * w[c];
      out[static_cast<size_t>(t) * OC + o] = acc;
    }
  }
}

void linear_f32_eigen(float* out, const float* inp, const float* weight, const float* bias,
                      int T, int C, int OC) {
  Eigen::Map<const RowMatrix> x(inp, T, C);
  Eigen::Map<const RowMatrix> w(weight, OC, C);
  Eigen::Map<RowMatrix> y(out, T, OC);
  y.noalias() = x * w.transpose();
  if (bias) y.rowwise() += Eigen::Map<const RowVector>(bias, OC);
}

}  // namespace attnscope::kernels
