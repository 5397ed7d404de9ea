// A linear layer's weight prepared once at load for the build's fastest GEMM, and the call that
// applies it with the epilogue fused: out = act(x Wᵀ + b) + residual. On wasm32+SIMD128 the
// weight is repacked into 8-column panels for gemm_f32_wasmsimd; natively it stays (out, in)
// row-major for Eigen. Either way the PackedLinear owns the only copy of the weight, in f32 or,
// for a model loaded with f16 weights, as f16 bits in the same layout (widened as it is read).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "activation.h"

namespace attnscope::kernels {

// Spare elements a loader reserves after a 2-D weight so pack_linear can align it in place
// (64 bytes either way).
constexpr size_t kWeightSlackFloats = 16;
constexpr size_t kWeightSlackHalves = 32;

struct PackedLinear {
  int in = 0, out = 0;
  std::vector<float> weight;  // wasm: ceil(out/8) panels of (in × 8); native: (out, in)
  std::vector<uint16_t> weight_f16;  // the same as f16 bits instead (then `weight` is empty)
  std::vector<float> bias;    // (out)
  // wasm: the panels start `offset` floats into `weight`, on a 64-byte boundary (Emscripten's
  // malloc aligns to 8 bytes only; a misaligned panel splits one v128 load in four across cache
  // lines). Moving a PackedLinear keeps the buffer, so the offset stays right.
  size_t offset = 0;
  const float* panels() const { return weight.data() + offset; }
  const uint16_t* panels_f16() const { return weight_f16.data() + offset; }
  bool is_f16() const { return !weight_f16.empty(); }
};

// Consumes `weight` (out, in) and `bias` (out): packing replaces the loaded weights instead of
// sitting beside them. With out % 8 == 0 and 16 floats of spare capacity (the loaders reserve
// them, kWeightSlackFloats) it packs in place; otherwise it briefly holds one extra matrix.
PackedLinear pack_linear(std::vector<float>&& weight, std::vector<float>&& bias, int in, int out);
// The same for a weight kept as f16 bits (in place given kWeightSlackHalves spare capacity).
PackedLinear pack_linear(std::vector<uint16_t>&& weight, std::vector<float>&& bias, int in, int out);

struct LinearEpilogue {
  bool activate = false;            // apply `activation` after the bias
  Activation activation = Activation::GeluErf;
  const float* residual = nullptr;  // (T, out), added last; must not alias `out`
};

// out (T, w.out) = epilogue(inp (T, w.in) · Wᵀ + b). `out` must not alias `inp`.
void linear_packed_f32(float* out, const float* inp, const PackedLinear& w, int T,
                       const LinearEpilogue& epilogue = {});

// Several layers over one input (a block's Q, K and V projections): every layer's panels shared
// out over the threads as one job (one wait instead of one per layer). outputs[i].out gets
// exactly what linear_packed_f32(out, inp, *outputs[i].w, T) gives (bias, no activation or
// residual). Every layer's `in` must be the same; count ≤ 4.
struct F32Output {
  float* out = nullptr;
  const PackedLinear* w = nullptr;
};
void linear_packed_f32_same_input(const F32Output* outputs, int count, const float* inp, int T);

// out (T, w.out) = inp (T, k_count; row stride ld_inp) · W[:, k_begin : k_begin + k_count]ᵀ, no
// bias: one head's contribution through the output projection (value-vector norms).
void linear_packed_slice_f32(float* out, const float* inp, size_t ld_inp, const PackedLinear& w,
                             int T, int k_begin, int k_count);

}  // namespace attnscope::kernels
