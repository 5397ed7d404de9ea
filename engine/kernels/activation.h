// The feed-forward activations configs name (hidden_act; GPT-2's activation_function): exact GELU
// (x·Φ(x) with erf, HF "gelu"), the tanh approximation (HF "gelu_new" / "gelu_pytorch_tanh" /
// "gelu_fast") and ReLU. Applied in place over a flat array; reference and fast versions.
#pragma once
#include <cstddef>

namespace attnscope::kernels {

enum class Activation { GeluErf, GeluTanh, Relu };

void activation_f32_naive(float* x, size_t n, Activation act);
void activation_f32_eigen(float* x, size_t n, Activation act);

inline void activation_f32(float* x, size_t n, Activation act) { activation_f32_eigen(x, n, act); }

}  // namespace attnscope::kernels
