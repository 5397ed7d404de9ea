// Row softmax kernels (reference loop and Eigen array version). Both share the all-masked rule
// documented in softmax.h so the engine never emits NaN for a fully padded query, and the NaN rule:
// a NaN score makes the whole row NaN (the run's finite check reports it; never a plausible row).
// Each is split where a run that computes its maps on demand splits it: the statistics (max, the
// normalising factor) kept by the pass, the exponentials and the product redone from them.
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

// The special rows' statistics (softmax.h); true when the row was one (and has been filled).
bool special_row(float* row, int n, float max, SoftmaxStats* stats) {
  if (max != max) {
    fill_nan(row, n);
  } else if (max == kNegInf) {
    fill_uniform(row, n);
  } else {
    return false;
  }
  if (stats) *stats = {max, 0.0f};
  return true;
}

// row[j] ← e^(row[j] − max), masked (−inf) entries exactly 0, four entries at a time counted from
// the row's start through a fixed-size Eigen packet, the tail padded with −inf; returns their sum
// (four lane sums, then across). Eigen's dynamic-size loops and reductions would send a row's
// unaligned head through scalar code (std::exp, whose bits differ from its vectorised exp, and
// another summation order): the same scores would give a row that depends on where its buffer
// sits, and a map computed on demand into another buffer would not equal the one the pass kept.
// (Eigen's vectorised exp clamps its argument, exp(−inf) ≈ 6e-39, hence the select.)
float exp_shifted_eigen(float* row, int n, float max) {
  Eigen::Array4f x, sum = Eigen::Array4f::Zero();
  for (int j = 0; j < n; j += 4) {
    const int lanes = n - j < 4 ? n - j : 4;
    for (int i = 0; i < 4; ++i) x[i] = i < lanes ? row[j + i] : kNegInf;
    x = (x > kNegInf).select((x - max).exp(), 0.0f);
    sum += x;
    for (int i = 0; i < lanes; ++i) row[j + i] = x[i];
  }
  return (sum[0] + sum[1]) + (sum[2] + sum[3]);
}
}  // namespace

void softmax_row_with_stats_f32_naive(float* row, int n, SoftmaxStats* stats) {
  if (n <= 0) return;
  float max = kNegInf;
  if (has_nan(row, n)) max = std::numeric_limits<float>::quiet_NaN();
  else
    for (int j = 0; j < n; ++j) max = row[j] > max ? row[j] : max;
  if (special_row(row, n, max, stats)) return;
  double sum = 0.0;
  for (int j = 0; j < n; ++j) {
    row[j] = std::exp(row[j] - max);
    sum += row[j];
  }
  const float inv = static_cast<float>(1.0 / sum);
  for (int j = 0; j < n; ++j) row[j] *= inv;
  if (stats) *stats = {max, inv};
}

void softmax_row_from_stats_f32_naive(float* row, int n, const SoftmaxStats& stats) {
  if (n <= 0 || special_row(row, n, stats.max, nullptr)) return;
  for (int j = 0; j < n; ++j) row[j] = std::exp(row[j] - stats.max);
  for (int j = 0; j < n; ++j) row[j] *= stats.inverse_sum;
}

void softmax_row_with_stats_f32_eigen(float* row, int n, SoftmaxStats* stats) {
  if (n <= 0) return;
  Eigen::Map<Eigen::ArrayXf> r(row, n);
  const float max = has_nan(row, n) ? std::numeric_limits<float>::quiet_NaN() : r.maxCoeff();
  if (special_row(row, n, max, stats)) return;
  const float inv = 1.0f / exp_shifted_eigen(row, n, max);  // the max entry gives exp(0) = 1: the sum is ≥ 1
  r *= inv;
  if (stats) *stats = {max, inv};
}

void softmax_row_from_stats_f32_eigen(float* row, int n, const SoftmaxStats& stats) {
  if (n <= 0 || special_row(row, n, stats.max, nullptr)) return;
  exp_shifted_eigen(row, n, stats.max);
  Eigen::Map<Eigen::ArrayXf>(row, n) *= stats.inverse_sum;
}

void softmax_row_f32_naive(float* row, int n) { softmax_row_with_stats_f32_naive(row, n, nullptr); }
void softmax_row_f32_eigen(float* row, int n) { softmax_row_with_stats_f32_eigen(row, n, nullptr); }

}  // namespace attnscope::kernels
