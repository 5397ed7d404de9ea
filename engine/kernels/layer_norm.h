// Layer normalisation over the channel axis: y = (x − mean) / sqrt(var + eps) · γ + β, with the
// biased variance (divide by C) exactly as torch.nn.LayerNorm. Reference and fast versions.
#pragma once

namespace attnscope::kernels {

// out is (T, C), inp is (T, C), gamma and beta are (C). `out` may alias `inp`.
void layer_norm_f32_naive(float* out, const float* inp, const float* gamma, const float* beta,
                          int T, int C, float eps);
void layer_norm_f32_eigen(float* out, const float* inp, const float* gamma, const float* beta,
                          int T, int C, float eps);

inline void layer_norm_f32(float* out, const float* inp, const float* gamma, const float* beta,
                           int T, int C, float eps) {
  layer_norm_f32_eigen(out, inp, gamma, beta, T, C, eps);
}

}  // namespace attnscope::kernels
