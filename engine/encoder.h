// The BERT-family encoder forward pass. It keeps every attention probability matrix (the point of
// AttnScope) and, on request, the per-layer hidden states, the per-head Q, K, V (for the formula
// walk-through) and the per-head value-vector norms ‖f(x_j)‖ (Kobayashi et al. 2020).
#pragma once
#include <cstdint>
#include <vector>

#include "config.h"
#include "kernels/packed_linear_wasmsimd.h"
#include "weights.h"

namespace attnscope {

struct ForwardOptions {
  bool attentions = true;        // fill ForwardResult::attentions
  bool hidden_states = false;    // fill ForwardResult::hidden_states
  bool qkv = false;              // fill q, k, v
  bool value_norms = false;      // fill value_norms
};

struct ForwardResult {
  int layers = 0, heads = 0, tokens = 0, hidden = 0, head_dim = 0;
  std::vector<float> attentions;     // (L, H, T, T): attentions[l][h][i][j] = P(query i -> key j)
  std::vector<float> hidden_out;     // (T, C): last layer's output
  std::vector<float> hidden_states;  // (L+1, T, C): embeddings output, then each layer's output
  std::vector<float> q, k, v;        // (L, H, T, dh): per-head projections, q NOT pre-scaled
  std::vector<float> value_norms;    // (L, H, T): ‖(x_j W_V,h + b_V,h) W_O,h‖ per key token j
};

// Activations of one forward pass. Kept by a caller that runs the model repeatedly (the wasm
// Model), so each run reuses memory that is already allocated and touched instead of growing
// the heap and faulting fresh pages in: at 512 tokens that is most of what a run costs beyond
// the arithmetic.
struct ForwardWorkspace {
  std::vector<float> q, k, v, ctx, tmp, ff, scratch_probs, head_out;
};

class Encoder {
 public:
  Encoder(ModelConfig config, ModelWeights weights);

  // ids: T token ids; token_types: empty (all zero) or T values < type_vocab_size;
  // attention_mask: empty (all ones) or T values in {0,1} — keys with 0 get −inf before softmax
  // (probability exactly 0). A query whose keys are all masked gets the uniform distribution 1/T
  // (what Hugging Face's additive finfo.min mask produces), never NaN. Padded positions are still
  // computed as queries, as in PyTorch; callers decide whether to show them.
  // Throws Error("E_INPUT", ...) for T == 0, T > max_position_embeddings, ids out of vocab,
  // token types out of range (any non-zero type for DistilBERT), mismatched lengths, mask values
  // other than 0/1.
  ForwardResult forward(const std::vector<int32_t>& ids, const std::vector<int32_t>& token_types,
                        const std::vector<int32_t>& attention_mask,
                        const ForwardOptions& options) const;

  // The same, writing into `out` and `workspace`, whose vectors are resized (their capacity is
  // kept, so a second run of the same length allocates nothing). Outputs not asked for in
  // `options` are left empty. On an E_INPUT error `out` is left unchanged.
  void forward(const std::vector<int32_t>& ids, const std::vector<int32_t>& token_types,
               const std::vector<int32_t>& attention_mask, const ForwardOptions& options,
               ForwardResult& out, ForwardWorkspace& workspace) const;

  // Masked-LM logits (T, V) from a last hidden state (T, C). Throws E_WEIGHTS when the
  // checkpoint has no MLM head.
  std::vector<float> mlm_logits(const std::vector<float>& hidden_out, int tokens) const;

  const ModelConfig& config() const { return config_; }
  bool has_mlm_head() const { return weights_.has_mlm_head; }

 private:
  ModelConfig config_;
  ModelWeights weights_;
  // Each layer's six linear layers, packed once for the build's GEMM. Packing moves the weights
  // and biases out of weights_.layers (those vectors are left empty): one copy in memory.
  struct PackedLayer {
    kernels::PackedLinear q, k, v, o, ff_i, ff_o;
  };
  std::vector<PackedLayer> packed_;
};

}  // namespace attnscope
