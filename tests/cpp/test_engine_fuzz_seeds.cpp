// The fuzz seeds (tests/fuzz/corpus/safetensors) must be valid models: if a seed stopped loading,
// the fuzzer would only explore error paths and never reach load_weights or the forward pass.
// Same input layout as tests/fuzz/fuzz_safetensors.cpp: [u16 LE config length][config][safetensors].
#include <cmath>
#include <filesystem>
#include <set>
#include <string>
#include <string_view>

#include "config.h"
#include "transformer.h"
#include "safetensors.h"
#include "test_engine_support.h"
#include "weights.h"

TEST_CASE("fuzz seeds load and run a forward pass", "[engine][fuzz]") {
  namespace fs = std::filesystem;
  const fs::path corpus = fs::path(ATTNSCOPE_FIXTURES_DIR) / ".." / "fuzz" / "corpus" / "safetensors";
  int seeds = 0;
  for (const auto& entry : fs::directory_iterator(corpus)) {
    INFO("seed " << entry.path().filename().string());
    const auto bytes = attnscope::test::read_bytes(entry.path().string());
    REQUIRE(bytes.size() >= 2);
    const size_t n = bytes[0] | (bytes[1] << 8);
    REQUIRE(n <= bytes.size() - 2);
    const auto config = attnscope::parse_config(std::string_view(reinterpret_cast<const char*>(bytes.data() + 2), n));
    const attnscope::SafeTensors st(bytes.data() + 2 + n, bytes.size() - 2 - n);
    const attnscope::Transformer encoder(config, attnscope::load_weights(config, st));
    const auto r = encoder.forward({0, 1}, {0, 0}, {0, 1}, attnscope::ForwardOptions{});
    for (float p : r.attentions) REQUIRE(std::isfinite(p));
    ++seeds;
  }
  CHECK(seeds >= 4);
}

// The config.json seeds (tests/fuzz/corpus/config, for fuzz_config): the real configs must parse,
// so the fuzzer starts from inputs that reach every family's reader; each malformed one must be
// refused with E_CONFIG, the outcome fuzz_config requires of any input.
TEST_CASE("config fuzz seeds: real configs parse, malformed ones are E_CONFIG", "[engine][fuzz][config]") {
  namespace fs = std::filesystem;
  const fs::path corpus = fs::path(ATTNSCOPE_FIXTURES_DIR) / ".." / "fuzz" / "corpus" / "config";
  const std::set<std::string> valid = {"bert_bundled.json",     "gpt2_bundled.json",    "distilbert_mlm_f32.json",
                                       "gpt2_untied_f32.json",  "minilm_relu_f32.json", "roberta_mlm_f32.json",
                                       "huge_valid.json"};
  int parsed = 0, refused = 0;
  for (const auto& entry : fs::directory_iterator(corpus)) {
    const std::string name = entry.path().filename().string();
    INFO("seed " << name);
    const std::string text = attnscope::test::read_text(entry.path().string());
    if (valid.count(name)) {
      CHECK_NOTHROW(attnscope::parse_config(text));
      ++parsed;
    } else {
      attnscope::test::expect_error([&] { attnscope::parse_config(text); }, "E_CONFIG", "config.json");
      ++refused;
    }
  }
  CHECK(parsed == static_cast<int>(valid.size()));
  CHECK(refused >= 10);
}
