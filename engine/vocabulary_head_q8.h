// A q8 model's vocabulary head (weightPrecision 'q8'): the (V, C) unembedding quantized to int8
// once at load, one symmetric scale per vocabulary row (quantize.h's weight quantizer), kept
// row-major. The head is the largest matrix a generated token reads (gpt2-small: 38.6 M weights
// against 85 M in all its layers); kept only as f16 it costs 2·V·C bytes a token, here V·C (what
// onnxruntime's quantize_dynamic reads for the lm_head MatMul). Only the weights are quantized:
// the hidden state stays f32 and each row's int8 weights are widened exactly as they are read
// (dot_rows_q8). Quantizing the hidden row too, as the q8 linear layers do, moved the bundled
// causal model's next-token top-1 off f32's at 4.5% of held-out positions instead of 2.5% in the
// relaxed build (128 activation levels; tests/js/q8-accuracy.test.js), where weight-only int8 costs
// the same bytes. The f16 matrix stays beside it: it is the word embeddings too (tied), and what
// the attribution paths read as W_U.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "weights.h"

namespace attnscope {

struct VocabularyHeadQ8 {
  int rows = 0, cols = 0;      // V, C
  std::vector<int8_t> q;       // (V, C) row-major
  std::vector<float> scale;    // (V): W[v, :] ≈ scale[v] · q[v, :]
  std::vector<float> bias;     // (V), or empty
  bool empty() const { return q.empty(); }
  size_t memory_bytes() const { return q.capacity() + (scale.capacity() + bias.capacity()) * sizeof(float); }
};

// The int8 copy of a (V, C) head (f32 or f16 bits; left as it is) with its bias (V) or none.
VocabularyHeadQ8 quantize_vocabulary_head(const WeightMatrix& w, std::vector<float> bias, int C, int V);

// logits (rows, V) = hidden (rows, C) · (scale ⊙ q)ᵀ + bias; threads take blocks of vocabulary
// rows, and a logit does not depend on the block, the thread or the other rows.
void vocabulary_logits_q8(float* logits, const float* hidden, const VocabularyHeadQ8& head, int rows);

}  // namespace attnscope
