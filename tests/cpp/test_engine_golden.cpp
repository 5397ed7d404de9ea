// Golden tests: the encoder against an independent float64 PyTorch reference
// (tests/fixtures/make_engine_fixtures.py) on random checkpoints of every supported family and
// storage dtype. Tolerances: attention probabilities 1e-4, hidden states / Q, K, V / value norms /
// MLM logits 1e-3 (max absolute error).
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "config.h"
#include "encoder.h"
#include "safetensors.h"
#include "test_engine_support.h"
#include "weights.h"

namespace fs = std::filesystem;
using namespace attnscope;
using attnscope::test::check_close;

namespace {

const std::string kEngineFixtures = std::string(ATTNSCOPE_FIXTURES_DIR) + "/engine";

std::vector<std::string> fixture_models() {
  std::vector<std::string> models;
  for (const auto& e : fs::directory_iterator(kEngineFixtures))
    if (e.is_directory() && fs::exists(e.path() / "inputs.json")) models.push_back(e.path().filename().string());
  std::sort(models.begin(), models.end());
  return models;
}

std::vector<int32_t> ints(const nlohmann::json& j) { return j.get<std::vector<int32_t>>(); }

}  // namespace

TEST_CASE("engine golden: forward matches the float64 PyTorch reference", "[engine][golden]") {
  const auto models = fixture_models();
  // Seven checkpoints are written by the fixture script; fewer means a broken fixture tree, and a
  // test that silently ran on nothing would pass.
  REQUIRE(models.size() >= 7);
  std::map<std::string, double> worst_by_output;

  for (const auto& model : models) {
    const std::string dir = kEngineFixtures + "/" + model;
    const auto inputs = nlohmann::json::parse(test::read_text(dir + "/inputs.json"));
    const ModelConfig config = parse_config(test::read_text(dir + "/config.json"));
    const auto model_bytes = test::read_bytes(dir + "/model.safetensors");
    const SafeTensors tensors(model_bytes.data(), model_bytes.size());
    const Encoder encoder(config, load_weights(config, tensors));
    REQUIRE(encoder.has_mlm_head() == inputs["has_mlm_head"].get<bool>());

    for (const auto& c : inputs["cases"]) {
      const std::string name = model + "/" + c["name"].get<std::string>();
      {
        INFO("fixture " << name);
        ForwardOptions options;
        options.hidden_states = options.qkv = options.value_norms = true;
        const ForwardResult r =
            encoder.forward(ints(c["ids"]), ints(c["token_types"]), ints(c["attention_mask"]), options);
        const auto expected_bytes = test::read_bytes(dir + "/" + c["expected"].get<std::string>());
        const SafeTensors expected(expected_bytes.data(), expected_bytes.size());

        const int64_t L = r.layers, H = r.heads, T = r.tokens, C = r.hidden, dh = r.head_dim;
        REQUIRE(T == static_cast<int64_t>(c["ids"].size()));
        auto check = [&](const std::string& what, const std::vector<float>& got, const std::vector<int64_t>& shape,
                         const std::vector<std::string>& axes, double tol) {
          const double e = check_close(name + " " + what, expected.to_f32(what, shape), got, shape, axes, tol);
          worst_by_output[what] = std::max(worst_by_output[what], e);
        };
        check("attentions", r.attentions, {L, H, T, T}, {"layer", "head", "row", "col"}, 1e-4);
        check("hidden_out", r.hidden_out, {T, C}, {"token", "channel"}, 1e-3);
        check("hidden_states", r.hidden_states, {L + 1, T, C}, {"state", "token", "channel"}, 1e-3);
        check("q", r.q, {L, H, T, dh}, {"layer", "head", "token", "dim"}, 1e-3);
        check("k", r.k, {L, H, T, dh}, {"layer", "head", "token", "dim"}, 1e-3);
        check("v", r.v, {L, H, T, dh}, {"layer", "head", "token", "dim"}, 1e-3);
        check("value_norms", r.value_norms, {L, H, T}, {"layer", "head", "token"}, 1e-3);
        if (encoder.has_mlm_head())
          check("mlm_logits", encoder.mlm_logits(r.hidden_out, r.tokens), {T, config.vocab_size},
                {"token", "vocab"}, 1e-3);
      }
    }
  }
  std::cout << "engine golden: worst absolute error per output over all fixtures:";
  for (const auto& [what, e] : worst_by_output) std::cout << " " << what << "=" << e;
  std::cout << "\n";
}

TEST_CASE("engine golden: optional outputs are empty unless requested", "[engine][golden]") {
  const std::string dir = kEngineFixtures + "/minilm_relu_f32";
  const ModelConfig config = parse_config(test::read_text(dir + "/config.json"));
  const auto bytes = test::read_bytes(dir + "/model.safetensors");
  const SafeTensors tensors(bytes.data(), bytes.size());
  const Encoder encoder(config, load_weights(config, tensors));
  ForwardOptions options;
  options.attentions = false;
  const ForwardResult bare = encoder.forward({1, 2, 3}, {}, {}, options);
  CHECK(bare.attentions.empty());
  CHECK(bare.hidden_states.empty());
  CHECK(bare.q.empty());
  CHECK(bare.value_norms.empty());
  // Same hidden output whether or not the probabilities are kept (they go to a scratch buffer).
  const ForwardResult full = encoder.forward({1, 2, 3}, {0, 0, 0}, {1, 1, 1}, ForwardOptions{});
  CHECK(full.attentions.size() == static_cast<size_t>(3 * 3 * 3 * 3));
  CHECK(bare.hidden_out == full.hidden_out);
}
