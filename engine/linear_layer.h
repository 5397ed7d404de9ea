// One linear layer of a block as the forward pass holds it: packed for the f32 GEMM (f32 or f16
// weights, PackedLinear) or quantized to int8 for the q8 GEMM (weightPrecision 'q8':
// PackedLinearQ8). The blocks call linear_forward / linear_slice_forward and never ask which;
// everything around the GEMM (bias, activation, residual in its epilogue, the norms, the
// attention) is f32 either way.
#pragma once
#include <vector>

#include "kernels/packed_linear_q8.h"
#include "kernels/packed_linear_wasmsimd.h"
#include "weights.h"

namespace attnscope {

struct LinearLayer {
  int in = 0, out = 0;
  kernels::PackedLinear f;      // f32 / f16 weights (empty when q8)
  kernels::PackedLinearQ8 q8;   // int8 weights (empty otherwise)
  bool quantized = false;
  const std::vector<float>& bias() const { return quantized ? q8.bias : f.bias; }
};

// Packs (consuming) an (out, in) weight and its bias: quantized to int8 when `precision` is Q8
// (from f32 or f16 bits), otherwise as the weight's own precision.
LinearLayer pack_linear_layer(WeightMatrix& weight, std::vector<float>& bias, int in, int out,
                              WeightPrecision precision);

// out (T, w.out) = epilogue(x (T, w.in) · Wᵀ + b): linear_packed_f32 or linear_packed_q8.
void linear_forward(float* out, const float* x, const LinearLayer& w, int T,
                    const kernels::LinearEpilogue& epilogue = {});

// outs[i] (T, layers[i]->out) = x (T, in) · Wᵢᵀ + bᵢ for layers reading the same x (a block's Q,
// K and V; count ≤ 4): as one threaded job when all are int8 (x quantized once:
// linear_packed_q8_same_input) or all f32/f16 (linear_packed_f32_same_input), else one
// linear_forward each. The same results either way.
void linear_forward_same_input(float* const* outs, const LinearLayer* const* layers, int count, const float* x, int T);

// out (T, w.out) = x (T, k_count; row stride ld_x) · W[:, k_begin : k_begin + k_count]ᵀ, no bias:
// linear_packed_slice_f32 or linear_packed_slice_q8 (one head through W_O).
void linear_slice_forward(float* out, const float* x, size_t ld_x, const LinearLayer& w, int T, int k_begin,
                          int k_count);

}  // namespace attnscope
