// A q8 model's vocabulary head (weightPrecision 'q8'): the (V, C) unembedding quantized to int8
// once at load, one symmetric scale per vocabulary row, and packed into the int8 GEMM's panels
// like every other q8 weight. The head is the largest matrix a generated token reads (gpt2-small:
// 38.6 M weights against 85 M in all its layers); kept only as f16 it costs 2·V·C bytes a token,
// widened in registers, where int8 reads V·C (what onnxruntime's quantize_dynamic does to the
// lm_head MatMul). The f16 matrix stays beside it: it is the word embeddings too (tied), and what
// the attribution paths read as W_U.
#pragma once
#include <vector>

#include "kernels/packed_linear_q8.h"
#include "weights.h"

namespace attnscope {

// The int8 copy of a (V, C) head (f32 or f16 bits; left as it is) with its bias (V) or none.
kernels::PackedLinearQ8 quantize_vocabulary_head(const WeightMatrix& w, std::vector<float> bias, int C, int V);

// logits (rows, V) = hidden (rows, C) · Wᵀ + bias through the int8 GEMM (each row's activations
// quantized on their own, as for any q8 layer: a row's logits do not depend on the other rows).
void vocabulary_logits_q8(float* logits, const float* hidden, const kernels::PackedLinearQ8& head, int rows);

}  // namespace attnscope
