// Hyper-parameters of an encoder–decoder checkpoint (model_type bart, marian, t5) from a Hugging
// Face config.json. parse_seq2seq_config() is the only reader; what the engine does not implement
// is an E_CONFIG error naming the key. The encoder-only and decoder-only families are config.h's.
#pragma once
#include <string>
#include <string_view>

namespace attnscope {

// BART: learned positions offset by 2, layernorm_embedding, post-LN layers.
// Marian: BART's layers with sinusoidal positions and no layernorm_embedding.
// T5: pre-RMSNorm layers, relative position bias, no positions added to the embeddings.
enum class Seq2SeqFamily { Bart, Marian, T5 };

struct Seq2SeqConfig {
  Seq2SeqFamily family = Seq2SeqFamily::Bart;
  std::string model_type = "bart";
  int vocab_size = 0;
  int d_model = 0;
  int encoder_layers = 0, decoder_layers = 0;  // T5: num_layers, num_decoder_layers
  int encoder_heads = 0, decoder_heads = 0;    // T5: num_heads for both
  int encoder_ffn = 0, decoder_ffn = 0;        // T5: d_ff for both
  int d_kv = 0;                                // T5's head width (0: d_model / heads)
  int max_position_embeddings = 0;             // BART / Marian; T5 has no position table
  double eps = 1e-5;                           // BART / Marian: nn.LayerNorm's; T5: layer_norm_epsilon
  std::string activation = "gelu";             // activation_function; T5: from feed_forward_proj
  bool gated_ffn = false;                      // T5 "gated-*": act(wi_0 x) · wi_1 x
  bool scale_embedding = false;                // embeddings × √d_model (BART / Marian)
  bool tie_word_embeddings = true;             // the head is the shared embedding matrix
  int num_buckets = 32, max_distance = 128;    // T5's relative_attention_*
  int pad_token_id = 0, eos_token_id = -1, decoder_start_token_id = 0;

  int encoder_head_dim() const { return d_kv > 0 ? d_kv : d_model / encoder_heads; }
  int decoder_head_dim() const { return d_kv > 0 ? d_kv : d_model / decoder_heads; }
  // Positions a source or the decoder's input may have (T5: bounded only for memory's sake).
  int max_tokens() const { return family == Seq2SeqFamily::T5 ? 65536 : max_position_embeddings; }
  bool pre_norm() const { return family == Seq2SeqFamily::T5; }
};

// Whether config.json names an encoder–decoder model_type (bart, marian, t5).
bool is_seq2seq_config(std::string_view config_json);

// Throws Error("E_CONFIG", ...) on invalid JSON, a missing or ill-typed key, sizes that do not fit,
// or an option this engine does not implement (named).
Seq2SeqConfig parse_seq2seq_config(std::string_view config_json);

}  // namespace attnscope
