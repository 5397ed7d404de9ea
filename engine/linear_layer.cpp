// LinearLayer: the choice between the f32 and the int8 GEMM, made once per call (the core wasm
// build has only the f32 one: build_features.h).
#include "linear_layer.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "build_features.h"

namespace attnscope {

LinearLayer pack_linear_layer(WeightMatrix& w, std::vector<float>& bias, int in, int out, WeightPrecision precision) {
  LinearLayer layer;
  layer.in = in;
  layer.out = out;
  if (precision == WeightPrecision::Q8) {
    if constexpr (!kBuildHasQ8) throw_not_in_build("weightPrecision 'q8'");
    layer.quantized = true;
    layer.q8 = w.is_f16() ? kernels::pack_linear_q8(std::move(w.f16), std::move(bias), in, out)
                          : kernels::pack_linear_q8(std::move(w.f32), std::move(bias), in, out);
  } else {
    layer.f = w.is_f16() ? kernels::pack_linear(std::move(w.f16), std::move(bias), in, out)
                         : kernels::pack_linear(std::move(w.f32), std::move(bias), in, out);
  }
  return layer;
}

void linear_forward(float* out, const float* x, const LinearLayer& w, int T, const kernels::LinearEpilogue& epilogue) {
  if (kBuildHasQ8 && w.quantized)
    kernels::linear_packed_q8(out, x, w.q8, T, epilogue);
  else
    kernels::linear_packed_f32(out, x, w.f, T, epilogue);
}

void linear_forward_same_input(float* const* outs, const LinearLayer* const* layers, int count, const float* x, int T) {
  bool all_q8 = kBuildHasQ8 && count >= 1 && count <= 4, all_f32 = count >= 1 && count <= 4;
  for (int i = 0; i < count; ++i) {
    const bool same_in = layers[i]->in == layers[0]->in;
    all_q8 = all_q8 && same_in && layers[i]->quantized;
    all_f32 = all_f32 && same_in && !(kBuildHasQ8 && layers[i]->quantized);
  }
  if (all_q8) {
    kernels::Q8Output outputs[4];
    for (int i = 0; i < count; ++i) outputs[i] = {outs[i], &layers[i]->q8};
    kernels::linear_packed_q8_same_input(outputs, count, x, T);
  } else if (all_f32) {
    kernels::F32Output outputs[4];
    for (int i = 0; i < count; ++i) outputs[i] = {outs[i], &layers[i]->f};
    kernels::linear_packed_f32_same_input(outputs, count, x, T);
  } else {
    for (int i = 0; i < count; ++i) linear_forward(outs[i], x, *layers[i], T);
  }
}

void linear_slice_forward(float* out, const float* x, size_t ld_x, const LinearLayer& w, int T, int k_begin,
                          int k_count) {
  if (kBuildHasQ8 && w.quantized && k_begin % 4 != 0) {
    // The int8 panels hold k in groups of 4, so a slice starts on a group (a head_dim that is not
    // a multiple of 4: the test fixtures'). Widen it to whole groups with zero columns: a row's
    // quantization range always holds 0, so its scale and zero point are the slice's own, a zero
    // quantizes to the zero point exactly and adds nothing: the same result as the slice alone.
    const int begin = k_begin / 4 * 4, end = std::min(w.in, (k_begin + k_count + 3) / 4 * 4), width = end - begin;
    std::vector<float> widened(static_cast<size_t>(T) * width, 0.0f);
    for (int t = 0; t < T; ++t)
      std::copy_n(x + t * ld_x, k_count, widened.data() + static_cast<size_t>(t) * width + (k_begin - begin));
    kernels::linear_packed_slice_q8(out, widened.data(), width, w.q8, T, begin, width);
  } else if (kBuildHasQ8 && w.quantized) {
    kernels::linear_packed_slice_q8(out, x, ld_x, w.q8, T, k_begin, k_count);
  } else
    kernels::linear_packed_slice_f32(out, x, ld_x, w.f, T, k_begin, k_count);
}

}  // namespace attnscope
