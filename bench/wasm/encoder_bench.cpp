// The engine without the API around it, for the one comparison the API cannot make: a forward
// pass that keeps every attention matrix against one that skips them (ForwardOptions::attentions),
// so the benchmark can report what returning the maps costs.
#include <emscripten/emscripten.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "config.h"
#include "transformer.h"
#include "safetensors.h"
#include "weights.h"

namespace {
std::unique_ptr<attnscope::Transformer> g_encoder;
attnscope::ForwardResult g_result;  // reused by every run, as the wasm Model does
attnscope::Activations g_workspace;
}

// Builds the encoder from config.json text and safetensors bytes (both in wasm memory, owned by
// the caller, who may free them afterwards); q8 ≠ 0 quantizes the linear layers to int8
// (weightPrecision 'q8'; callers that pass four arguments get f32). Returns 0 on success, 1 on an
// engine error.
extern "C" EMSCRIPTEN_KEEPALIVE int encoder_bench_load(const char* config, int config_len,
                                                       const uint8_t* weights, int weights_len, int q8) {
  try {
    attnscope::ModelConfig cfg = attnscope::parse_config(std::string(config, config_len));
    attnscope::SafeTensors st(weights, static_cast<size_t>(weights_len));
    const auto precision = q8 ? attnscope::WeightPrecision::Q8 : attnscope::WeightPrecision::F32;
    g_encoder = std::make_unique<attnscope::Transformer>(cfg, attnscope::load_weights(cfg, st, precision));
    return 0;
  } catch (const std::exception&) {
    return 1;
  }
}

// One forward pass over T ids; keep_attentions = 0 skips storing the (L, H, T, T) maps.
// Returns the first hidden value (keeps the work observable).
extern "C" EMSCRIPTEN_KEEPALIVE float encoder_bench_forward(const int32_t* ids, int T,
                                                           int keep_attentions) {
  attnscope::ForwardOptions options;
  options.attentions = keep_attentions != 0;
  g_encoder->forward(std::vector<int32_t>(ids, ids + T), {}, {}, options, g_result, g_workspace);
  return g_result.hidden_out[0];
}

extern "C" EMSCRIPTEN_KEEPALIVE void encoder_bench_free() {
  g_encoder.reset();
  g_result = {};
  g_workspace = {};
}
