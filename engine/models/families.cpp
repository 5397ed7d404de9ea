// Which single-stack family a config belongs to, and what they share.
#include "build_features.h"
#include "models/family.h"

namespace attnscope {

const ModelFamily& model_family(const ModelConfig& config) {
  static const ModelFamily bert{kBertLayer, bert_position_ids, every_bias, load_bert};
  // The encoder build's configs are the BERT family's only (parse_config refuses the others), and
  // the decoders' layers and loaders stay out of it.
  if constexpr (!kBuildHasDecoders) {
    return bert;
  } else {
    static const ModelFamily gpt2{kGpt2Layer, consecutive_positions, every_bias, load_gpt2};
    static const ModelFamily llama{kLlamaLayer, consecutive_positions, llama_biases, load_llama};
    switch (config.family) {
      case Family::Gpt2: return gpt2;
      case Family::Llama: return llama;
      case Family::Bert:
      case Family::DistilBert:
      case Family::Roberta: break;
    }
    return bert;
  }
}

LayerBiases every_bias(const ModelConfig&) { return {}; }

std::vector<int32_t> consecutive_positions(const ModelConfig&, const std::vector<int32_t>& ids, int first) {
  std::vector<int32_t> positions(ids.size());
  for (size_t t = 0; t < ids.size(); ++t) positions[t] = first + static_cast<int32_t>(t);
  return positions;
}

}  // namespace attnscope
