// The encoder–decoder model JavaScript holds (config + Seq2Seq engine + tokenizer of one BART,
// Marian or T5 checkpoint): a run over a source and a decoder input, and generation over the
// decoder's KV cache with the source's cross keys and values computed once. Results leave as
// copies (fresh typed arrays). bindings.cpp builds it from a WeightUpload (seq2seq_stream_config);
// seq2seq_model.cpp's EMSCRIPTEN_BINDINGS block declares its methods.
#pragma once
#include <emscripten/val.h>

#include <algorithm>
#include <optional>
#include <string>

#include "config.h"
#include "convert.h"
#include "error.h"
#include "analysis.h"
#include "flow_js.h"
#include "flow_models.h"
#include "parallel.h"
#include "sampling_js.h"
#include "interventions.h"
#include "seq2seq.h"
#include "seq2seq_analysis.h"
#include "weight_upload.h"
#include "tokenizer/tokenizer.h"
#include "weight_stream.h"

namespace attnscope::bindings {

// A stack's trace for JavaScript (camelCase steps of every layer, the norms' parameters), with the
// values each head's weights average: self_values[l] (keys, H·dh) and, for the decoder, the
// cross-attention's (the encoder's, per decoder layer).
emscripten::val stack_trace_to_js(const Seq2SeqStackTrace& trace, const Seq2SeqStack& stack,
                                  const std::vector<std::vector<float>>& self_values,
                                  const std::vector<std::vector<float>>* cross_values);

// Hugging Face's three head masks from a run's options ({headMask, decoderHeadMask,
// crossAttnHeadMask}: flat (layers·heads) arrays or absent).
Seq2SeqRunOptions head_masks_from_js(const emscripten::val& js_options);

// Value norms (blocks.h value_norms_forward) of one attention of every layer: values[l] (keys, H·dh)
// read by weights(l) → Float32Array (L, H, keys).
emscripten::val value_norms_to_js(const std::vector<const float*>& values,
                                  const std::vector<const AttentionWeights*>& weights, int keys);

// Read hooks on one stack's attention projections (hooks.h): the per-head Q, K, V of a run
// (the formula view's) and, for a trace, each layer's values.
class StackRecorder {
 public:
  StackRecorder(HookStack stack, int layers, int heads, int head_dim, bool qkv, bool values);
  void install(Hooks& hooks);  // the recorder must outlive the pass
  emscripten::val qkv_to_js() const;
  const std::vector<std::vector<float>>& values() const { return values_; }

 private:
  HookStack stack_;
  int heads_, head_dim_;
  std::vector<std::vector<float>> q_, k_, v_, values_;
};

class Seq2SeqModel {
 public:
  // target: the tokenizer of target text where the checkpoint has its own (Marian's target.spm).
  Seq2SeqModel(Seq2SeqConfig config, Seq2Seq engine, tok::Tokenizer tokenizer, std::optional<tok::Tokenizer> target)
      : config_(std::move(config)), engine_(std::move(engine)), tokenizer_(std::move(tokenizer)), target_(std::move(target)) {}

  // camelCase, as the JavaScript layer names config keys.
  emscripten::val config() const {
    const Seq2SeqConfig& c = config_;
    emscripten::val out = val::object();
    out.set("modelType", emscripten::val(c.model_type));
    out.set("isEncoderDecoder", emscripten::val(true));
    out.set("vocabSize", emscripten::val(c.vocab_size));
    out.set("hiddenSize", emscripten::val(c.d_model));
    out.set("encoderLayers", emscripten::val(c.encoder_layers));
    out.set("decoderLayers", emscripten::val(c.decoder_layers));
    out.set("encoderHeads", emscripten::val(c.encoder_heads));
    out.set("decoderHeads", emscripten::val(c.decoder_heads));
    out.set("encoderHeadDim", emscripten::val(c.encoder_head_dim()));
    out.set("decoderHeadDim", emscripten::val(c.decoder_head_dim()));
    out.set("encoderFfnDim", emscripten::val(c.encoder_ffn));
    out.set("decoderFfnDim", emscripten::val(c.decoder_ffn));
    out.set("maxTokens", emscripten::val(c.max_tokens()));
    out.set("padTokenId", emscripten::val(c.pad_token_id));
    out.set("eosTokenId", emscripten::val(c.eos_token_id));
    out.set("decoderStartTokenId", emscripten::val(c.decoder_start_token_id));
    out.set("activation", emscripten::val(c.activation));
    out.set("gatedFfn", emscripten::val(c.gated_ffn));  // T5 "gated-*": act(x W_gate) · x W_in
    out.set("tieWordEmbeddings", emscripten::val(c.tie_word_embeddings));
    out.set("layerNormEps", emscripten::val(c.eps));  // the traced norms recomputed with it
    return out;
  }

