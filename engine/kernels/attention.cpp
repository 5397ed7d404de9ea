// One attention head in the four passes of llm.c's attention_forward: scores, masking + softmax,
// (probabilities kept), weighted sum of values. The Eigen version does the two products as GEMMs
// over strided Maps of the projections.
#include "attention.h"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>

#include "softmax.h"

namespace attnscope::kernels {

void add_relative_bias(float* row, const float* bias, int n) {
  for (int j = 0; j < n; ++j) row[j] += bias[j];
}

void attention_head_f32_naive(float* probs, float* context, const float* q, const float* k,
                              const float* v, const float* key_bias, const AttentionShape& s) {
  const int dh = s.head_dim, stride = s.stride, kv_stride = s.key_stride(), Tk = s.keys;
  const float scale = s.score_scale();
  for (int i = 0; i < s.queries; ++i) {
    float* p = probs + static_cast<size_t>(i) * Tk;
    const int visible = s.visible_keys(i);
    const float* relative = s.relative_bias ? s.relative_bias_row(i) : nullptr;
    // pass 1: scaled scores q_i · k_j plus the key mask and the relative position bias
    for (int j = 0; j < visible; ++j) {
      float dot = 0.0f;
      for (int d = 0; d < dh; ++d) dot += q[static_cast<size_t>(i) * stride + d] * k[static_cast<size_t>(j) * kv_stride + d];
      p[j] = dot * scale + (key_bias ? key_bias[j] : 0.0f);
      if (relative) p[j] += relative[j];
    }
    // pass 2: normalise over the visible keys; the causally hidden ones get exactly 0
    softmax_row_f32_naive(p, visible);
    std::fill(p + visible, p + Tk, 0.0f);
    // pass 3: context_i = Σ_j p_ij v_j
    for (int d = 0; d < dh; ++d) {
      float acc = 0.0f;
      for (int j = 0; j < visible; ++j) acc += p[j] * v[static_cast<size_t>(j) * kv_stride + d];
      context[static_cast<size_t>(i) * stride + d] = acc;
    }
  }
}

void attention_head_f32_eigen(float* probs, float* context, const float* q, const float* k,
                              const float* v, const float* key_bias, const AttentionShape& s) {
  using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using Strided = Eigen::OuterStride<>;
  const int Tq = s.queries, Tk = s.keys, dh = s.head_dim;
  Eigen::Map<const RowMatrix, 0, Strided> Q(q, Tq, dh, Strided(s.stride));
  Eigen::Map<const RowMatrix, 0, Strided> K(k, Tk, dh, Strided(s.key_stride()));
  Eigen::Map<const RowMatrix, 0, Strided> V(v, Tk, dh, Strided(s.key_stride()));
  Eigen::Map<RowMatrix, 0, Strided> ctx(context, Tq, dh, Strided(s.stride));
  Eigen::Map<RowMatrix> P(probs, Tq, Tk);

  P.noalias() = (Q * K.transpose()) * s.score_scale();
  if (key_bias) P.rowwise() += Eigen::Map<const Eigen::Matrix<float, 1, Eigen::Dynamic>>(key_bias, Tk);
  for (int i = 0; i < Tq; ++i) {
    float* row = probs + static_cast<size_t>(i) * Tk;
    const int visible = s.visible_keys(i);
    if (s.relative_bias) add_relative_bias(row, s.relative_bias_row(i), visible);
    softmax_row_f32_eigen(row, visible);
    std::fill(row + visible, row + Tk, 0.0f);
  }
  ctx.noalias() = P * V;
}

}  // namespace attnscope::kernels
