// libFuzzer target for the sizes of a run: small models × lengths near where wasm32's 32-bit size_t
// wraps (buffer_size.h). The bytes choose a model — a grouped-query Llama whose
// max_position_embeddings is raised to 2^20 (rotary positions have no table to outgrow), or a T5
// (relative positions, 65,536 tokens) — a length, and a path: one forward pass, the same tokens
// through extend() in chunks, or encode + decode. Every outcome must be a run with finite outputs
// of the promised sizes, or attnscope::Error E_TOO_LARGE (the buffers cannot exist in wasm32) /
// E_INPUT (past the model's positions). A run whose buffers would fit wasm32 but take more than
// 64 MB is not executed: the size checks answer before anything is allocated, and the rest would
// only spend the fuzzer's memory.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "buffer_size.h"
#include "config.h"
#include "error.h"
#include "safetensors.h"
#include "seq2seq.h"
#include "transformer.h"
#include "weights.h"

namespace {

#define FUZZ_CHECK(cond)  \
  do {                    \
    if (!(cond)) abort(); \
  } while (0)

using namespace attnscope;

const std::string kFixtures = ATTNSCOPE_FIXTURES_DIR;
constexpr double kRunBudget = 64.0 * (1 << 20);

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

const Transformer& llama() {
  static const Transformer model = [] {
    const std::string dir = kFixtures + "/llama/llama3_gqa2_f32";
    std::string config = read_file(dir + "/config.json");
    const std::string key = "\"max_position_embeddings\": 40";
    config.replace(config.find(key), key.size(), "\"max_position_embeddings\": 1048576");
    const ModelConfig c = parse_config(config);
    static const std::string bytes = read_file(dir + "/model.safetensors");
    const SafeTensors tensors(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    return Transformer(c, load_weights(c, tensors));
  }();
  return model;
}

const Seq2Seq& t5() {
  static const Seq2Seq model = [] {
    const std::string dir = kFixtures + "/seq2seq/t5_relu_tied_f32";
    const Seq2SeqConfig c = parse_seq2seq_config(read_file(dir + "/config.json"));
    static const std::string bytes = read_file(dir + "/model.safetensors");
    const SafeTensors tensors(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    return Seq2Seq(c, load_seq2seq_weights(c, tensors));
  }();
  return model;
}

bool all_finite(const std::vector<float>& v) {
  for (float x : v)
    if (!std::isfinite(x)) return false;
  return true;
}

// E_TOO_LARGE exactly when the largest buffer cannot exist in wasm32; E_INPUT past the positions.
void expect(const Error& e, bool too_large, bool too_long) {
  FUZZ_CHECK(e.code() == (too_long ? "E_INPUT" : "E_TOO_LARGE"));
  FUZZ_CHECK(too_long || too_large);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  const int path = data[0] % 3;
  // Lengths spread over 1 … 2^20 with most of the mass near the wrap points.
  const uint32_t raw = static_cast<uint32_t>(data[1]) | (static_cast<uint32_t>(data[2]) << 8) |
                       (static_cast<uint32_t>(data[3]) << 16);
  const int T = 1 + static_cast<int>(raw % (1u << 20));
  if (path < 2) {
    const Transformer& model = llama();
    const ModelConfig& c = model.config();
    // The map buffers of the path's passes: T × T at once, or (extend) half × half, then the
    // rest over every key. A pass that would run with more than the budget is not run (the
    // first of two passes may fit where the second cannot exist).
    const double LH4 = 4.0 * c.num_layers * c.num_heads, half = (T + 1) / 2;
    const std::vector<double> passes = path == 0 ? std::vector<double>{LH4 * T * T}
                                                 : std::vector<double>{LH4 * half * half, LH4 * (T - half) * T};
    const bool too_long = T > c.max_tokens();
    bool too_large = false;
    for (double maps : passes) {
      if (too_long || too_large) break;  // refused before this pass allocates anything
      if (maps > static_cast<double>(kMaxBufferBytes)) too_large = true;
      else if (maps > kRunBudget) return 0;
    }
    const std::vector<int32_t> ids(static_cast<size_t>(T), 3);
    try {
      if (path == 0) {
        const ForwardResult r = model.forward(ids, {}, {}, ForwardOptions{});
        FUZZ_CHECK(r.attentions.size() == static_cast<size_t>(c.num_layers) * c.num_heads * T * T);
        FUZZ_CHECK(all_finite(r.hidden_out));
      } else {  // a prompt of half, then the rest one chunk at a time
        KvCache cache;
        ForwardResult r;
        Activations a;
        const int half = (T + 1) / 2;
        model.extend({ids.begin(), ids.begin() + half}, cache, r, a);
        if (T > half) model.extend({ids.begin() + half, ids.end()}, cache, r, a);
        FUZZ_CHECK(cache.length == T && all_finite(r.hidden_out));
      }
      FUZZ_CHECK(!too_large && !too_long);
    } catch (const Error& e) {
      expect(e, too_large, too_long);
    }
    return 0;
  }
  const Seq2Seq& model = t5();
  const Seq2SeqConfig& c = model.config();
  const int S = T;
  const double maps = 4.0 * c.encoder_layers * c.encoder_heads * static_cast<double>(S) * S;
  const bool too_large = maps > static_cast<double>(kMaxBufferBytes), too_long = S > c.max_tokens();
  if (!too_large && !too_long && maps > kRunBudget) return 0;
  try {
    const EncoderOutput enc = model.encode(std::vector<int32_t>(static_cast<size_t>(S), 5));
    KvCache cache;
    const DecoderOutput dec = model.decode({c.decoder_start_token_id, 5, 6}, enc, cache);
    FUZZ_CHECK(all_finite(dec.hidden) && dec.cross_attentions.size() ==
                                             static_cast<size_t>(c.decoder_layers) * c.decoder_heads * 3 * S);
    FUZZ_CHECK(!too_large && !too_long);
  } catch (const Error& e) {
    expect(e, too_large, too_long);
  }
  return 0;
}