  emscripten::val encode_text(const emscripten::val& text_js, int max_length) const {
    return guarded([&] {
      return encoding_to_js(tokenizer_.encode(string_from_js(text_js), std::nullopt, max_length));
    });
  }
  // Target text (the decoder's side), with the target tokenizer where there is one.
  emscripten::val encode_target(const emscripten::val& text_js, int max_length) const {
    return guarded([&] {
      return encoding_to_js(target_tokenizer().encode(string_from_js(text_js), std::nullopt, max_length));
    });
  }
  bool has_target_tokenizer() const { return target_.has_value(); }

  // One pass: the encoder over `source`, the decoder over `decoder_ids` (decoder_start_token_id
  // and the target). {encoderAttentions (Le,He,S,S), decoderAttentions (Ld,Hd,T,T),
  // crossAttentions (Ld,Hd,T,S), hidden (T,C), logits (T,V)}. options: {trace, qkv, headMask,
  // decoderHeadMask, crossAttnHeadMask (flat (layers·heads) arrays or absent), flow, valueNorms}; with trace,
  // encoderTrace and decoderTrace (stack_trace_to_js), with qkv encoderQkv and decoderQkv
  // ({q, k, v}: (L, H, T, dh) each, the self-attention's), both read through hook points.
  // With flow, flow: the decoder's information flow (flow_js.h) and the encoder's as flow.encoder.
  // With valueNorms: encoderValueNorms (Le,He,S), decoderValueNorms (Ld,Hd,T), crossValueNorms
  // (Ld,Hd,S), ‖v_j W_O,h‖ per key of each attention, the values read through hook points.
  emscripten::val run(const emscripten::val& source, const emscripten::val& decoder_ids,
                      const emscripten::val& js_options) const {
    return guarded([&] {
      ThreadScope threads(threads_);
      const Seq2SeqConfig& c = engine_.config();
      Seq2SeqRunOptions options = head_masks_from_js(js_options);
      options.trace = js_options["trace"].as<bool>();
      const bool qkv = js_options["qkv"].as<bool>();
      const bool value_norms = js_options["valueNorms"].as<bool>();
      Hooks hooks;
      StackRecorder encoder(HookStack::Encoder, c.encoder_layers, c.encoder_heads, c.encoder_head_dim(), qkv,
                            options.trace || value_norms);
      StackRecorder decoder(HookStack::Decoder, c.decoder_layers, c.decoder_heads, c.decoder_head_dim(), qkv, false);
      encoder.install(hooks);
      decoder.install(hooks);
      // flow: the information flow of both stacks (engine/flow.h); the decoder's cross-attention
      // reads the encoder's values, so its recorder is made once they exist.
      const bool flow = js_options["flow"].as<bool>();
      std::optional<FlowRecorder> encoder_flow, decoder_flow;
      if (flow) encoder_flow.emplace(encoder_flow_recorder(engine_, options)), encoder_flow->install(hooks);
      options.hooks = &hooks;
      const EncoderOutput enc = engine_.encode(int32_vector_from_js(source), options);
      Hooks decoder_hooks = hooks;
      if (flow) {
        decoder_flow.emplace(decoder_flow_recorder(engine_, enc, options));
        decoder_flow->install(decoder_hooks);
        options.hooks = &decoder_hooks;
      }
      KvCache cache;
      const DecoderOutput dec = engine_.decode(int32_vector_from_js(decoder_ids), enc, cache, options);
      emscripten::val out = val::object();
      out.set("sourceTokens", emscripten::val(enc.source_len));
      out.set("targetTokens", emscripten::val(dec.tokens));
      out.set("encoderAttentions", to_float32_array(enc.attentions));
      out.set("decoderAttentions", to_float32_array(dec.self_attentions));
      out.set("crossAttentions", to_float32_array(dec.cross_attentions));
      out.set("hidden", to_float32_array(dec.hidden));
      out.set("logits", to_float32_array(engine_.logits(dec.hidden.data(), dec.tokens)));
      if (options.trace) {
        out.set("encoderTrace", stack_trace_to_js(enc.trace, engine_.weights().encoder, encoder.values(), nullptr));
        std::vector<std::vector<float>> self_values(c.decoder_layers);
        for (int l = 0; l < c.decoder_layers; ++l)
          self_values[l] = cache.layer_values(l, c.decoder_heads * c.decoder_head_dim());
        out.set("decoderTrace", stack_trace_to_js(dec.trace, engine_.weights().decoder, self_values, &enc.cross_v));
      }
      if (flow) {
        emscripten::val f = flow_to_js(decoder_flow->result());
        f.set("encoder", flow_to_js(encoder_flow->result()));
        out.set("flow", f);
      }
      if (value_norms) {
        const Seq2SeqWeights& w = engine_.weights();
        const int W = c.decoder_heads * c.decoder_head_dim();
        std::vector<std::vector<float>> decoder_values(c.decoder_layers);
        std::vector<const float*> enc_v, dec_v, cross_v;
        std::vector<const AttentionWeights*> enc_w, dec_w, cross_w;
        for (int l = 0; l < c.encoder_layers; ++l) enc_v.push_back(encoder.values()[l].data()), enc_w.push_back(&w.encoder.layers[l].self);
        for (int l = 0; l < c.decoder_layers; ++l) {
          decoder_values[l] = cache.layer_values(l, W);
          dec_v.push_back(decoder_values[l].data()), dec_w.push_back(&w.decoder.layers[l].self);
          cross_v.push_back(enc.cross_v[l].data()), cross_w.push_back(&w.decoder.layers[l].cross);
        }
        out.set("encoderValueNorms", value_norms_to_js(enc_v, enc_w, enc.source_len));
        out.set("decoderValueNorms", value_norms_to_js(dec_v, dec_w, dec.tokens));
        out.set("crossValueNorms", value_norms_to_js(cross_v, cross_w, enc.source_len));
      }
      if (qkv) {
        out.set("encoderQkv", encoder.qkv_to_js());
        out.set("decoderQkv", decoder.qkv_to_js());
      }
      return out;
    });
  }

