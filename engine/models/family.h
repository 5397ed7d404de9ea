// A family of the single-stack models (the BERT family, GPT-2, the Llama family) as the shared
// pass (transformer.h, layer.h) needs it: its layer as data and the little that is its own. Each
// is one file of engine/models/; model_family() picks a config's.
#pragma once
#include <cstdint>
#include <vector>

#include "config.h"
#include "layer.h"
#include "weights.h"

namespace attnscope {

// Which of a layer's linear layers carry a bias.
struct LayerBiases {
  bool qkv = true, o = true, mlp = true;
};

struct ModelFamily {
  LayerSpec layer;
  // The position ids of `ids` when the first sits at position `first`.
  std::vector<int32_t> (*position_ids)(const ModelConfig& config, const std::vector<int32_t>& ids, int first);
  LayerBiases (*biases)(const ModelConfig& config);
  // The checkpoint's tensors by the family's row of the name table (weight_names.h).
  ModelWeights (*load)(const ModelConfig& config, TensorSource& tensors, WeightPrecision precision);
};

// The config's family (families.cpp, from what each family's file defines below).
const ModelFamily& model_family(const ModelConfig& config);

// bert.cpp: BERT, DistilBERT, MiniLM, RoBERTa.
extern const LayerSpec kBertLayer;
std::vector<int32_t> bert_position_ids(const ModelConfig& config, const std::vector<int32_t>& ids, int first);
ModelWeights load_bert(const ModelConfig& config, TensorSource& tensors, WeightPrecision precision);
// gpt2.cpp
extern const LayerSpec kGpt2Layer;
ModelWeights load_gpt2(const ModelConfig& config, TensorSource& tensors, WeightPrecision precision);
// llama.cpp: Llama, Mistral, Qwen2, Qwen3.
extern const LayerSpec kLlamaLayer;
LayerBiases llama_biases(const ModelConfig& config);
ModelWeights load_llama(const ModelConfig& config, TensorSource& tensors, WeightPrecision precision);

// Every linear layer with its bias: the BERT family, GPT-2.
LayerBiases every_bias(const ModelConfig& config);

// first, first + 1, ...: every family but RoBERTa.
std::vector<int32_t> consecutive_positions(const ModelConfig& config, const std::vector<int32_t>& ids, int first);

}  // namespace attnscope
