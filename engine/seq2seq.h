// The encoder–decoder transformer of "Attention Is All You Need" as BART, Marian and T5 build it:
// an encoder over the source, and a decoder whose layers add a cross-attention sublayer (queries
// from the target, keys and values from the encoder's output, computed once per source) between
// their causal self-attention and their feed-forward. Both stacks are the one layer of layer.h
// with the family's LayerSpec (engine/models/bart.cpp, t5.cpp):
//   BART, Marian (post-LN):  x ← LN(x + SelfAttn(x));  x ← LN(x + CrossAttn(x, enc));  x ← LN(x + FFN(x))
//   T5 (pre-RMSNorm):        x ← x + SelfAttn(N(x));    x ← x + CrossAttn(N(x), enc);   x ← x + FFN(N(x))
// Every attention probability matrix is kept. The decoder runs over a KvCache (the decoders'
// own type), so generating costs one position per step.
#pragma once
#include <cstdint>
#include <vector>

#include "attention_sources.h"
#include "blocks.h"
#include "hooks.h"
#include "kv_cache.h"
#include "linear_layer.h"
#include "safetensors.h"
#include "models/seq2seq_family.h"
#include "seq2seq_config.h"
#include "weights.h"

namespace attnscope {

// One stack's weights beside its layers.
// Its layers (blocks.h's Layer: q/k/v/o inner = heads × head_dim wide, T5's without biases; the
// norms after (BART, Marian) or before (T5: RMSNorm, β empty) each sublayer; the decoder's with
// their cross-attention; T5's gated feed-forward act(x W_gate) · x W_in).
struct Seq2SeqStack {
  std::vector<Layer> layers;
  std::vector<float> positions;         // BART: learned (P + 2, C); Marian: sinusoidal (P, C)
  LayerNormParams embedding_norm;       // BART's layernorm_embedding
  LayerNormParams final_norm;           // T5's final_layer_norm
  std::vector<float> relative_bias;     // T5: (num_buckets, heads), layer 0's table, shared by all
};

// With WeightPrecision::Q8 the matrices load as with F16 (shared and an untied lm_head stay f16) and
// every linear layer is quantized to int8 as it is packed, as for the encoder and decoder families.
struct Seq2SeqWeights {
  WeightMatrix shared;                  // (V, C): the embeddings of both stacks (and a tied head)
  WeightMatrix lm_head;                 // (V, C) when untied; empty when tied
  std::vector<float> final_logits_bias; // (V) BART / Marian; empty for T5
  Seq2SeqStack encoder, decoder;
};

// The tensors of BartForConditionalGeneration / MarianMTModel / T5ForConditionalGeneration by their
// Hugging Face names ("model." prefix optional for BART and Marian). E_WEIGHTS naming the tensor
// for a missing one or a wrong shape.
Seq2SeqWeights load_seq2seq_weights(const Seq2SeqConfig& config, TensorSource& tensors,
                                    WeightPrecision precision = WeightPrecision::F32);
Seq2SeqWeights load_seq2seq_weights(const Seq2SeqConfig& config, const SafeTensors& tensors,
                                    WeightPrecision precision = WeightPrecision::F32);

// One layer step by step for the positions run, each (tokens, C) but ffn_pre_activation and
// ffn_intermediate (tokens, F): transformer.h's LayerTrace with the cross-attention sublayer between
// the self-attention and the feed-forward (decoders; empty in the encoder), each with its Add & Norm.
//   BART, Marian (post-LN; the *_input_norm steps empty):
//     self_attention_output = SelfAttn(input);  self_attention_residual = input + self_attention_output
//     self_attention_norm = LN(self_attention_residual);  cross_attention_* likewise from it
//     ffn_* from cross_attention_norm;  ffn_residual = cross_attention_norm + ffn_output;  output = LN(ffn_residual)
//   T5 (pre-RMSNorm; the *_attention_norm steps empty):
//     self_attention_input_norm = N(input);  self_attention_output = SelfAttn(self_attention_input_norm)
//     self_attention_residual = input + self_attention_output;  cross_attention_input_norm = N(self_attention_residual)
//     ...;  ffn_residual = cross_attention_residual + ffn_output;  output = ffn_residual
// ffn_pre_activation: the input times W_in (+ b) before the activation (T5's gated form: times W_gate,
// wi_0); ffn_intermediate: what W_out reads (gated: act(x W_gate) · x W_in). The sublayer outputs are
// the projections without their residual (the same values the pass adds).
struct Seq2SeqLayerTrace {
  std::vector<float> self_attention_input_norm, self_attention_output, self_attention_residual, self_attention_norm;
  std::vector<float> cross_attention_input_norm, cross_attention_output, cross_attention_residual, cross_attention_norm;
  std::vector<float> ffn_input_norm, ffn_pre_activation, ffn_intermediate, ffn_output, ffn_residual, output;
};
using Seq2SeqDecoderLayerTrace = Seq2SeqLayerTrace;

struct Seq2SeqStackTrace {
  std::vector<float> embeddings;  // (tokens, C): what layer 0 reads (scaled, positioned, BART's norm)
  std::vector<Seq2SeqLayerTrace> layers;
  std::vector<float> final_norm;  // T5: the stack's final_layer_norm of the last output
};
using Seq2SeqDecoderTrace = Seq2SeqStackTrace;

// What a pass keeps or changes besides its outputs. Head masks as Hugging Face's head_mask,
// decoder_head_mask and cross_attn_head_mask: (layers, heads) row-major or empty (every head 1);
// head h of layer l has its context multiplied by the value (0 switches it off); the probabilities
// kept are the head's own. encode() reads head_mask, decode() the other two.
struct Seq2SeqRunOptions {
  bool trace = false;
  std::vector<float> head_mask, decoder_head_mask, cross_attn_head_mask;
  const Hooks* hooks = nullptr;  // hooks.h: encoder.blocks.<l>.… and decoder.blocks.<l>.…; not owned
  // How the maps are kept (attention_sources.h): encode() decides for the encoder's, decode() for
  // the decoder's self- and cross-attention maps together.
  AttentionMaps maps = AttentionMaps::Eager;
};

// What the encoder leaves for the decoder: its last hidden state and every decoder layer's cross
// keys and values over it (computed once per source).
struct EncoderOutput {
  int source_len = 0;
  std::vector<float> hidden;                 // (S, C)
  std::vector<float> attentions;             // (Le, He, S, S); empty when kept on demand:
  AttentionSources attention_sources;        // what they are made of (attention_sources.h)
  Seq2SeqStackTrace trace;                   // with options.trace; otherwise empty
  std::vector<std::vector<float>> cross_k;   // per decoder layer (S, Hd·dh)
  std::vector<std::vector<float>> cross_v;
};

// A decoder pass over `tokens` new target positions after `keys − tokens` cached ones.
struct DecoderOutput {
  int tokens = 0, keys = 0, source_len = 0;
  std::vector<float> self_attentions;        // (Ld, Hd, tokens, keys): exact zeros above the diagonal
  std::vector<float> cross_attentions;       // (Ld, Hd, tokens, S)
  // Maps on demand: the two above empty, what they are made of kept here instead.
  AttentionSources self_sources, cross_sources;
  std::vector<float> hidden;                 // (tokens, C): after T5's final norm
  Seq2SeqStackTrace trace;                   // with options.trace; otherwise empty
};

class Seq2Seq {
 public:
  Seq2Seq(Seq2SeqConfig config, Seq2SeqWeights weights);