  // The decoder side's logit lens and direct logit attribution (seq2seq_analysis.h) of `source`
  // and decoder_ids under the head masks of `masks` (as run's options), each its own pass; the
  // shapes of analysis.h's lens_to_js and attribution_to_js.
  emscripten::val logit_lens(const emscripten::val& source, const emscripten::val& decoder_ids,
                             const emscripten::val& masks, int top_k) const {
    return guarded([&] {
      ThreadScope threads(threads_);
      return lens_to_js(seq2seq_logit_lens(engine_, int32_vector_from_js(source), int32_vector_from_js(decoder_ids),
                                           head_masks_from_js(masks), top_k));
    });
  }
  emscripten::val attribution(const emscripten::val& source, const emscripten::val& decoder_ids,
                              const emscripten::val& masks, int position, int token_id) const {
    return guarded([&] {
      ThreadScope threads(threads_);
      return attribution_to_js(seq2seq_attribution(engine_, int32_vector_from_js(source),
                                                   int32_vector_from_js(decoder_ids), head_masks_from_js(masks),
                                                   position, token_id));
    });
  }

  // Generation: encodes the source (its cross K/V once) and empties the decoder's cache.
  // Returns the encoder's attentions (Le,He,S,S).
  emscripten::val start(const emscripten::val& source) {
    return guarded([&] {
      ThreadScope threads(threads_);
      encoder_ = engine_.encode(int32_vector_from_js(source));
      cache_ = KvCache{};
      next_logits_.clear();
      return to_float32_array(encoder_.attentions);
    });
  }

  // Runs `ids` after the cached target positions: {keys, decoderAttentions (Ld,Hd,n,keys),
  // crossAttentions (Ld,Hd,n,S)}; the last position's vocabulary logits stay here for nextToken.
  emscripten::val step(const emscripten::val& ids) {
    return guarded([&] {
      if (encoder_.source_len == 0) throw Error("E_INPUT", "step() before start(): no source is encoded");
      ThreadScope threads(threads_);
      Seq2SeqRunOptions options;
      options.hooks = interventions_.steering_hooks();
      const DecoderOutput dec = engine_.decode(int32_vector_from_js(ids), encoder_, cache_, options);
      emscripten::val out = val::object();
      out.set("keys", emscripten::val(dec.keys));
      out.set("decoderAttentions", to_float32_array(dec.self_attentions));
      out.set("crossAttentions", to_float32_array(dec.cross_attentions));
      const float* last = dec.hidden.data() + static_cast<size_t>(dec.tokens - 1) * config_.d_model;
      next_logits_ = engine_.logits(last, 1);
      return out;
    });
  }

