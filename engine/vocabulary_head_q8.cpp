// The int8 vocabulary head (vocabulary_head_q8.h).
#include "vocabulary_head_q8.h"

#include <algorithm>
#include <utility>

#include "half.h"
#include "kernels/dot_rows.h"
#include "kernels/quantize.h"
#include "parallel.h"

namespace attnscope {

VocabularyHeadQ8 quantize_vocabulary_head(const WeightMatrix& w, std::vector<float> bias, int C, int V) {
  VocabularyHeadQ8 head;
  head.rows = V;
  head.cols = C;
  head.bias = std::move(bias);
  head.q.resize(static_cast<size_t>(V) * C);
  head.scale.resize(V);
  if (!w.is_f16()) {
    kernels::quantize_weight_q8(head.q.data(), head.scale.data(), w.f32.data(), V, C, C);
    return head;
  }
  std::vector<float> row(C);
  for (int v = 0; v < V; ++v) {  // one row widened at a time: no f32 copy of the matrix
    const size_t at = static_cast<size_t>(v) * C;
    f16_to_f32(row.data(), w.f16.data() + at, C);
    kernels::quantize_weight_q8(head.q.data() + at, head.scale.data() + v, row.data(), 1, C, C);
  }
  return head;
}

void vocabulary_logits_q8(float* logits, const float* hidden, const VocabularyHeadQ8& head, int rows) {
  const int V = head.rows, C = head.cols;
  constexpr int kRows = 256;  // as vocabulary_logits: threads take blocks of vocabulary rows
  const size_t blocks = (static_cast<size_t>(V) + kRows - 1) / kRows;
  const float* bias = head.bias.empty() ? nullptr : head.bias.data();
  parallel_for(blocks, min_items_for(static_cast<size_t>(rows) * kRows * C), [&](size_t b0, size_t b1) {
    const int v0 = static_cast<int>(b0) * kRows, n = std::min(V, static_cast<int>(b1) * kRows) - v0;
    kernels::dot_rows_q8(logits + v0, V, hidden, head.q.data() + static_cast<size_t>(v0) * C, head.scale.data() + v0,
                         bias ? bias + v0 : nullptr, rows, n, C);
  });
}

}  // namespace attnscope
