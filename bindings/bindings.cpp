// Embind declarations: the Model object JavaScript holds (config + transformer + tokenizer of
// one checkpoint, no global state), the WeightUpload JavaScript streams weight bytes through, a
// tokenizer alone, and diagnostics (heap, build, the engine's error codes). Only glue lives here;
// every entry point goes through guarded() (convert.h), so C++ errors reach JavaScript as Error
// objects with a .code, never as a trap.
#include <emscripten/bind.h>
#include <emscripten/heap.h>
#include <emscripten/val.h>
#include <malloc.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis.h"
#include "attention_maps_js.h"
#include "build_features.h"
#include "config.h"
#include "convert.h"
#include "interventions.h"
#include "transformer.h"
#include "error.h"
#include "flow_js.h"
#include "flow_models.h"
#include "kernels/gemm_q8_wasmsimd.h"
#include "parallel.h"
#include "safetensors.h"
#include "sampling_js.h"
#ifndef ATTNSCOPE_CORE_BUILD
#include "seq2seq_model.h"  // the encoder–decoders' bindings: not linked into the core build
#endif
#include "tokenizer/tokenizer.h"
#include "weight_upload.h"
#include "weight_stream.h"
#include "weights.h"

namespace attnscope::bindings {
namespace {

using emscripten::val;

val float32_view(const std::vector<float>& data) {
  return val(emscripten::typed_memory_view(data.size(), data.data()));
}

// forward()'s maps option: 'eager', 'on-demand' or 'auto' (js/api/options.js checked it; undefined:
// auto) → how the run keeps its maps (attention_sources.h).
AttentionMaps attention_maps_policy(const val& option) {
  if (option.isUndefined() || option.isNull()) return AttentionMaps::Auto;
  const std::string name = option.as<std::string>();
  if (name == "eager") return AttentionMaps::Eager;
  if (name == "on-demand") return AttentionMaps::OnDemand;
  if (name == "auto") return AttentionMaps::Auto;
  throw Error("E_INPUT", "maps must be 'eager', 'on-demand' or 'auto', got '" + name + "'");
}

// The trace as views, named as the JavaScript result names them (camelCase); steps a family does
// not have (empty vectors) are left out.
val trace_to_js(const ForwardTrace& trace) {
  auto put = [](val& object, const char* name, const std::vector<float>& data) {
    if (!data.empty()) object.set(name, float32_view(data));
  };
  val embeddings = val::object();
  put(embeddings, "word", trace.embeddings.word);
  put(embeddings, "position", trace.embeddings.position);
  put(embeddings, "tokenType", trace.embeddings.token_type);
  put(embeddings, "sum", trace.embeddings.sum);
  put(embeddings, "output", trace.embeddings.output);
  val layers = val::array();
  for (const LayerTrace& l : trace.layers) {
    val layer = val::object();
    put(layer, "attentionInputNorm", l.attention_input_norm);
    put(layer, "attentionOutput", l.attention_output);
    put(layer, "attentionResidual", l.attention_residual);
    put(layer, "attentionNorm", l.attention_norm);
    put(layer, "ffnInputNorm", l.ffn_input_norm);
    put(layer, "ffnPreActivation", l.ffn_pre_activation);
    put(layer, "ffnIntermediate", l.ffn_intermediate);
    put(layer, "ffnOutput", l.ffn_output);
    put(layer, "ffnResidual", l.ffn_residual);
    put(layer, "output", l.output);
    // The Llama family's own steps (rotary q/k, grouped-query attention, SwiGLU).
    put(layer, "qProjection", l.q_projection);
    put(layer, "kProjection", l.k_projection);
    put(layer, "vProjection", l.v_projection);
    put(layer, "qHeadNorm", l.q_head_norm);
    put(layer, "kHeadNorm", l.k_head_norm);
    put(layer, "qRotated", l.q_rotated);
    put(layer, "kRotated", l.k_rotated);
    put(layer, "attentionContext", l.attention_context);
    put(layer, "ffnGate", l.ffn_gate);
    put(layer, "ffnGateActivated", l.ffn_gate_activated);
    put(layer, "ffnUp", l.ffn_up);
    layers.call<void>("push", layer);
  }
  val out = val::object();
  out.set("embeddings", embeddings);
  out.set("layers", layers);
  put(out, "finalNorm", trace.final_norm);
  return out;
}

// What WeightStream needs of config.json: an encoder–decoder's from its own reader (the full
// build's), any other model's from parse_config.
ModelConfig stream_config(const std::string& config_text) {
#ifndef ATTNSCOPE_CORE_BUILD
  if (is_seq2seq_config(config_text)) return seq2seq_stream_config(parse_seq2seq_config(config_text));
#endif
  return parse_config(config_text);
}

// precision: "f32", "f16" or "q8" (how the weight matrices are kept in memory; q8 streams them
// in as f16 and quantizes each linear layer when the model is built).
WeightUpload* create_weight_upload(const val& config_json, double file_size, const val& precision_js) {
  return guarded([&] {
    if (!(file_size >= -1) || file_size > static_cast<double>(UINT64_MAX))
      throw Error("E_INPUT", "file size " + std::to_string(file_size) + " is not a byte count (-1 = unknown)");
    const std::string precision = string_from_js(precision_js);
    if (precision != "f32" && precision != "f16" && precision != "q8")
      throw Error("E_INPUT", "weight precision \"" + precision + "\" is not \"f32\", \"f16\" or \"q8\"");
    const std::string config_text = string_from_js(config_json);
    return new WeightUpload(stream_config(config_text),
                            file_size < 0 ? 0 : static_cast<uint64_t>(file_size),
                            precision == "f16"  ? WeightPrecision::F16
                            : precision == "q8" ? WeightPrecision::Q8
                                                : WeightPrecision::F32);
  });
}

// One loaded checkpoint. Built in the order that fails cheapest first: config, tokenizer, then
// the weights (the only big allocation).
class Model {
 public:
  Model(ModelConfig config, Transformer transformer, tok::Tokenizer tokenizer)
      : transformer_(std::move(transformer)), tokenizer_(std::move(tokenizer)), config_(std::move(config)) {}

