// Golden test on the decoder we ship (model-causal/): its byte-level BPE tokenizer, the forward
// pass and greedy generation over the KV cache against the float64 PyTorch reference written by
// tests/fixtures/make_bundled_causal_fixture.py (rerun it after retraining). Tolerances as for
// the bundled BERT: attentions 1e-4, hidden states and logits 1e-3 (max absolute error), at both
// weight precisions (the checkpoint is fp16, so f16 in memory must meet the same reference).
#include <algorithm>
#include <nlohmann/json.hpp>

#include "config.h"
#include "safetensors.h"
#include "test_engine_support.h"
#include "test_fixture_models.h"
#include "tokenizer/tokenizer.h"
#include "transformer.h"
#include "weights.h"

using namespace attnscope;
using attnscope::test::check_close;

namespace {

const std::string kFixture = std::string(ATTNSCOPE_FIXTURES_DIR) + "/bundled-causal";
const std::string kRepo = std::string(ATTNSCOPE_FIXTURES_DIR) + "/../..";

using test::ints;

}  // namespace

TEST_CASE("bundled decoder: tokens, forward pass and greedy generation match the PyTorch reference",
          "[bundled][golden][decoder]") {
  const auto inputs = nlohmann::json::parse(test::read_text(kFixture + "/inputs.json"));
  const std::string model_dir = kRepo + "/" + inputs["model_dir"].get<std::string>();
  const ModelConfig config = parse_config(test::read_text(model_dir + "/config.json"));
  REQUIRE(config.is_decoder());
  const auto model_bytes = test::read_bytes(model_dir + "/model.safetensors");
  const SafeTensors tensors(model_bytes.data(), model_bytes.size());
  const auto precision = GENERATE(WeightPrecision::F32, WeightPrecision::F16);
  INFO("weights in memory as " << (precision == WeightPrecision::F16 ? "f16" : "f32"));
  const Transformer decoder(config, load_weights(config, tensors, precision));
  const std::string tokenizer_json = test::read_text(model_dir + "/tokenizer.json");
  const std::string tokenizer_config = test::read_text(model_dir + "/tokenizer_config.json");
  tok::TokenizerFiles files;
  files.tokenizer_json = tokenizer_json;
  files.tokenizer_config_json = tokenizer_config;
  const tok::Tokenizer tokenizer = tok::Tokenizer::from_files(files);

  const auto& cases = inputs["cases"];
  // One case per expected-output file in the fixture folder: a missing case list must not pass.
  REQUIRE(cases.size() == test::count_files(kFixture, ".safetensors"));
  REQUIRE(!cases.empty());
  int greedy_checked = 0;
  for (const auto& c : cases) {
    const std::string name = c["name"].get<std::string>();
    INFO("case " << name);
    // The fixture's ids come from @huggingface/tokenizers on the same tokenizer.json.
    const tok::Encoding enc = tokenizer.encode(c["text"].get<std::string>());
    CHECK(enc.tokens == c["tokens"].get<std::vector<std::string>>());
    CHECK(enc.ids == ints(c["ids"]));

    const std::vector<int32_t> ids = ints(c["ids"]);
    ForwardOptions options;
    options.hidden_states = true;
    const ForwardResult r = decoder.forward(ids, {}, {}, options);
    const auto expected_bytes = test::read_bytes(kFixture + "/" + c["expected"].get<std::string>());
    const SafeTensors expected(expected_bytes.data(), expected_bytes.size());
    const int64_t L = r.layers, H = r.heads, T = r.tokens, C = r.hidden, V = config.vocab_size;
    check_close(name + " attentions", expected.to_f32("attentions", {L, H, T, T}), r.attentions, {L, H, T, T},
                {"layer", "head", "row", "col"}, 1e-4);
    check_close(name + " hidden_out", expected.to_f32("hidden_out", {T, C}), r.hidden_out, {T, C},
                {"token", "channel"}, 1e-3);
    // The fixture's hidden_states end with the last block's output before ln_f; ours, as Hugging
    // Face's, end after it (that is hidden_out, checked above): compare the first L.
    const std::vector<float> states = expected.to_f32("hidden_states", {L + 1, T, C});
    check_close(name + " hidden_states", std::vector<float>(states.begin(), states.begin() + L * T * C),
                std::vector<float>(r.hidden_states.begin(), r.hidden_states.begin() + L * T * C), {L, T, C},
                {"state", "token", "channel"}, 1e-3);

    const std::vector<float> logits = decoder.lm_logits(r.hidden_out.data(), r.tokens);
    std::vector<float> at;
    for (int32_t p : ints(c["lm_positions"])) at.insert(at.end(), logits.begin() + p * V, logits.begin() + (p + 1) * V);
    const int64_t P = static_cast<int64_t>(at.size() / V);
    check_close(name + " lm_logits_at", expected.to_f32("lm_logits_at", {P, V}), at, {P, V}, {"position", "vocab"},
                1e-3);

    if (c.contains("greedy_ids")) {  // greedy generation over the KV cache, as `attnscope generate`
      KvCache cache;
      Activations activations;
      ForwardResult step;
      std::vector<int32_t> next = ids, generated;
      const size_t steps = c["greedy_ids"].size();
      while (generated.size() < steps) {
        decoder.extend(next, cache, step, activations);
        const std::vector<float> row = decoder.lm_logits(step.hidden_out.data() + (step.tokens - 1) * C, 1);
        generated.push_back(static_cast<int32_t>(std::max_element(row.begin(), row.end()) - row.begin()));
        next = {generated.back()};
      }
      CHECK(generated == ints(c["greedy_ids"]));
      CHECK(tokenizer.decode(generated) == c["greedy_text"].get<std::string>().substr(c["text"].get<std::string>().size()));
      ++greedy_checked;
    }
  }
  CHECK(greedy_checked == 1);
}
