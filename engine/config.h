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
// causal): GPT-2, and the Llama family (model_type llama, mistral, qwen2, qwen3: RMSNorm, rotary
// positions, grouped-query attention, SwiGLU).
enum class Family { Bert, DistilBert, Roberta, Gpt2, Llama };

// Rotary position embeddings (the Llama family), as transformers' modeling_rope_utils computes the
// inverse frequencies: default θ^(−2i/d); "linear" divides them all by `factor`; "llama3" divides
// the low frequencies by `factor` and blends the middle band (Llama 3.1).
struct RopeConfig {
  enum class Scaling { None, Linear, Llama3 };
  double theta = 10000.0;            // "rope_theta"
  Scaling scaling = Scaling::None;   // "rope_scaling": null / {"rope_type" (or "type"): ...}
  double factor = 1.0;               // linear, llama3
  double low_freq_factor = 1.0, high_freq_factor = 4.0;  // llama3
  int original_max_position_embeddings = 8192;           // llama3
};

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
  double layer_norm_eps = 1e-12;     // as written (the kernels use it as float); DistilBERT: 1e-12;
                                     // the Llama family: "rms_norm_eps"
  std::string hidden_act = "gelu";   // "gelu" (exact erf) | "gelu_new"/"gelu_pytorch_tanh" (tanh) | "relu" | "silu"
  int pad_token_id = 0;
  int bos_token_id = -1, eos_token_id = -1;  // GPT-2's <|endoftext|>; -1 when the config has none
  bool has_mlm_head_hint = false;    // architectures[] names a *ForMaskedLM class
  // The masked-LM decoder *is* the word-embedding matrix (Hugging Face's default): a stored
  // decoder weight is then ignored, as transformers' tie_weights() does.
  bool tie_word_embeddings = true;
  // The masked-LM head's activation: BERT's uses hidden_act, RoBERTa's is always exact GELU.
  std::string mlm_head_act = "gelu";

  // The Llama family (all 0 / false for the others).
  int num_kv_heads = 0;              // "num_key_value_heads" (default num_attention_heads): K/V heads
  int head_dim_override = 0;         // "head_dim" when set (may differ from hidden / heads)
  RopeConfig rope;
  bool qkv_bias = false, o_bias = false, mlp_bias = false;  // Llama attention_bias/mlp_bias, Qwen2 q/k/v
  bool qk_norm = false;              // Qwen3: RMSNorm over each head's q and k before the rotation
  // Mistral / Qwen2 / Qwen3 sliding-window attention, when a layer would use it (0: none). Runs
  // are limited to this many positions, where the window masks nothing (transformers hides key j
  // from query i when i − j ≥ sliding_window), rather than implementing the banded mask.
  int sliding_window = 0;

  int head_dim() const { return head_dim_override > 0 ? head_dim_override : hidden_size / num_heads; }
  int kv_heads() const { return num_kv_heads > 0 ? num_kv_heads : num_heads; }
  // Widths of the concatenated query heads and of the key / value heads (C for every family but
  // the Llama family's, whose head_dim may differ from hidden / heads and whose K/V heads are fewer).
  int q_width() const { return num_heads * head_dim(); }
  int kv_width() const { return kv_heads() * head_dim(); }
  // The key/value head query head h reads (grouped-query attention: consecutive query heads share
  // one, as transformers' repeat_kv lays them out).
  int kv_head_of(int h) const { return h / (num_heads / kv_heads()); }
  // How many tokens fit: RoBERTa's first position id is pad_token_id + 1 (514 embeddings: 512).
  int max_tokens() const {
    if (family == Family::Roberta) return max_position_embeddings - pad_token_id - 1;
    if (sliding_window > 0 && sliding_window < max_position_embeddings) return sliding_window;
    return max_position_embeddings;
  }
  // A decoder: LayerNorm before each sublayer, a final LayerNorm, and causal attention (a query
  // never sees a later key).
  bool is_decoder() const { return family == Family::Gpt2 || family == Family::Llama; }
  // Names of the position limit for messages ("max_position_embeddings", "n_positions",
  // "sliding_window").
  std::string position_limit_key() const;
};

// Throws Error("E_CONFIG", ...) on invalid JSON, missing/ill-typed fields, unknown model_type,
// hidden_size not divisible by num_heads, non-positive sizes, unsupported hidden_act.
ModelConfig parse_config(std::string_view config_json);

}  // namespace attnscope