  val config() const { return guarded([&] { return config_to_js(config_); }); }
  bool has_lm_head() const { return transformer_.has_lm_head(); }
  int tokenizer_vocab_size() const { return static_cast<int>(tokenizer_.vocab_size()); }

  val encode(const val& text_js, const val& pair, int max_length) const {
    return guarded([&] {
      const std::string text = string_from_js(text_js);
      std::optional<std::string> pair_text;
      if (!pair.isUndefined() && !pair.isNull()) pair_text = string_from_js(pair);
      tok::Encoding encoding =
          pair_text ? tokenizer_.encode(text, std::string_view(*pair_text), max_length)
                    : tokenizer_.encode(text, std::nullopt, max_length);
      return encoding_to_js(encoding);
    });
  }

  // options: {hiddenStates, qkv, valueNorms, trace, flow} booleans and headMask (a Float32Array of L·H
  // values, or null); the JS layer passes all of them.
  // Returns Float32Array *views* of this Model's own result buffers, which every run reuses: a
  // run allocates nothing once the model has seen that length, and the caller copies the arrays
  // out (js/api/model.js does, at once, into fresh or recycled JavaScript memory). A view is valid
  // only until the next call into the module, which may overwrite or detach it.
  val forward(const val& ids, const val& token_types, const val& attention_mask, const val& options) {
    return guarded([&] {
      ForwardOptions forward_options;
      forward_options.attentions = true;
      forward_options.hidden_states = options["hiddenStates"].as<bool>();
      forward_options.qkv = options["qkv"].as<bool>();
      forward_options.value_norms = options["valueNorms"].as<bool>();
      forward_options.trace = options["trace"].as<bool>();
      forward_options.maps = attention_maps_policy(options["maps"]);
      const val head_mask = options["headMask"];
      if (!head_mask.isNull() && !head_mask.isUndefined()) forward_options.head_mask = float_vector_from_js(head_mask);
      // flow: the information flow's read-only hooks on the same pass (engine/flow.h).
      const bool flow = options["flow"].as<bool>();
      std::optional<FlowRecorder> flow_recorder;
      Hooks hooks;
      if (flow) {
        if constexpr (!kBuildHasAnalyses) throw_not_in_build("the information flow");
        flow_recorder.emplace(attnscope::flow_recorder(transformer_, forward_options.head_mask));
        flow_recorder->install(hooks);
        forward_options.hooks = &hooks;
      }
      ThreadScope threads(threads_);
      transformer_.forward(int32_vector_from_js(ids), int32_vector_from_js(token_types),
                       int32_vector_from_js(attention_mask), forward_options, result_, workspace_);
      const ForwardResult& r = result_;
      val out = val::object();
      out.set("layers", val(r.layers));
      out.set("heads", val(r.heads));
      out.set("tokens", val(r.tokens));
      out.set("hiddenSize", val(r.hidden));
      out.set("headDim", val(r.head_dim));
      out.set("attentions", float32_view(r.attentions));
      out.set("hidden", float32_view(r.hidden_out));
      if (forward_options.hidden_states) out.set("hiddenStates", float32_view(r.hidden_states));
      if (forward_options.qkv) {
        out.set("q", float32_view(r.q));
        out.set("k", float32_view(r.k));
        out.set("v", float32_view(r.v));
      }
      if (forward_options.value_norms) out.set("valueNorms", float32_view(r.value_norms));
      if (forward_options.trace) out.set("trace", trace_to_js(r.trace));
      if constexpr (kBuildHasAnalyses) {
        if (flow) out.set("flow", flow_to_js(flow_recorder->result()));
      }
      return out;
    });
  }

