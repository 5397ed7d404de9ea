// Fully connected layer y = x Wᵀ + b with PyTorch's nn.Linear layout (W is (OC, C) row-major).
// The naive loop is the reference the tests compare the fast version against; the engine calls
// linear_f32(), which routes to the fastest version available for the build.
#pragma once

namespace attnscope::kernels {

// out is (T, OC), inp is (T, C), weight is (OC, C), bias is (OC) or nullptr.
// `out` must not alias `inp`.
void linear_f32_naive(float* out, const float* inp, const float* weight, const float* bias,
                      int T, int C, int OC);
void linear_f32_eigen(float* out, const float* inp, const float* weight, const float* bias,
                      int T, int C, int OC);

inline void linear_f32(float* out, const float* inp, const float* weight, const float* bias,
                       int T, int C, int OC) {
  linear_f32_eigen(out, inp, weight, bias, T, C, OC);
}

}  // namespace attnscope::kernels
