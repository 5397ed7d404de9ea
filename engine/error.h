// The one error type the engine throws. Every message names the problem (the tensor, the key,
// the byte offset) so a user who passed a bad file learns what is wrong with it; `code` is a
// stable machine-readable tag the JavaScript layer copies onto its Error objects.
#pragma once
#include <stdexcept>
#include <string>

namespace attnscope {

class Error : public std::runtime_error {
 public:
  Error(std::string code, const std::string& message)
      : std::runtime_error(message), code_(std::move(code)) {}
  const std::string& code() const { return code_; }

 private:
  std::string code_;
};

// Every code the engine throws, with what it means. The JavaScript layer copies the list as
// ENGINE_ERROR_CODES (js/formats/errors.js) and adds its loader's own codes; the wasm module exports this
// array as errorCodes(), and tests/js/shared-facts.test.js checks that the two agree and that every
// "E_..." literal in engine/ and bindings/ is one of these.
inline constexpr const char* kErrorCodes[] = {
    "E_CONFIG",       // config.json missing a field, wrong type, or unsupported model_type / activation
    "E_TOO_LARGE",    // the model cannot fit in WebAssembly memory (wasm32: 4 GB)
    "E_TOKENIZER",    // vocab / tokenizer.json / tokenizer_config.json cannot be used
    "E_SAFETENSORS",  // malformed safetensors file (header, offsets, dtype)
    "E_WEIGHTS",      // a tensor the model needs is missing or has the wrong shape
    "E_INPUT",        // bad run input: ids out of vocab, too many tokens, mismatched lengths
    "E_INTERNAL",     // a bug (a state the engine's own checks should have made impossible)
};

}  // namespace attnscope
