// A linear layer with int8 weights (weightPrecision 'q8'): the weight quantized once
// at load (quantize.h: symmetric, one scale per output channel) and kept as the only copy, in the
// wasm build packed into the int8 GEMM's panels (gemm_q8_wasmsimd.h), natively (out, in)
// row-major for the reference loops below. Activations are quantized per row on every call; the
// bias, the activation and the residual add are applied in f32 in the GEMM's epilogue, exactly
// as linear_packed_f32 does (same LinearEpilogue).
//
// Integration (after the Llama merge): where the loader calls pack_linear(weight, bias, in, out)
// for a 2-D linear weight, a q8 model calls pack_linear_q8 with the same arguments (f32, or f16
// bits: either is quantized row by row without another full-size copy), and the forward pass
// calls linear_packed_q8 wherever it calls linear_packed_f32 for that layer, and
// linear_packed_slice_q8 for linear_packed_slice_f32 (value-vector norms through W_O).
// memory_bytes() is what memoryBytes should count for it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "packed_linear_wasmsimd.h"  // LinearEpilogue

namespace attnscope::kernels {

struct PackedLinearQ8 {
  int in = 0, out = 0;
  std::vector<int8_t> weight;   // wasm: panels from `offset` (64-byte aligned); native: (out, in)
  size_t offset = 0;
  std::vector<float> scale;     // (out): W[n, :] ≈ scale[n] · q[n, :]
  std::vector<int32_t> colsum;  // (out): Σ_k q[n, k], for the activations' zero points
  std::vector<float> bias;      // (out), or empty
  const int8_t* panels() const { return weight.data() + offset; }
  size_t memory_bytes() const {
    return weight.capacity() + (scale.capacity() + bias.capacity()) * sizeof(float) +
           colsum.capacity() * sizeof(int32_t);
  }
};

// Quantizes and packs `weight` (out, in) (consumed: freed before returning) with its bias.
PackedLinearQ8 pack_linear_q8(std::vector<float>&& weight, std::vector<float>&& bias, int in, int out);
PackedLinearQ8 pack_linear_q8(std::vector<uint16_t>&& weight_f16, std::vector<float>&& bias, int in, int out);

// out (T, w.out) = epilogue(inp (T, w.in) · Wᵀ + b) with W int8 and inp quantized per row.
// Threads split the output columns in 8-column panels, as linear_packed_f32. `out` must not alias
// `inp` or the residual.
void linear_packed_q8(float* out, const float* inp, const PackedLinearQ8& w, int T,
                      const LinearEpilogue& epilogue = {});

// Several layers over one input (a block's Q, K and V projections): the input quantized once,
// and every layer's panels shared out over the threads as one job (one wait instead of one per
// layer). outputs[i].out gets exactly what linear_packed_q8(out, inp, *outputs[i].w, T) gives
// (bias, no activation or residual). Every layer's `in` must be the same; count ≤ 4.
struct Q8Output {
  float* out = nullptr;
  const PackedLinearQ8* w = nullptr;
};
void linear_packed_q8_same_input(const Q8Output* outputs, int count, const float* inp, int T);

// out (T, w.out) = inp (T, k_count; row stride ld_inp) · W[:, k_begin : k_begin + k_count]ᵀ, no
// bias (one head's contribution through the output projection, as linear_packed_slice_f32): the
// slice of each input row quantized on its own, the weight's per-channel scales as they are.
// k_begin must be a multiple of 4 (a head's first column: head_dim · h).
void linear_packed_slice_q8(float* out, const float* inp, size_t ld_inp, const PackedLinearQ8& w,
                            int T, int k_begin, int k_count);

// The activation range this build quantizes to: 255 (plain SIMD128, native), 127 (relaxed SIMD).
int q8_activation_max();

// The reference (the native path, and what the wasm kernels must equal bit for bit before the
// activation): C (M, N) = epilogue(float(Σ_k (qa[m,k] − za[m]) · qw[n,k]) · (sa[m] · sw[n]) + b)
// with A quantized per row to [0, qmax] by quantize_row_u8. qw (N, K) row-major.
void gemm_q8_reference(float* c, size_t ldc, const float* a, size_t lda, const int8_t* qw,
                       const float* w_scale, const float* bias, int M, int N, int K, int qmax,
                       const LinearEpilogue& epilogue, size_t ldr);

}  // namespace attnscope::kernels
