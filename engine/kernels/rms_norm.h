// Root-mean-square normalisation over the channel axis (the Llama family's norm):
// y = x / sqrt(mean(x²) + eps) · γ, no mean subtraction and no β, as transformers' LlamaRMSNorm
// computes it in float32. Reference and fast versions.
#pragma once

namespace attnscope::kernels {

// out is (T, C), inp is (T, C), gamma is (C). `out` may alias `inp`.
void rms_norm_f32_naive(float* out, const float* inp, const float* gamma, int T, int C, float eps);
void rms_norm_f32_eigen(float* out, const float* inp, const float* gamma, int T, int C, float eps);

inline void rms_norm_f32(float* out, const float* inp, const float* gamma, int T, int C, float eps) {
  rms_norm_f32_eigen(out, inp, gamma, T, C, eps);
}

}  // namespace attnscope::kernels
