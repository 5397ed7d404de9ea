// The feed-forward activations configs name (hidden_act; GPT-2's activation_function): exact
// GELU (x·Φ(x) with erf, HF "gelu"), the tanh approximation (HF "gelu_new" /
// "gelu_pytorch_tanh" / "gelu_fast"), ReLU, and SiLU (x·σ(x), HF "silu" / "swish": the Llama
// family's gate). Applied in place over a flat array; reference and fast versions.
#pragma once
#include <cstddef>

namespace attnscope::kernels {

enum class Activation { GeluErf, GeluTanh, Relu, Silu };

void activation_f32_naive(float* x, size_t n, Activation act);
void activation_f32_eigen(float* x, size_t n, Activation act);

inline void activation_f32(float* x, size_t n, Activation act) { activation_f32_eigen(x, n, act); }

// The gate of a SwiGLU MLP, element-wise over n values: up ← up · activated_gate (the gate's
// activation is applied in its GEMM's epilogue).
void multiply_f32(float* up, const float* activated_gate, size_t n);

}  // namespace attnscope::kernels
