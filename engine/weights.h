// A checkpoint's weights with short field names (bert.cpp style): vectors as f32 arrays, the big
// matrices as f32 or f16 (WeightMatrix). Linear weights keep PyTorch's nn.Linear layout: W is
// (out, in) row-major and y = x Wᵀ + b (GPT-2's Conv1D weights, stored (in, out), are transposed
// at load). load_weights() runs the family's loader (engine/models/), which reads them by its row of
// weight_names.h's table of Hugging Face tensor names (the encoder–decoders' table is
// seq2seq_weights.cpp's) and checks every tensor's shape as it loads.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "config.h"
#include "safetensors.h"

namespace attnscope {

// How the big matrices (every layer's linear weights and the word embeddings, ~98% of a BERT's
// parameters) are kept in memory. F16 halves the RAM; the kernels widen them to f32 as they read
// them, so all arithmetic stays f32. Q8 (int8 linear layers) loads the matrices as F16 does, then packing
// quantizes every linear layer's weight to int8 (one scale per output channel) for the int8
// GEMM; the word embeddings (and an untied LM head) stay f16. Vectors (biases, LayerNorms) and the
// small position/type embeddings are always f32.
enum class WeightPrecision { F32, F16, Q8 };

// One such matrix: exactly one of the two vectors is filled, by its WeightPrecision.
struct WeightMatrix {
  std::vector<float> f32;
  std::vector<uint16_t> f16;  // IEEE binary16 bits
  bool is_f16() const { return !f16.empty(); }
  size_t size() const { return f16.empty() ? f32.size() : f16.size(); }
};

// One block. The two LayerNorms sit after their sublayer's residual add in an encoder (post-LN:
// BERT's attention.output.LayerNorm / output.LayerNorm) and before the sublayer in a decoder
// (pre-LN: GPT-2's ln_1 / ln_2).
// The Llama family: RMSNorms (γ only, β empty); q_w (H·dh, C), k_w and v_w (KV·dh, C), o_w (C, H·dh);
// biases empty where the checkpoint has none; the SwiGLU's gate in ff_g_w (F, C) beside ff_i_w (up).
struct LayerWeights {
  WeightMatrix q_w, k_w, v_w, o_w;                  // (C, C); o_w: attention output projection
  std::vector<float> q_b, k_b, v_b, o_b;            // (C)
  std::vector<float> ln_attn_g, ln_attn_b;          // the attention sublayer's LayerNorm (C)
  WeightMatrix ff_i_w, ff_o_w;                      // (F, C), (C, F)
  std::vector<float> ff_i_b, ff_o_b;                // (F), (C)
  std::vector<float> ln_out_g, ln_out_b;            // the feed-forward sublayer's LayerNorm (C)
  WeightMatrix ff_g_w;                              // Llama: gate_proj (F, C)
  std::vector<float> ff_g_b;                        // Llama with mlp_bias: (F)
  std::vector<float> q_norm_g, k_norm_g;            // Qwen3: per-head RMSNorm γ (dh)
};

// Masked-LM head: transform (dense C×C + activation + LayerNorm) then a decoder tied to the word
// embeddings (vocab, C) plus a bias (vocab). Present only when the checkpoint has it.
struct MlmHeadWeights {
  std::vector<float> dense_w, dense_b, ln_g, ln_b;
  std::vector<float> decoder_w;  // (V, C); empty when tied: the decoder is ModelWeights::word_emb
  std::vector<float> bias;       // (V)
};

struct ModelWeights {
  WeightMatrix word_emb;            // (V, C)
  std::vector<float> pos_emb;       // (P, C)
  std::vector<float> type_emb;      // (type_vocab, C); empty for DistilBERT and GPT-2
  std::vector<float> ln_emb_g, ln_emb_b;  // encoders: LayerNorm of the embeddings sum
  std::vector<LayerWeights> layers;
  bool has_mlm_head = false;
  MlmHeadWeights mlm;
  std::vector<float> ln_f_g, ln_f_b;  // decoders: the final LayerNorm (GPT-2's ln_f; Llama's RMSNorm: γ only)
  // Decoders: the language-model head (V, C), no bias. Empty when tied (the default): the head
  // is word_emb itself.
  WeightMatrix lm_head;
  WeightPrecision precision = WeightPrecision::F32;  // what load_weights() was asked for
};

// Where load_weights() takes tensors from: a whole safetensors file in memory (SafeTensors), or
// tensors converted one at a time while the file streamed in (WeightStream). take_f32 / take_f16
// hand over the tensor as f32 / f16 bits, checking its shape (E_WEIGHTS naming the tensor
// otherwise).
class TensorSource {
 public:
  virtual ~TensorSource() = default;
  virtual bool has(const std::string& name) const = 0;
  virtual std::vector<float> take_f32(const std::string& name, const std::vector<int64_t>& shape) = 0;
  virtual std::vector<uint16_t> take_f16(const std::string& name, const std::vector<int64_t>& shape) = 0;
};

// Whether the model reads this tensor at all. Lets a streaming loader skip the bytes of what
// load_weights() ignores: pooler.*, the next-sentence head, position_ids / mask / inv_freq
// buffers, and a stored decoder weight when it is tied to the word embeddings. Answered from the
// same name table (weight_names.h) load_weights() reads by.
bool weight_is_used(const ModelConfig& config, const std::string& name);
// Whether load_weights() keeps this tensor as a WeightMatrix (in the load's WeightPrecision):
// a layer's linear weight, the word embeddings or a decoder's untied head, by config's family's
// names. Lets a streaming loader convert it to its final precision as the bytes arrive.
bool weight_is_matrix(const ModelConfig& config, const std::string& name, size_t rank);

// BERT: names with or without a "bert." prefix, LayerNorm.weight/bias or old LayerNorm.gamma/beta;
// pooler.* and cls.seq_relationship.* ignored. DistilBERT: "distilbert." prefix optional.
// GPT-2: "transformer." prefix optional (GPT2LMHeadModel vs GPT2Model saves); the attn.bias /
// attn.masked_bias mask buffers of older files are ignored; lm_head.weight is read only when
// tie_word_embeddings is false. Llama family: "model." prefix optional, biases read where the
// config says the family has them, lm_head.weight only when untied.
// Throws Error("E_WEIGHTS", "...<tensor name>...") for a missing tensor or wrong shape.
ModelWeights load_weights(const ModelConfig& config, TensorSource& tensors,
                          WeightPrecision precision = WeightPrecision::F32);
ModelWeights load_weights(const ModelConfig& config, const SafeTensors& tensors,
                          WeightPrecision precision = WeightPrecision::F32);

}  // namespace attnscope