  // The next token from the logits the last step() left (sampling_js.h: options and result).
  emscripten::val next_token(const emscripten::val& options) {
    return guarded([&] { return next_token_js(next_logits_, options, sampling_); });
  }

  // Threads this model's runs use (heads and GEMM column panels split over them, as for the other
  // families): at most the module's pool (max_threads(); 1 in the build without threads).
  int set_threads(int n) {
    threads_ = std::max(1, std::min(n, max_threads()));
    return threads_;
  }

  // Activation patching a row at a time, and the steering step() applies (interventions.h).
  emscripten::val start_patch(const emscripten::val& clean, const emscripten::val& corrupted,
                              const emscripten::val& decoder_ids, int answer, int wrong, const emscripten::val& site,
                              const emscripten::val& stack) {
    return guarded([&] { return interventions_.start_patch(engine_, clean, corrupted, decoder_ids, answer, wrong, site, stack); });
  }
  emscripten::val patch_row(int layer) {
    return guarded([&] {
      ThreadScope threads(threads_);
      return interventions_.patch_row(layer);
    });
  }
  void end_patch() { interventions_.end_patch(); }
  // The mean decoder residual stream entering `layer` of decoder ids `to` minus that of `from`, each
  // run alone over `source` (Float32Array of d_model values).
  emscripten::val steering_vector(int layer, const emscripten::val& source, const emscripten::val& from,
                                  const emscripten::val& to) const {
    return guarded([&] {
      ThreadScope threads(threads_);
      const EncoderOutput enc = engine_.encode(int32_vector_from_js(source));
      return to_float32_array(seq2seq_steering_vector(engine_, layer, enc, int32_vector_from_js(from), int32_vector_from_js(to)));
    });
  }
  void set_steering(int layer, const emscripten::val& vector, double strength) {
    guarded([&] { interventions_.set_steering(engine_, layer, vector, strength); });
  }
  void clear_steering() { interventions_.clear_steering(); }

  int token_to_id(const std::string& token) const { return tokenizer_.token_to_id(token); }
  std::string id_to_token(int id) const {
    return guarded([&] {
      if (id < 0 || static_cast<size_t>(id) >= tokenizer_.vocab_size())
        throw Error("E_INPUT", "token id " + std::to_string(id) + " outside the vocabulary (size " +
                                   std::to_string(tokenizer_.vocab_size()) + ")");
      return tokenizer_.id_to_token(id);
    });
  }
  std::string decode(const emscripten::val& ids) const {
    // Generated ids are target text (MarianTokenizer.decode writes them with target.spm).
    return guarded([&] { return target_tokenizer().decode(int32_vector_from_js(ids)); });
  }
  int tokenizer_vocab_size() const { return static_cast<int>(tokenizer_.vocab_size()); }

 private:
  int threads_ = 1;  // set_threads
  Seq2SeqConfig config_;
  Seq2Seq engine_;
  const tok::Tokenizer& target_tokenizer() const { return target_ ? *target_ : tokenizer_; }

  tok::Tokenizer tokenizer_;
  std::optional<tok::Tokenizer> target_;
  EncoderOutput encoder_;  // generation: the source, encoded once
  KvCache cache_;
  std::vector<float> next_logits_;  // the last step's vocabulary logits, for next_token
  SamplingScratch sampling_;
  Seq2SeqInterventions interventions_;  // the patching grid in progress, the steering step() applies
};


// What a WeightStream needs to know of a seq2seq checkpoint: the tied head is not read (the
// stream keeps every other float tensor as f32; f16 matrices are rounded as they are taken).
ModelConfig seq2seq_stream_config(const Seq2SeqConfig& config);

// config_json: the text of config.json; the tokenizer files (convert.h TokenizerFileArgs).
// Takes its tensors from `weights` and frees the rest (their names stay for a warning).
Seq2SeqModel* create_seq2seq_model(const emscripten::val& config_json, WeightUpload& weights,
                                   const tok::TokenizerFiles& files);

}  // namespace attnscope::bindings
