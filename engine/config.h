// Model hyper-parameters from a Hugging Face config.json. One struct for every supported family;
// parse_config() is the only place that reads the file and it rejects anything the engine cannot
// run (unknown model_type, activation, inconsistent sizes, options that change the arithmetic)
// with an E_CONFIG error.
#pragma once
#include <string>
#include <string_view>

namespace attnscope {

// Encoders (post-LN, bidirectional): BERT-shaped checkpoints, DistilBERT and RoBERTa (BERT's
// layers; positions counted from pad_token_id + 1, a byte-level BPE vocabulary). Decoders (pre-LN,
// causal): GPT-2.
enum class Family { Bert, DistilBert, Roberta, Gpt2 };

struct ModelConfig {
  Family family = Family::Bert;
  std::string model_type = "bert";   // as written in config.json
  int vocab_size = 30522;
  int hidden_size = 768;             // DistilBERT: "dim"; GPT-2: "n_embd"
  int num_layers = 12;               // "num_hidden_layers" / DistilBERT, GPT-2 "n_layer(s)"
  int num_heads = 12;                // "num_attention_heads" / DistilBERT, GPT-2 "n_head(s)"
  int intermediate_size = 3072;      // DistilBERT: "hidden_dim"; GPT-2: "n_inner" (null: 4 × n_embd)
  int max_position_embeddings = 512; // GPT-2: "n_positions"
  int type_vocab_size = 2;           // 0 for DistilBERT and GPT-2 (no token-type embeddings)
  double layer_norm_eps = 1e-12;     // as written (the kernels use it as float); DistilBERT: 1e-12
  std::string hidden_act = "gelu";   // "gelu" (exact erf) | "gelu_new"/"gelu_pytorch_tanh" (tanh) | "relu"
  int pad_token_id = 0;
  int bos_token_id = -1, eos_token_id = -1;  // GPT-2's <|endoftext|>; -1 when the config has none
  bool has_mlm_head_hint = false;    // architectures[] names a *ForMaskedLM class
  // The masked-LM decoder *is* the word-embedding matrix (Hugging Face's default): a stored
  // decoder weight is then ignored, as transformers' tie_weights() does.
  bool tie_word_embeddings = true;
  // The masked-LM head's activation: BERT's uses hidden_act, RoBERTa's is always exact GELU.
  std::string mlm_head_act = "gelu";

  int head_dim() const { return hidden_size / num_heads; }
  // How many tokens fit: RoBERTa's first position id is pad_token_id + 1 (514 embeddings: 512).
  int max_tokens() const {
    return family == Family::Roberta ? max_position_embeddings - pad_token_id - 1 : max_position_embeddings;
  }
  // A decoder: LayerNorm before each sublayer, a final LayerNorm, and causal attention (a query
  // never sees a later key).
  bool is_decoder() const { return family == Family::Gpt2; }
};

// Throws Error("E_CONFIG", ...) on invalid JSON, missing/ill-typed fields, unknown model_type,
// hidden_size not divisible by num_heads, non-positive sizes, unsupported hidden_act.
ModelConfig parse_config(std::string_view config_json);

}  // namespace attnscope
