// Row softmax kernels (reference loop and Eigen array version). Both share the all-masked rule
// documented in softmax.h so the engine never emits NaN for a fully padded query, and the NaN rule:
// a NaN score makes the whole row NaN (the run's finite check reports it; never a plausible row).
#include "softmax.h"

#include <Eigen/Core>
#include <cmath>
#include <limits>

namespace attnscope::kernels {

namespace {
constexpr float kNegInf = -std::numeric_limits<float>::infinity();

void fill_uniform(float* row, int n) {
  for (int j = 0; j < n; ++j) row[j] = 1.0f / static_cast<float>(n);
}
void fill_nan(float* row, int n) {
  for (int j = 0; j < n; ++j) row[j] = std::numeric_limits<float>::quiet_NaN();
}
bool has_nan(const float* row, int n) {
  bool nan = false;
  for (int j = 0; j < n; ++j) nan |= row[j] != row[j];
  return nan;
}
}  // namespace

void softmax_row_f32_naive(float* row, int n) {
  if (n <= 0) return;
  if (has_nan(row, n)) return fill_nan(row, n);
  float max = kNegInf;
  for (int j = 0; j < n; ++j) max = row[j] > max ? row[j] : max;
  if (max == kNegInf) return fill_uniform(row, n);
  double sum = 0.0;
  for (int j = 0; j < n; ++j) {
    row[j] = std::exp(row[j] - max);
    sum += row[j];
  }
  const float inv = static_cast<float>(1.0 / sum);
  for (int j = 0; j < n; ++j) row[j] *= inv;
}

void softmax_row_f32_eigen(float* row, int n) {
  if (n <= 0) return;
  if (has_nan(row, n)) return fill_nan(row, n);
  Eigen::Map<Eigen::ArrayXf> r(row, n);
  const float max = r.maxCoeff();
  if (max == kNegInf) return fill_uniform(row, n);
  // Eigen's vectorised exp clamps its argument (exp(−inf) ≈ 6e-39, not 0), so masked entries are
  // zeroed explicitly: a masked key must get exactly zero probability. The max entry gives
  // exp(0) = 1, so the sum is ≥ 1.
  r = (r > kNegInf).select((r - max).exp(), 0.0f);
  r *= 1.0f / r.sum();
}

}  // namespace attnscope::kernels
