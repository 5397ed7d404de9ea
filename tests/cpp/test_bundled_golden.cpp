// Golden test on the model we ship (model/): tokenizer and forward pass against the float64
// PyTorch reference written by tests/fixtures/make_bundled_fixture.py (rerun it after retraining).
// Tolerances as for the engine fixtures: attentions 1e-4, hidden states / value norms / MLM
// logits 1e-3 (max absolute error). The model is stored in fp16, so loading it with f16 weights
// in memory (WeightPrecision::F16) must meet the same reference at the same tolerances.
#include <nlohmann/json.hpp>

#include "config.h"
#include "transformer.h"
#include "safetensors.h"
#include "test_engine_support.h"
#include "test_fixture_models.h"
#include "tokenizer/tokenizer.h"
#include "weights.h"

using namespace attnscope;
using attnscope::test::check_close;

namespace {

const std::string kFixture = std::string(ATTNSCOPE_FIXTURES_DIR) + "/bundled";
const std::string kRepo = std::string(ATTNSCOPE_FIXTURES_DIR) + "/../..";

using test::ints;

}  // namespace

TEST_CASE("bundled model: tokens and forward pass match the PyTorch reference", "[bundled][golden]") {
  const auto inputs = nlohmann::json::parse(test::read_text(kFixture + "/inputs.json"));
  const std::string model_dir = kRepo + "/" + inputs["model_dir"].get<std::string>();
  const ModelConfig config = parse_config(test::read_text(model_dir + "/config.json"));
  const auto model_bytes = test::read_bytes(model_dir + "/model.safetensors");
  const SafeTensors tensors(model_bytes.data(), model_bytes.size());
  const auto precision = GENERATE(WeightPrecision::F32, WeightPrecision::F16);
  INFO("weights in memory as " << (precision == WeightPrecision::F16 ? "f16" : "f32"));
  const Transformer encoder(config, load_weights(config, tensors, precision));
  REQUIRE(encoder.has_lm_head());
  const std::string vocab = test::read_text(model_dir + "/vocab.txt");
  const std::string tokenizer_config = test::read_text(model_dir + "/tokenizer_config.json");
  const auto tokenizer = tok::Tokenizer::from_files({vocab, "", "", "", tokenizer_config});

  const auto& cases = inputs["cases"];
  // One case per expected-output file in the fixture folder: a missing case list must not pass.
  REQUIRE(cases.size() == test::count_files(kFixture, ".safetensors"));
  REQUIRE(!cases.empty());
  for (const auto& c : cases) {
    const std::string name = c["name"].get<std::string>();
    INFO("case " << name);

    // The fixture's ids come from the training pipeline's tokenizer, itself checked against
    // @huggingface/tokenizers; ours must agree on the model's own vocabulary.
    std::optional<std::string> pair;
    if (!c["pair"].is_null()) pair = c["pair"].get<std::string>();
    const auto enc = tokenizer.encode(c["text"].get<std::string>(),
                                      pair ? std::optional<std::string_view>(*pair) : std::nullopt);
    CHECK(enc.tokens == c["tokens"].get<std::vector<std::string>>());
    CHECK(enc.ids == ints(c["ids"]));
    CHECK(enc.type_ids == ints(c["token_types"]));

    ForwardOptions options;
    options.hidden_states = options.value_norms = true;
    const ForwardResult r =
        encoder.forward(ints(c["ids"]), ints(c["token_types"]), ints(c["attention_mask"]), options);
    const auto expected_bytes = test::read_bytes(kFixture + "/" + c["expected"].get<std::string>());
    const SafeTensors expected(expected_bytes.data(), expected_bytes.size());
    const int64_t L = r.layers, H = r.heads, T = r.tokens, C = r.hidden, V = config.vocab_size;
    check_close(name + " attentions", expected.to_f32("attentions", {L, H, T, T}), r.attentions,
                {L, H, T, T}, {"layer", "head", "row", "col"}, 1e-4);
    check_close(name + " hidden_out", expected.to_f32("hidden_out", {T, C}), r.hidden_out, {T, C},
                {"token", "channel"}, 1e-3);
    check_close(name + " hidden_states", expected.to_f32("hidden_states", {L + 1, T, C}), r.hidden_states,
                {L + 1, T, C}, {"state", "token", "channel"}, 1e-3);
    check_close(name + " value_norms", expected.to_f32("value_norms", {L, H, T}), r.value_norms, {L, H, T},
                {"layer", "head", "token"}, 1e-3);

    // Full logits are stored only at the listed positions (every [MASK]).
    const auto positions = ints(c["mlm_positions"]);
    REQUIRE(!positions.empty());
    const std::vector<float> logits = encoder.lm_logits(r.hidden_out.data(), r.tokens);
    std::vector<float> got;
    for (int32_t p : positions) got.insert(got.end(), logits.begin() + p * V, logits.begin() + (p + 1) * V);
    const int64_t P = static_cast<int64_t>(positions.size());
    check_close(name + " mlm_logits_at", expected.to_f32("mlm_logits_at", {P, V}), got, {P, V},
                {"position", "vocab"}, 1e-3);
  }
}