  // The last forward()'s maps when it kept them on demand (its attentions view is then empty):
  // moved into an object JavaScript owns and deletes; null when they were kept eagerly.
  AttentionMapsJs* take_attention_maps() {
    if (result_.attention_sources.empty()) return nullptr;
    auto* maps = new AttentionMapsJs(std::move(result_.attention_sources));
    result_.attention_sources.clear();
    return maps;
  }

  // Vocabulary logits (rows, V) for `rows` hidden vectors (rows × C): the masked-LM head of an
  // encoder (e.g. just the [MASK] positions: the head is position-wise, so there is no need to
  // score every token) or the next-token head of a decoder.
  val lm_logits(const val& hidden_rows, int rows) const {
    return guarded([&] {
      std::vector<float> hidden = float_vector_from_js(hidden_rows);
      if (rows <= 0 || hidden.size() != static_cast<size_t>(rows) * config_.hidden_size) {
        throw Error("E_INPUT", "lmLogits needs rows x hidden_size = " + std::to_string(rows) + " x " +
                                   std::to_string(config_.hidden_size) + " values, got " +
                                   std::to_string(hidden.size()));
      }
      ThreadScope threads(threads_);
      return to_float32_array(transformer_.lm_logits(hidden.data(), rows));
    });
  }

  // The logit lens and direct logit attribution of ids (bindings/analysis.h), each its own run.
  val logit_lens(const val& ids, const val& types, const val& mask, const val& head_mask, int top_k) const {
    return guarded([&] {
      if constexpr (!kBuildHasAnalyses) throw_not_in_build("the logit lens");
      ThreadScope threads(threads_);
      return logit_lens_js(transformer_, ids, types, mask, head_mask, top_k);
    });
  }
  val attribution(const val& ids, const val& mask, const val& head_mask, int position, int token_id) const {
    return guarded([&] {
      if constexpr (!kBuildHasAnalyses) throw_not_in_build("direct logit attribution");
      ThreadScope threads(threads_);
      return attribution_js(transformer_, ids, mask, head_mask, position, token_id);
    });
  }

