// libFuzzer target for everything that reads an untrusted checkpoint: parse_config, SafeTensors
// and load_weights, then (when a model loads) a tiny forward pass. Input layout:
// [u16 little-endian config length][config.json bytes][safetensors bytes] — the seeds in
// tests/fuzz/corpus/safetensors/ are written by tests/fixtures/make_engine_fixtures.py.
// Only attnscope::Error is an acceptable outcome for bad input; anything else (another exception
// type, a sanitizer report, a crash) is a bug.
#include <algorithm>
#include <cstring>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "config.h"
#include "transformer.h"
#include "error.h"
#include "half.h"
#include "safetensors.h"
#include "weight_stream.h"
#include "weights.h"

namespace {

// Bitwise: the weights may hold NaNs (the fuzzer writes any bytes), and NaN != NaN.
bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

// The streaming loader (what the wasm build uses) on the same bytes, fed in pieces whose size
// comes from the input: it must agree with the whole-file reader on success or failure, and on
// every weight when both succeed.
void check_stream_agrees(const attnscope::ModelConfig& config, const uint8_t* bytes, size_t size,
                         size_t piece, const attnscope::ModelWeights* whole) {
  attnscope::ModelWeights streamed;
  bool ok = true;
  try {
    attnscope::WeightStream stream(config, size);
    for (size_t at = 0; at < size; at += piece) stream.feed(bytes + at, std::min(piece, size - at));
    stream.finish();
    streamed = attnscope::load_weights(config, stream);
  } catch (const attnscope::Error&) {
    ok = false;
  }
  if (ok != (whole != nullptr)) __builtin_trap();
  if (ok && (!same_bits(streamed.word_emb.f32, whole->word_emb.f32) || streamed.layers.size() != whole->layers.size() ||
             !same_bits(streamed.mlm.bias, whole->mlm.bias)))
    __builtin_trap();
  for (size_t l = 0; ok && l < streamed.layers.size(); ++l)
    if (!same_bits(streamed.layers[l].ff_o_w.f32, whole->layers[l].ff_o_w.f32)) __builtin_trap();
  if (!ok) return;

  // The same file streamed with f16 matrices: they must be the whole-file f32 values rounded, or,
  // where a finite f32 weight is past float16's range (it would round to ±Inf), refused naming that.
  attnscope::WeightStream stream(config, size, attnscope::WeightPrecision::F16);
  for (size_t at = 0; at < size; at += piece) stream.feed(bytes + at, std::min(piece, size - at));
  stream.finish();
  attnscope::ModelWeights half;
  try {
    half = attnscope::load_weights(config, stream, attnscope::WeightPrecision::F16);
  } catch (const attnscope::Error& e) {
    if (e.code() != "E_WEIGHTS" || std::string_view(e.what()).find("over float16's 65504") == std::string_view::npos)
      __builtin_trap();
    return;
  }
  const std::vector<float>& want = whole->word_emb.f32;
  const std::vector<uint16_t>& got = half.word_emb.f16;
  if (got.size() != want.size() || !same_bits(half.mlm.bias, whole->mlm.bias)) __builtin_trap();
  for (size_t i = 0; i < got.size(); ++i) {
    // Non-finite weights are refused at load (the f32 load above would have failed).
    if (got[i] != attnscope::f32_to_f16(want[i])) __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const size_t config_len = static_cast<size_t>(data[0]) | (static_cast<size_t>(data[1]) << 8);
  if (config_len > size - 2) return 0;
  const std::string_view config_json(reinterpret_cast<const char*>(data + 2), config_len);
  const uint8_t* st_bytes = data + 2 + config_len;
  const size_t st_size = size - 2 - config_len;

  // The reader alone, independent of whether the config parses.
  try {
    attnscope::SafeTensors st(st_bytes, st_size);
    for (const auto& [name, t] : st.tensors()) {
      if (t.numel() <= 4096) {
        try {
          st.to_f32(name, t.shape);
        } catch (const attnscope::Error&) {  // integer dtypes are refused by design
        }
      }
    }
  } catch (const attnscope::Error&) {
  }

  attnscope::ModelConfig config;
  try {
    config = attnscope::parse_config(config_json);
  } catch (const attnscope::Error&) {
    return 0;
  }
  attnscope::ModelWeights weights;
  bool loaded = true;
  try {
    const attnscope::SafeTensors st(st_bytes, st_size);
    weights = attnscope::load_weights(config, st);
  } catch (const attnscope::Error&) {
    loaded = false;
  }
  check_stream_agrees(config, st_bytes, st_size, 1 + config_len % 61, loaded ? &weights : nullptr);
  if (!loaded) return 0;

  try {
    const attnscope::Transformer model(config, std::move(weights));
    // Every weight matched the config's shapes, so the sizes are bounded by the input length and
    // a forward pass over two tokens is cheap.
    const int T = config.max_position_embeddings < 2 ? 1 : 2;
    std::vector<int32_t> ids(T, 0), types(T, 0), mask(T, 1);
    mask[0] = T > 1 ? 0 : 1;  // exercise the padding path too
    attnscope::ForwardOptions options;
    options.hidden_states = options.qkv = options.value_norms = true;
    const auto r = model.forward(ids, types, mask, options);
    if (model.has_lm_head()) model.lm_logits(r.hidden_out.data(), r.tokens);
    if (config.is_decoder()) {  // a prompt and one generation step over the KV cache
      attnscope::KvCache cache;
      attnscope::Activations activations;
      attnscope::ForwardResult step;
      model.extend({0}, cache, step, activations);
      if (config.max_position_embeddings > 1) model.extend({0}, cache, step, activations);
    }
  } catch (const attnscope::Error&) {
  }
  return 0;
}
