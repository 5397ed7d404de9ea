// The feed-forward activations configs name: exact GELU (x·Φ(x) with erf, HF "gelu"), the tanh
// approximation (HF "gelu_new" / "gelu_pytorch_tanh" / "gelu_fast"), ReLU, and SiLU (x·σ(x), HF
// "silu" / "swish": the Llama family's gate).
// Applied in place over a flat array; reference and fast versions.
#pragma once
#include <cstddef>

namespace attnscope::kernels {

enum class Activation { GeluErf, GeluTanh, Relu, Silu };

void activation_f32_naive(float* x, size_t n, Activation act);
void activation_f32_eigen(float* x, size_t n, Activation act);

inline void activation_f32(float* x, size_t n, Activation act) { activation_f32_eigen(x, n, act); }

// The gated linear unit of a SwiGLU MLP, element-wise over n values: up ← act(gate) · up (gate is
// left holding act(gate)).
void gated_activation_f32(float* up, float* gate, size_t n, Activation act);

}  // namespace attnscope::kernels