  // Every LayerNorm's γ and β, {name: {gamma, beta}} (names as Transformer::layer_norms), as
  // copies: the block walk-through recomputes the traced steps with them.
  val layer_norms() const {
    val out = val::object();
    for (const auto& [name, ln] : transformer_.layer_norms()) {
      val pair = val::object();
      pair.set("gamma", to_float32_array(ln->gamma));
      pair.set("beta", to_float32_array(ln->beta));
      out.set(name, pair);
    }
    return out;
  }

  // Threads this model's runs use: at most what the module's pool has (max_threads(); 1 in the
  // build without threads). Returns the number that will be used.
  int set_threads(int n) {
    threads_ = std::max(1, std::min(n, max_threads()));
    return threads_;
  }
  int threads() const { return threads_; }

  // Decoders, generation: forget the sequence held in the KV cache (its memory is kept).
  void reset_sequence() { cache_.length = 0; }
  int sequence_length() const { return cache_.length; }

  // Decoders, generation: runs `ids` as the next positions of the cached sequence (the first
  // call: the prompt) and returns views, valid until the next call into the module, of their
  // attention rows (L, H, T, keys) and last hidden states (T, C, after the final LayerNorm).
  // `prompt_maps` ('eager', 'on-demand', 'auto'; undefined: eager) is how the prompt keeps its
  // maps: on demand, nothing reads them (attentions is empty) and only their sources are held,
  // until the next step.
  val extend(const val& ids, const val& prompt_maps) {
    return guarded([&] {
      ThreadScope threads(threads_);
      const AttentionMaps maps = prompt_maps.isUndefined() ? AttentionMaps::Eager : attention_maps_policy(prompt_maps);
      transformer_.extend(int32_vector_from_js(ids), cache_, step_, step_workspace_, interventions_.steering_hooks(), maps);
      val out = val::object();
      out.set("tokens", val(step_.tokens));
      out.set("keys", val(step_.keys));
      out.set("attentions", float32_view(step_.attentions));
      out.set("hidden", float32_view(step_.hidden_out));
      return out;
    });
  }

  // Decoders, generation: the next token after the last position extend() ran, from its
  // vocabulary logits kept here (sampling_js.h: options and result); only the chosen token, its
  // probability and the top candidates reach JavaScript.
  val next_token(const val& options) {
    return guarded([&] {
      // The encoder build's extend() refuses every model it runs, as any build's refuses an encoder.
      if (!kBuildHasDecoders || step_.tokens <= 0 || cache_.length == 0)
        throw Error("E_INPUT", "nextToken() before extend(): no position to predict from");
      ThreadScope threads(threads_);
      const float* last = step_.hidden_out.data() + static_cast<size_t>(step_.tokens - 1) * config_.hidden_size;
      next_logits_ = transformer_.lm_logits(last, 1);
      return next_token_js(next_logits_, options, sampling_);
    });
  }

  // Activation patching a row at a time and steering (bindings/interventions.h).
  val start_patch(const val& clean, const val& corrupted, int answer, int wrong, int position, const val& site) {
    return guarded([&] {
      if constexpr (!kBuildHasAnalyses) throw_not_in_build("activation patching");
      ThreadScope threads(threads_);
      return interventions_.start_patch(transformer_, clean, corrupted, answer, wrong, position, site);
    });
  }
  val patch_row(int layer) {
    return guarded([&] {
      if constexpr (!kBuildHasAnalyses) throw_not_in_build("activation patching");
      ThreadScope threads(threads_);
      return interventions_.patch_row(layer);
    });
  }
  void end_patch() { interventions_.end_patch(); }
  val steering_vector(int layer, const val& from, const val& to) const {
    return guarded([&] {
      if constexpr (!kBuildHasAnalyses) throw_not_in_build("steering");
      ThreadScope threads(threads_);
      return Interventions::steering_vector_js(transformer_, layer, from, to);
    });
  }
  void set_steering(int layer, const val& vector, double strength) {
    guarded([&] {
      if constexpr (!kBuildHasAnalyses) throw_not_in_build("steering");
      interventions_.set_steering(transformer_, layer, vector, strength);
    });
  }
  void clear_steering() { interventions_.clear_steering(); }

