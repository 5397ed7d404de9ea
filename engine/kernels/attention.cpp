// One attention head in the four passes of llm.c's attention_forward: scores, masking + softmax,
// (probabilities kept), weighted sum of values. The Eigen version does the two products as GEMMs
// over strided Maps of the projections. The first two passes are also a function of their own
// (attention_map_*), which a run keeping its maps on demand calls with the statistics it kept.
#include "attention.h"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <vector>

namespace attnscope::kernels {

namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Strided = Eigen::OuterStride<>;

// Where the probabilities go: `probs`, or (null: a run keeping its maps on demand) this thread's
// scratch of n floats.
float* probs_or_scratch(float* probs, size_t n) {
  if (probs) return probs;
  thread_local std::vector<float> scratch;  // per thread: heads run in parallel
  scratch.resize(n);
  return scratch.data();
}

// Pass 1 of the naive kernel for row i: scaled scores q_i · k_j plus the key mask and the
// relative position bias, over the visible keys.
void naive_scores(float* p, int i, const float* q, const float* k, const float* key_bias, const AttentionShape& s) {
  const int dh = s.head_dim, stride = s.stride, kv_stride = s.key_stride(), visible = s.visible_keys(i);
  const float scale = s.score_scale();
  const float* relative = s.relative_bias ? s.relative_bias_row(i) : nullptr;
  for (int j = 0; j < visible; ++j) {
    float dot = 0.0f;
    for (int d = 0; d < dh; ++d) dot += q[static_cast<size_t>(i) * stride + d] * k[static_cast<size_t>(j) * kv_stride + d];
    p[j] = dot * scale + (key_bias ? key_bias[j] : 0.0f);
    if (relative) p[j] += relative[j];
  }
}

// Pass 1 of the Eigen kernel for every row: P = scale · Q Kᵀ + key mask (the relative bias is
// added row by row with the softmax).
void eigen_scores(float* probs, const float* q, const float* k, const float* key_bias, const AttentionShape& s) {
  const int Tq = s.queries, Tk = s.keys, dh = s.head_dim;
  Eigen::Map<const RowMatrix, 0, Strided> Q(q, Tq, dh, Strided(s.stride));
  Eigen::Map<const RowMatrix, 0, Strided> K(k, Tk, dh, Strided(s.key_stride()));
  Eigen::Map<RowMatrix> P(probs, Tq, Tk);
  P.noalias() = (Q * K.transpose()) * s.score_scale();
  if (key_bias) P.rowwise() += Eigen::Map<const Eigen::Matrix<float, 1, Eigen::Dynamic>>(key_bias, Tk);
}

}  // namespace

void add_relative_bias(float* row, const float* bias, int n) {
  for (int j = 0; j < n; ++j) row[j] += bias[j];
}

void attention_head_f32_naive(float* probs, float* context, const float* q, const float* k,
                              const float* v, const float* key_bias, const AttentionShape& s,
                              SoftmaxStats* stats) {
  const int dh = s.head_dim, stride = s.stride, kv_stride = s.key_stride(), Tk = s.keys;
  float* row = probs ? nullptr : probs_or_scratch(nullptr, static_cast<size_t>(Tk));  // one row when not kept
  for (int i = 0; i < s.queries; ++i) {
    float* p = probs ? probs + static_cast<size_t>(i) * Tk : row;
    const int visible = s.visible_keys(i);
    // pass 1: scaled scores q_i · k_j plus the key mask and the relative position bias
    naive_scores(p, i, q, k, key_bias, s);
    // pass 2: normalise over the visible keys; the causally hidden ones get exactly 0
    softmax_row_with_stats_f32_naive(p, visible, stats ? stats + i : nullptr);
    std::fill(p + visible, p + Tk, 0.0f);
    // pass 3: context_i = Σ_j p_ij v_j
    for (int d = 0; d < dh; ++d) {
      float acc = 0.0f;
      for (int j = 0; j < visible; ++j) acc += p[j] * v[static_cast<size_t>(j) * kv_stride + d];
      context[static_cast<size_t>(i) * stride + d] = acc;
    }
  }
}

void attention_map_f32_naive(float* probs, const float* q, const float* k, const float* key_bias,
                             const AttentionShape& s, const SoftmaxStats* stats) {
  const int Tk = s.keys;
  for (int i = 0; i < s.queries; ++i) {
    float* p = probs + static_cast<size_t>(i) * Tk;
    const int visible = s.visible_keys(i);
    naive_scores(p, i, q, k, key_bias, s);
    softmax_row_from_stats_f32_naive(p, visible, stats[i]);
    std::fill(p + visible, p + Tk, 0.0f);
  }
}

void attention_head_f32_eigen(float* probs, float* context, const float* q, const float* k,
                              const float* v, const float* key_bias, const AttentionShape& s,
                              SoftmaxStats* stats) {
  const int Tq = s.queries, Tk = s.keys, dh = s.head_dim;
  probs = probs_or_scratch(probs, static_cast<size_t>(Tq) * Tk);
  Eigen::Map<const RowMatrix, 0, Strided> V(v, Tk, dh, Strided(s.key_stride()));
  Eigen::Map<RowMatrix, 0, Strided> ctx(context, Tq, dh, Strided(s.stride));
  Eigen::Map<RowMatrix> P(probs, Tq, Tk);

  eigen_scores(probs, q, k, key_bias, s);
  for (int i = 0; i < Tq; ++i) {
    float* row = probs + static_cast<size_t>(i) * Tk;
    const int visible = s.visible_keys(i);
    if (s.relative_bias) add_relative_bias(row, s.relative_bias_row(i), visible);
    softmax_row_with_stats_f32_eigen(row, visible, stats ? stats + i : nullptr);
    std::fill(row + visible, row + Tk, 0.0f);
  }
  ctx.noalias() = P * V;
}

void attention_map_f32_eigen(float* probs, const float* q, const float* k, const float* key_bias,
                             const AttentionShape& s, const SoftmaxStats* stats) {
  const int Tk = s.keys;
  eigen_scores(probs, q, k, key_bias, s);
  for (int i = 0; i < s.queries; ++i) {
    float* row = probs + static_cast<size_t>(i) * Tk;
    const int visible = s.visible_keys(i);
    if (s.relative_bias) add_relative_bias(row, s.relative_bias_row(i), visible);
    softmax_row_from_stats_f32_eigen(row, visible, stats[i]);
    std::fill(row + visible, row + Tk, 0.0f);
  }
}

}  // namespace attnscope::kernels
