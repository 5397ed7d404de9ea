// Conversions between engine types and JavaScript values for the Embind layer, plus the error
// boundary every entry point goes through. Bulk data leaves wasm memory as a *copy* in a fresh
// typed array, so nothing handed to JavaScript is invalidated when the heap later grows.
#pragma once
#include <emscripten/val.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "config.h"
#include "tokenizer/tokenizer.h"

namespace attnscope::bindings {

using emscripten::val;

// A new Float32Array / Int32Array / Uint8Array holding a copy of `data`.
val to_float32_array(const std::vector<float>& data);
val to_int32_array(const std::vector<int32_t>& data);
val to_uint8_array(const std::vector<uint8_t>& data);

// A JS string as UTF-8. Entry points take strings as `val` and convert inside guarded():
// Embind frees a std::string argument's wire copy only when the call returns normally, so a
// std::string parameter would leak whenever the call reports an error by throwing.
std::string string_from_js(const val& text);
// A Uint8Array's bytes (Marian's .spm files are binary); undefined, null or '' give "".
std::string bytes_from_js(const val& bytes);

// The tokenizer files in the order JavaScript passes them (js/api/load.js tokenizerArgs): vocab.txt,
// tokenizer.json, tokenizer_config.json, vocab.json, merges.txt as text, source.spm and
// target.spm as bytes. Owns the strings the TokenizerFiles view.
struct TokenizerFileArgs {
  std::string vocab_txt, tokenizer_json, tokenizer_config_json, vocab_json, merges_txt, source_spm, target_spm;
  TokenizerFileArgs(const val& vocab_txt, const val& tokenizer_json, const val& tokenizer_config_json,
                    const val& vocab_json, const val& merges_txt, const val& source_spm, const val& target_spm);
  tok::TokenizerFiles files() const {
    return {vocab_txt, vocab_json, merges_txt, tokenizer_json, tokenizer_config_json, source_spm, target_spm};
  }
};

// Numbers from a JS array or typed array; undefined/null give an empty vector. JavaScript has
// already checked they are integers (Number() conversion here would silently truncate 1.5).
std::vector<int32_t> int32_vector_from_js(const val& array);
std::vector<float> float_vector_from_js(const val& array);

// Plain JS objects for the JS layer: the config with camelCase keys, and a tokenizer Encoding
// in the RunResult shape (offsets flattened to start0, end0, start1, ...).
val config_to_js(const ModelConfig& config);
val encoding_to_js(const tok::Encoding& encoding);

// A JS Error whose .code is the engine code (E_TOO_LARGE for bad_alloc, E_INTERNAL for anything
// that is not an attnscope::Error) built from the exception being handled. Call only in a catch.
val error_from_current_exception();

// Runs `body`; a C++ exception becomes a thrown JS Error with .code. The JS value is thrown only
// after the catch block has ended, so the C++ exception object is released first.
template <class Body>
auto guarded(Body&& body) -> decltype(body()) {
  val error = val::undefined();
  try {
    return body();
  } catch (...) {
    error = error_from_current_exception();
  }
  error.throw_();
}

}  // namespace attnscope::bindings