  // The special tokens' names as the tokenizer files set them ([CLS], [SEP], [PAD], [MASK], [UNK]
  // for every BERT checkpoint seen so far, but tokenizer_config.json may rename them).
  val special_tokens() const {
    const tok::SpecialTokens s = tokenizer_.special_tokens();  // "" when the tokenizer has none
    val out = val::object();
    out.set("cls", val(s.cls));
    out.set("sep", val(s.sep));
    out.set("pad", val(s.pad));
    out.set("mask", val(s.mask));
    out.set("unk", val(s.unk));
    return out;
  }

  int token_to_id(const std::string& token) const { return tokenizer_.token_to_id(token); }

  // Every vocabulary token, one per line (in id order): runIds names its tokens from one copy in
  // JavaScript instead of one call per token.
  std::string vocabulary_lines() const {
    return lines([&](int32_t id) { return tokenizer_.id_to_token(id); });
  }
  // The text of token ids (Hugging Face's decode, special tokens kept).
  std::string decode(const val& ids) const {
    return guarded([&] { return tokenizer_.decode(int32_vector_from_js(ids)); });
  }

  // The readable form of every vocabulary token ("Ġthe" → "␣the"; WordPiece tokens unchanged),
  // one per line in id order; readable forms never contain a line break.
  std::string token_text_lines() const {
    return lines([&](int32_t id) { return tokenizer_.token_text(id); });
  }
  std::string id_to_token(int id) const {
    return guarded([&] {
      if (id < 0 || static_cast<size_t>(id) >= tokenizer_.vocab_size()) {
        throw Error("E_INPUT", "token id " + std::to_string(id) + " outside the vocabulary (size " +
                                   std::to_string(tokenizer_.vocab_size()) + ")");
      }
      return tokenizer_.id_to_token(id);
    });
  }

 private:
  // text_of(id) for every id of the vocabulary, one per line.
  template <typename TextOf>
  std::string lines(TextOf text_of) const {
    std::string out;
    for (size_t id = 0; id < tokenizer_.vocab_size(); ++id) {
      if (id) out += '\n';
      out += text_of(static_cast<int32_t>(id));
    }
    return out;
  }

