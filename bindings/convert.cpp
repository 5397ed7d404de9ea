// Conversions between engine types and JavaScript values (see convert.h): typed-array copies in
// and out, config and Encoding as plain objects, and the exception → JS Error mapping.
#include "convert.h"

#include <emscripten/val.h>

#include <new>
#include <stdexcept>

#include "error.h"
#include "rotary.h"

namespace attnscope::bindings {

namespace {

template <class T>
val copy_to_typed_array(const char* constructor, const T* data, size_t n) {
  val out = val::global(constructor).new_(n);
  // The view is created after the JS allocation and used at once: no wasm allocation can grow
  // (and detach) the heap in between.
  out.call<void>("set", val(emscripten::typed_memory_view(n, data)));
  return out;
}

template <class T>
std::vector<T> numbers_from_js(const val& array) {
  if (array.isUndefined() || array.isNull()) return {};
  return emscripten::convertJSArrayToNumberVector<T>(array);
}

const char* family_name(Family family) {
  switch (family) {
    case Family::DistilBert: return "distilbert";
    case Family::Gpt2: return "gpt2";
    case Family::Roberta: return "roberta";
    case Family::Llama: return "llama";
    case Family::Bert: break;
  }
  return "bert";
}

}  // namespace

val to_float32_array(const std::vector<float>& data) {
  return copy_to_typed_array("Float32Array", data.data(), data.size());
}
val to_int32_array(const std::vector<int32_t>& data) {
  return copy_to_typed_array("Int32Array", data.data(), data.size());
}
val to_uint8_array(const std::vector<uint8_t>& data) {
  return copy_to_typed_array("Uint8Array", data.data(), data.size());
}

std::string string_from_js(const val& text) { return text.as<std::string>(); }

std::string bytes_from_js(const val& bytes) {
  if (bytes.isUndefined() || bytes.isNull()) return {};
  if (bytes.isString()) return bytes.as<std::string>();
  std::string out(bytes["byteLength"].as<size_t>(), '\0');
  // Nothing allocates between taking the view and filling it: the view stays valid.
  val view(emscripten::typed_memory_view(out.size(), reinterpret_cast<uint8_t*>(out.data())));
  view.call<void>("set", bytes);
  return out;
}

TokenizerFileArgs::TokenizerFileArgs(const val& vocab_txt_js, const val& tokenizer_json_js, const val& config_js,
                                     const val& vocab_json_js, const val& merges_txt_js, const val& source_spm_js,
                                     const val& target_spm_js)
    : vocab_txt(string_from_js(vocab_txt_js)),
      tokenizer_json(string_from_js(tokenizer_json_js)),
      tokenizer_config_json(string_from_js(config_js)),
      vocab_json(string_from_js(vocab_json_js)),
      merges_txt(string_from_js(merges_txt_js)),
      source_spm(bytes_from_js(source_spm_js)),
      target_spm(bytes_from_js(target_spm_js)) {}

std::vector<int32_t> int32_vector_from_js(const val& array) { return numbers_from_js<int32_t>(array); }
std::vector<float> float_vector_from_js(const val& array) { return numbers_from_js<float>(array); }

val config_to_js(const ModelConfig& config) {
  val out = val::object();
  out.set("family", val(family_name(config.family)));
  out.set("modelType", val(config.model_type));
  out.set("vocabSize", val(config.vocab_size));
  out.set("hiddenSize", val(config.hidden_size));
  out.set("numLayers", val(config.num_layers));
  out.set("numHeads", val(config.num_heads));
  out.set("headDim", val(config.head_dim()));
  // Grouped-query attention: how many key/value heads, and which one each query head reads.
  out.set("numKeyValueHeads", val(config.kv_heads()));
  val kv_heads = val::array();
  for (int h = 0; h < config.num_heads; ++h) kv_heads.call<void>("push", val(config.kv_head_of(h)));
  out.set("kvHeads", kv_heads);
  // Rotary models: the engine's own inverse frequencies (one per pair of a head's dimensions,
  // scaling applied), so a view drawing the rotation angles uses the numbers the run used.
  val inv_freq = val::array();
  if (config.family == Family::Llama) {
    for (double f : rope_inverse_frequencies(config.rope, config.head_dim())) inv_freq.call<void>("push", val(f));
  }
  out.set("rotaryInverseFrequencies", inv_freq);
  out.set("intermediateSize", val(config.intermediate_size));
  out.set("maxPositionEmbeddings", val(config.max_position_embeddings));
  out.set("maxTokens", val(config.max_tokens()));
  out.set("typeVocabSize", val(config.type_vocab_size));
  out.set("layerNormEps", val(config.layer_norm_eps));
  out.set("hiddenAct", val(config.hidden_act));
  out.set("padTokenId", val(config.pad_token_id));
  out.set("isDecoder", val(config.is_decoder()));
  out.set("bosTokenId", val(config.bos_token_id));
  out.set("eosTokenId", val(config.eos_token_id));
  return out;
}

val encoding_to_js(const tok::Encoding& encoding) {
  val tokens = val::array();
  for (const std::string& token : encoding.tokens) tokens.call<void>("push", val(token));
  val token_texts = val::array();  // readable forms ("␣the" for byte-level "Ġthe")
  for (const std::string& text : encoding.token_texts) token_texts.call<void>("push", val(text));
  std::vector<int32_t> offsets;
  offsets.reserve(encoding.offsets.size() * 2);
  for (const auto& [start, end] : encoding.offsets) {
    offsets.push_back(start);
    offsets.push_back(end);
  }
  val out = val::object();
  out.set("tokens", tokens);
  out.set("tokenTexts", token_texts);
  out.set("ids", to_int32_array(encoding.ids));
  out.set("typeIds", to_int32_array(encoding.type_ids));
  out.set("offsets", to_int32_array(offsets));
  out.set("specialTokensMask", to_uint8_array(encoding.special_tokens_mask));
  out.set("numTruncated", val(encoding.num_truncated));
  return out;
}

val error_from_current_exception() {
  std::string code = "E_INTERNAL", message = "unknown C++ exception";
  try {
    throw;
  } catch (const Error& e) {
    code = e.code();
    message = e.what();
  } catch (const std::bad_alloc&) {
    code = "E_TOO_LARGE";
    message = "out of WebAssembly memory (the 4 GB wasm32 address space is exhausted)";
  } catch (const std::length_error& e) {
    code = "E_TOO_LARGE";
    message = std::string("allocation too large: ") + e.what();
  } catch (const std::exception& e) {
    message = e.what();
  } catch (...) {
  }
  val error = val::global("Error").new_(val(message));
  error.set("code", val(code));
  return error;
}

}  // namespace attnscope::bindings
