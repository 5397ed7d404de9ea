// The int8 vocabulary head (vocabulary_head_q8.h). Absent from the builds without the int8 GEMM
// (build_features.h), which never load a q8 model.
#include "vocabulary_head_q8.h"

#include <utility>

#include "build_features.h"

namespace attnscope {

kernels::PackedLinearQ8 quantize_vocabulary_head(const WeightMatrix& w, std::vector<float> bias, int C, int V) {
  if constexpr (!kBuildHasQ8) throw_not_in_build("weightPrecision 'q8'");
  return w.is_f16() ? kernels::quantize_linear_q8(w.f16.data(), std::move(bias), C, V)
                    : kernels::quantize_linear_q8(w.f32.data(), std::move(bias), C, V);
}

void vocabulary_logits_q8(float* logits, const float* hidden, const kernels::PackedLinearQ8& head, int rows) {
  if constexpr (!kBuildHasQ8) throw_not_in_build("weightPrecision 'q8'");
  kernels::linear_packed_q8(logits, hidden, head, rows);
}

}  // namespace attnscope