  Transformer transformer_;
  tok::Tokenizer tokenizer_;
  ModelConfig config_;
  ForwardResult result_;        // the last run's outputs, handed to JavaScript as views
  Activations workspace_;       // activations, reused by every run
  // Generation (decoders): the sequence so far, and the last step's outputs and scratch.
  KvCache cache_;
  ForwardResult step_;
  Activations step_workspace_;
  std::vector<float> next_logits_;  // next_token's row of vocabulary logits
  SamplingScratch sampling_;
  int threads_ = 1;  // set_threads
  Interventions interventions_;  // the patching grid in progress, the steering extend() applies
};

Model* create_model(const val& config_json, WeightUpload& weights_upload, const val& vocab_txt,
                    const val& tokenizer_json, const val& tokenizer_config_json, const val& vocab_json,
                    const val& merges_txt, const val& source_spm, const val& target_spm) {
  return guarded([&] {
    ModelConfig config = parse_config(string_from_js(config_json));
    const TokenizerFileArgs files(vocab_txt, tokenizer_json, tokenizer_config_json, vocab_json, merges_txt, source_spm,
                                  target_spm);
    // A vocabulary larger than config.json's vocab_size was refused by the loader (js/api/load.js)
    // before the weights were downloaded; ids past vocab_size are refused by every run.
    tok::Tokenizer tokenizer = tok::Tokenizer::from_files(files.files());
    weights_upload.finish();
    ModelWeights weights = load_weights(config, weights_upload.stream(), weights_upload.precision());
    weights_upload.release_untaken();  // anything load_weights did not take
    Transformer transformer(config, std::move(weights));
    return new Model(std::move(config), std::move(transformer), std::move(tokenizer));
  });
}

#ifndef ATTNSCOPE_CORE_BUILD
// An encoder-decoder checkpoint (bart, marian, t5: isSeq2SeqConfig) from its streamed weights.
Seq2SeqModel* create_seq2seq(const val& config_json, WeightUpload& weights_upload, const val& vocab_txt,
                             const val& tokenizer_json, const val& tokenizer_config_json, const val& vocab_json,
                             const val& merges_txt, const val& source_spm, const val& target_spm) {
  return guarded([&] {
    const TokenizerFileArgs files(vocab_txt, tokenizer_json, tokenizer_config_json, vocab_json, merges_txt, source_spm,
                                  target_spm);
    weights_upload.finish();
    return create_seq2seq_model(config_json, weights_upload, files.files());
  });
}
#endif

// Bytes of wasm heap in use by malloc, and the size of the wasm memory (it never shrinks).
// Validates config.json before anything is downloaded, so a wrong model fails fast.
val parse_config_js(const val& config_json) {
  return guarded([&] { return config_to_js(parse_config(string_from_js(config_json))); });
}

// Builds the tokenizer once and returns its vocabulary size, so bad tokenizer files fail before
// the weights are downloaded (the Model builds its own again; it is small next to the weights).
int check_tokenizer(const val& vocab_txt, const val& tokenizer_json, const val& tokenizer_config_json,
                    const val& vocab_json, const val& merges_txt, const val& source_spm, const val& target_spm) {
  return guarded([&] {
    const TokenizerFileArgs files(vocab_txt, tokenizer_json, tokenizer_config_json, vocab_json, merges_txt, source_spm,
                                  target_spm);
    const int size = static_cast<int>(tok::Tokenizer::from_files(files.files()).vocab_size());
    (void)tok::Tokenizer::target_from_files(files.files());  // Marian's target.spm must read too
    return size;
  });
}

// A tokenizer alone, for tokenizing without a model (the CLI's tokenize on a folder of tokenizer
// files): the same Tokenizer a Model holds, built from the same files.
class TokenizerOnly {
 public:
  TokenizerOnly(tok::Tokenizer tokenizer, std::optional<tok::Tokenizer> target)
      : tokenizer_(std::move(tokenizer)), target_(std::move(target)) {}
  val encode(const val& text_js, const val& pair, int max_length) const { return encode_with(tokenizer_, text_js, pair, max_length); }
  // Target text (a seq2seq model's decoder side): Marian's target.spm; else as encode.
  val encode_target(const val& text_js, int max_length) const {
    return encode_with(target_ ? *target_ : tokenizer_, text_js, val::null(), max_length);
  }
  bool has_target() const { return target_.has_value(); }
  int vocab_size() const { return static_cast<int>(tokenizer_.vocab_size()); }
  bool byte_level() const { return tokenizer_.is_byte_level(); }
  // Ids back to text as the target side writes it (MarianTokenizer.decode's default).
  std::string decode(const val& ids) const {
    return guarded([&] { return (target_ ? *target_ : tokenizer_).decode(int32_vector_from_js(ids)); });
  }

 private:
  static val encode_with(const tok::Tokenizer& t, const val& text_js, const val& pair, int max_length) {
    return guarded([&] {
      const std::string text = string_from_js(text_js);
      std::optional<std::string> pair_text;
      if (!pair.isUndefined() && !pair.isNull()) pair_text = string_from_js(pair);
      return encoding_to_js(pair_text ? t.encode(text, std::string_view(*pair_text), max_length)
                                      : t.encode(text, std::nullopt, max_length));
    });
  }