  // E_INPUT for no ids, more than max_tokens(), ids outside the vocabulary, a head mask that is not
  // layers × heads finite values.
  EncoderOutput encode(const std::vector<int32_t>& source, const Seq2SeqRunOptions& options = {}) const;
  // Runs `ids` as the target positions after cache.length ones and appends their keys and values.
  // E_INPUT as encode(), or an EncoderOutput of another model's shape (the cache is then unchanged).
  // options.trace: also fill DecoderOutput::trace (every step of every layer for these positions).
  DecoderOutput decode(const std::vector<int32_t>& ids, const EncoderOutput& encoder, KvCache& cache,
                       const Seq2SeqRunOptions& options = {}) const;
  // Vocabulary logits (rows, V) of decoder hidden states (rows, C): the (tied: shared, with T5's
  // d_model^-0.5 rescale) head plus BART's and Marian's final_logits_bias.
  std::vector<float> logits(const float* hidden, int rows) const;
  // The head logits() reads (V, C) and the factor the hidden state is multiplied by first (T5's
  // tied head: d_model^-0.5; else 1): a readout such as direct logit attribution takes the same.
  const WeightMatrix& unembedding() const { return config_.tie_word_embeddings ? weights_.shared : weights_.lm_head; }
  float head_input_scale() const;

  const Seq2SeqConfig& config() const { return config_; }
  // How both stacks' layers are composed (norm before or after, which norm, positions, FFN).
  const LayerSpec& spec() const { return family_->layer; }
  // The norms' parameters (γ, β) a reader of a trace recomputes the Add & Norm steps with.
  const Seq2SeqWeights& weights() const { return weights_; }

 private:
  void check_ids(const std::vector<int32_t>& ids, int first, const char* what) const;

  Seq2SeqConfig config_;
  Seq2SeqWeights weights_;
  const Seq2SeqModelFamily* family_;  // the config's (engine/models/)
};

}  // namespace attnscope
