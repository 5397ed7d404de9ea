// libFuzzer target for parse_config(), the one reader of config.json: any bytes (malformed or
// truncated JSON, wrong types, huge numbers, deep nesting; seeds in tests/fuzz/corpus/config/).
// The only acceptable failure is attnscope::Error with code E_CONFIG and a message that says it
// is about config.json; a config that parses must describe a model the engine can size without
// overflow (what the weight loader and the JavaScript memory estimate multiply together).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "config.h"
#include "error.h"

namespace {

#define FUZZ_CHECK(cond)  \
  do {                    \
    if (!(cond)) abort(); \
  } while (0)

constexpr int64_t kMaxSize = int64_t{1} << 30;  // config.cpp's bound on every size

bool in_size_range(int64_t v) { return v >= 1 && v <= kMaxSize; }

// What a parsed config promises the rest of the engine.
void check_invariants(const attnscope::ModelConfig& c) {
  FUZZ_CHECK(in_size_range(c.vocab_size) && in_size_range(c.hidden_size) && in_size_range(c.num_layers) &&
             in_size_range(c.num_heads) && in_size_range(c.intermediate_size) &&
             in_size_range(c.max_position_embeddings));
  FUZZ_CHECK(c.type_vocab_size >= 0 && c.type_vocab_size <= kMaxSize);
  FUZZ_CHECK(c.hidden_size % c.num_heads == 0 && c.head_dim() * c.num_heads == c.hidden_size);
  FUZZ_CHECK(c.max_tokens() >= 1 && c.max_tokens() <= c.max_position_embeddings);
  FUZZ_CHECK(c.layer_norm_eps > 0.0 && c.layer_norm_eps < 1.0);
  FUZZ_CHECK(c.pad_token_id >= 0 && c.bos_token_id >= -1 && c.eos_token_id >= -1);
  FUZZ_CHECK(!c.hidden_act.empty() && !c.mlm_head_act.empty());
  // Every size is at most 2^30, so the products the weight sizes and the memory estimate use
  // (V·C, C·F, L·H·T·T in floats) stay far inside int64 and double's exact integers.
  const int64_t V = c.vocab_size, C = c.hidden_size, F = c.intermediate_size, T = c.max_position_embeddings;
  FUZZ_CHECK(V * C > 0 && C * F > 0 && T * C > 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view json(reinterpret_cast<const char*>(data), size);
  attnscope::ModelConfig config;
  try {
    config = attnscope::parse_config(json);
  } catch (const attnscope::Error& e) {
    FUZZ_CHECK(e.code() == "E_CONFIG");
    FUZZ_CHECK(std::string_view(e.what()).rfind("config.json", 0) == 0);
    return 0;
  }
  check_invariants(config);
  // Deterministic: the same bytes give the same config.
  const attnscope::ModelConfig again = attnscope::parse_config(json);
  FUZZ_CHECK(again.family == config.family && again.vocab_size == config.vocab_size &&
             again.hidden_size == config.hidden_size && again.hidden_act == config.hidden_act);
  return 0;
}