  tok::Tokenizer tokenizer_;
  std::optional<tok::Tokenizer> target_;
};

TokenizerOnly* create_tokenizer(const val& vocab_txt, const val& tokenizer_json, const val& tokenizer_config_json,
                                const val& vocab_json, const val& merges_txt, const val& source_spm,
                                const val& target_spm) {
  return guarded([&] {
    const TokenizerFileArgs files(vocab_txt, tokenizer_json, tokenizer_config_json, vocab_json, merges_txt, source_spm,
                                  target_spm);
    return new TokenizerOnly(tok::Tokenizer::from_files(files.files()), tok::Tokenizer::target_from_files(files.files()));
  });
}

val heap_stats() {
  struct mallinfo info = mallinfo();
  val out = val::object();
  out.set("inUse", val(static_cast<double>(info.uordblks)));
  out.set("memoryBytes", val(static_cast<double>(emscripten_get_heap_size())));
  return out;
}

val build_info() {
  val out = val::object();
  out.set("target", val("wasm32"));
#ifdef __wasm_simd128__
  out.set("simd", val(true));
#else
  out.set("simd", val(false));
#endif
#ifdef ATTNSCOPE_RELAXED_SIMD
  out.set("relaxedSimd", val(true));  // the GEMM runs on f32x4.relaxed_madd (FMA)
#else
  out.set("relaxedSimd", val(false));
#endif
#ifdef __EMSCRIPTEN_PTHREADS__
  out.set("threads", val(true));  // pthreads over a shared memory (dist/attnscope-mt.*)
#else
  out.set("threads", val(false));
#endif
  out.set("maxThreads", val(max_threads()));
  // What the heap may grow to (-sMAXIMUM_MEMORY, CMakeLists.txt): js/api/memory-estimate.js's
  // WASM32_MAX_BYTES is checked against it.
  out.set("maxMemoryBytes", val(static_cast<double>(emscripten_get_heap_max())));
  // Above this many bytes of maps a run keeps them on demand (attention_sources.h): js/api/memory-estimate.js's
  // EAGER_MAPS_MAX_BYTES is checked against it.
  out.set("eagerMapsMaxBytes", val(static_cast<double>(kEagerMapsBytes)));
#ifdef __USING_WASM_EXCEPTIONS__
  out.set("exceptions", val("wasm"));
#else
  out.set("exceptions", val("js"));  // the threaded build (see CMakeLists.txt)
#endif
  // The int8 GEMM's inner instruction (weightPrecision 'q8'): the relaxed build's fused dot-add
  // where this engine computes it exactly (checked when the module starts), else its pairwise dot.
  if constexpr (kBuildHasQ8) out.set("q8Kernel", val(kernels::kQ8KernelNames[kernels::q8_kernel_kind()]));
  out.set("build", val(kBuildName));  // "core", "encoder": what each leaves out is in build_features.h
  // Whether the logit lens, attribution, flow, patching and steering are here: js/api/model.js moves
  // a model loaded where they are not (the encoder build) before it runs one.
  out.set("analyses", val(kBuildHasAnalyses));
  out.set("compiler", val(__VERSION__));
  return out;
}

}  // namespace
}  // namespace attnscope::bindings

