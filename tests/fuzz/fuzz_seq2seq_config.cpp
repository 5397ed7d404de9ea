// libFuzzer target for parse_seq2seq_config() and is_seq2seq_config(), the readers of an
// encoder-decoder config.json (seeds in tests/fuzz/corpus/seq2seq_config/). The only acceptable
// failure is attnscope::Error E_CONFIG about config.json; a config that parses must describe a
// model the engine can size without overflow and whose T5 bucket formula is defined.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "error.h"
#include "relative_position.h"
#include "seq2seq_config.h"

namespace {

#define FUZZ_CHECK(cond)  \
  do {                    \
    if (!(cond)) abort(); \
  } while (0)

constexpr int64_t kMaxSize = int64_t{1} << 30;  // seq2seq_config.cpp's bound on every size

bool in_size_range(int64_t v) { return v >= 1 && v <= kMaxSize; }

void check_invariants(const attnscope::Seq2SeqConfig& c) {
  for (int64_t v : {c.vocab_size, c.d_model, c.encoder_layers, c.decoder_layers, c.encoder_heads, c.decoder_heads,
                    c.encoder_ffn, c.decoder_ffn})
    FUZZ_CHECK(in_size_range(v));
  FUZZ_CHECK(c.encoder_head_dim() >= 1 && c.decoder_head_dim() >= 1);
  FUZZ_CHECK(int64_t{c.encoder_heads} * c.encoder_head_dim() <= kMaxSize);
  FUZZ_CHECK(int64_t{c.decoder_heads} * c.decoder_head_dim() <= kMaxSize);
  FUZZ_CHECK(c.max_tokens() >= 1);
  FUZZ_CHECK(c.eps > 0.0 && c.eps < 1.0);
  FUZZ_CHECK(c.decoder_start_token_id >= 0 && c.decoder_start_token_id < c.vocab_size);
  if (c.family == attnscope::Seq2SeqFamily::T5) {
    // Every bucket the engine can ask for indexes the (num_buckets, heads) table.
    for (int relative : {-c.max_tokens(), -c.max_distance, -1, 0, 1, c.max_distance, c.max_tokens()})
      for (bool bidirectional : {false, true}) {
        const int b = attnscope::relative_position_bucket(relative, bidirectional, c.num_buckets, c.max_distance);
        FUZZ_CHECK(b >= 0 && b < c.num_buckets);
      }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view json(reinterpret_cast<const char*>(data), size);
  const bool claimed = attnscope::is_seq2seq_config(json);
  attnscope::Seq2SeqConfig config;
  try {
    config = attnscope::parse_seq2seq_config(json);
  } catch (const attnscope::Error& e) {
    FUZZ_CHECK(e.code() == "E_CONFIG");
    FUZZ_CHECK(std::string_view(e.what()).rfind("config.json", 0) == 0);
    return 0;
  }
  FUZZ_CHECK(claimed);  // whatever parses is a config loadModel sends here
  check_invariants(config);
  return 0;
}