EMSCRIPTEN_BINDINGS(attnscope) {
  using namespace emscripten;
  using namespace attnscope::bindings;

  class_<WeightUpload>("WeightUpload")
      .constructor(&create_weight_upload, allow_raw_pointers())
      .function("chunk", &WeightUpload::chunk)
      .function("feed", &WeightUpload::feed)
      .function("finish", &WeightUpload::finish)
      .function("untakenTensors", &WeightUpload::untaken_tensors);

  class_<Model>("Model")
      .constructor(&create_model, allow_raw_pointers())
      .function("config", &Model::config)
      .function("hasLmHead", &Model::has_lm_head)
      .function("tokenizerVocabSize", &Model::tokenizer_vocab_size)
      .function("encode", &Model::encode)
      .function("forward", &Model::forward)
      .function("takeAttentionMaps", &Model::take_attention_maps, allow_raw_pointers())
      .function("lmLogits", &Model::lm_logits)
      .function("logitLens", &Model::logit_lens)
      .function("attribution", &Model::attribution)
      .function("resetSequence", &Model::reset_sequence)
      .function("sequenceLength", &Model::sequence_length)
      .function("extend", &Model::extend)
      .function("nextToken", &Model::next_token)
      .function("startPatch", &Model::start_patch)
      .function("patchRow", &Model::patch_row)
      .function("endPatch", &Model::end_patch)
      .function("steeringVector", &Model::steering_vector)
      .function("setSteering", &Model::set_steering)
      .function("clearSteering", &Model::clear_steering)
      .function("layerNorms", &Model::layer_norms)
      .function("specialTokens", &Model::special_tokens)
      .function("tokenToId", &Model::token_to_id)
      .function("idToToken", &Model::id_to_token)
      .function("vocabularyLines", &Model::vocabulary_lines)
      .function("tokenTextLines", &Model::token_text_lines)
      .function("decode", &Model::decode)
      .function("setThreads", &Model::set_threads)
      .function("threads", &Model::threads);

  function("parseConfig", &parse_config_js);
#ifndef ATTNSCOPE_CORE_BUILD
  function("createSeq2SeqModel", &create_seq2seq, allow_raw_pointers());
#endif
  function("checkTokenizer", &check_tokenizer);
  function("heapStats", &heap_stats);
  class_<TokenizerOnly>("Tokenizer")
      .constructor(&create_tokenizer, allow_raw_pointers())
      .function("encode", &TokenizerOnly::encode)
      .function("encodeTarget", &TokenizerOnly::encode_target)
      .function("hasTarget", &TokenizerOnly::has_target)
      .function("vocabSize", &TokenizerOnly::vocab_size)
      .function("byteLevel", &TokenizerOnly::byte_level)
      .function("decode", &TokenizerOnly::decode);
  function("buildInfo", &build_info);
  // The loader reports how many pthread workers it pre-started (plus the calling thread).
  function("setMaxThreads", &attnscope::set_max_threads);
  // Diagnostics for the tests: how many kernel calls so far were split over more than one thread.
  function("splitJobs", optional_override([] { return static_cast<double>(attnscope::split_jobs()); }));
  // For the benchmarks (bench/browser.mjs --q8-forms): the int8 micro-kernel, 0 auto (the
  // fused dot-add where exact), 1 the pairwise relaxed dot forced (no effect in the plain build).
  function("setQ8DotForm", optional_override([](int form) {
    if constexpr (attnscope::kBuildHasQ8)
      attnscope::kernels::set_q8_dot_form(form == 1 ? attnscope::kernels::Q8DotForm::Pairwise : attnscope::kernels::Q8DotForm::Auto);
  }));
  // A Model's nextToken on a row of logits given from JavaScript: the same choice and softmax,
  // which tests/js/sampling-wasm.test.js checks against js/analysis/sampling.js on random rows.
  function("nextTokenOf", optional_override([](const val& logits, const val& options) {
    return guarded([&] {
      if constexpr (!attnscope::kBuildHasDecoders) attnscope::throw_not_in_build("sampling (nextTokenOf)");
      attnscope::SamplingScratch scratch;
      return next_token_js(float_vector_from_js(logits), options, scratch);
    });
  }));
  // The engine's error codes (engine/error.h): js/formats/errors.js's ENGINE_ERROR_CODES is checked against them.
  function("errorCodes", optional_override([] {
    val codes = val::array();
    for (const char* code : attnscope::kErrorCodes) codes.call<void>("push", val(code));
    return codes;
  }));
}
