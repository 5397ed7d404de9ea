// The logit lens and direct logit attribution against the float64 PyTorch reference of
// tests/fixtures/make_lens_fixtures.py (random BERT and GPT-2 checkpoints of tests/fixtures/engine).
// Tolerances: lens probabilities ≤ 1e-4 (max absolute error over every layer, position and token);
// attribution parts ≤ 1e-4 each and their sum within 1e-4 of the model's own logit. The lens's last
// layer must be the model's own prediction bit for bit (the same logits).
#include <algorithm>
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>

#include "attribution.h"
#include "config.h"
#include "logit_lens.h"
#include "safetensors.h"
#include "test_engine_support.h"
#include "test_fixture_models.h"
#include "transformer.h"
#include "weights.h"

using namespace attnscope;

namespace {

const std::string kFixtures = std::string(ATTNSCOPE_FIXTURES_DIR);

Transformer load(const std::string& name) { return test::load_transformer(kFixtures + "/engine/" + name); }

using test::ints;
std::vector<float> head_mask_of(const nlohmann::json& c) {
  std::vector<float> mask;
  if (c.contains("head_mask") && !c["head_mask"].is_null())
    for (const auto& row : c["head_mask"]) for (float m : row) mask.push_back(m);
  return mask;
}

}  // namespace

TEST_CASE("logit lens matches the float64 PyTorch reference", "[engine][lens]") {
  for (const std::string name : {"bert_mlm_f32", "gpt2_lm_f32", "gpt2_untied_f32"}) {
    const auto fixture = nlohmann::json::parse(test::read_text(kFixtures + "/lens/" + name + ".json"));
    const Transformer model = load(name);
    const int L = model.config().num_layers, V = model.config().vocab_size;
    REQUIRE(!fixture["cases"].empty());
    double worst = 0;
    for (const auto& c : fixture["cases"]) {
      INFO(name << "/" << c["name"].get<std::string>());
      const auto ids = ints(c["ids"]);
      const int T = static_cast<int>(ids.size());
      ForwardOptions options;
      options.hidden_states = true;
      options.head_mask = head_mask_of(c);
      const ForwardResult r = model.forward(ids, ints(c["token_types"]), ints(c["attention_mask"]), options);
      const LogitLens lens = logit_lens(model, r, ids, V);  // every token: compare the whole softmax
      REQUIRE(lens.entries.size() == static_cast<size_t>(L + 1) * T);
      const auto& expected = c["lens_probs"];
      for (int l = 0; l <= L; ++l)
        for (int t = 0; t < T; ++t) {
          const LensEntry& e = lens.entries[static_cast<size_t>(l) * T + t];
          for (int i = 0; i < V; ++i) {
            const double want = expected[l][t][e.top_ids[i]].get<double>();
            const double err = std::fabs(want - e.top_probs[i]);
            worst = std::max(worst, err);
            if (err > 1e-4) FAIL_CHECK("layer " << l << " position " << t << " token " << e.top_ids[i] << ": " << e.top_probs[i] << " vs " << want);
          }
          // The final token's probability and 1-based rank, as read from the reference.
          const int32_t f = lens.final_ids[t];
          CHECK(std::fabs(expected[l][t][f].get<double>() - e.final_prob) <= 1e-4);
          CHECK(e.top_ids[e.final_rank - 1] == f);
          if (model.config().is_decoder() && t + 1 < T) {
            CHECK(e.top_ids[e.next_rank - 1] == ids[t + 1]);
            CHECK(std::fabs(expected[l][t][ids[t + 1]].get<double>() - e.next_prob) <= 1e-4);
          } else {
            CHECK(e.next_rank == 0);
          }
        }
      // The last layer is the model's own prediction, computed as the API computes it (decoders:
      // all rows in one batch, the last row alone; encoders: each [MASK] row alone): the same
      // logits, bit for bit.
      std::vector<float> own = model.lm_logits(r.hidden_out.data(), T);
      for (int t = model.config().is_decoder() ? T - 1 : 0; t < T; ++t) {
        const std::vector<float> alone = model.lm_logits(r.hidden_out.data() + static_cast<size_t>(t) * r.hidden, 1);
        std::copy(alone.begin(), alone.end(), own.begin() + static_cast<size_t>(t) * V);
      }
      const std::vector<float> last =
          logit_lens_logits(model, r.hidden_states.data() + static_cast<size_t>(L) * T * r.hidden, T, true);
      CHECK(own == last);
      for (int t = 0; t < T; ++t) {
        const float* row = own.data() + static_cast<size_t>(t) * V;
        CHECK(lens.final_ids[t] == std::max_element(row, row + V) - row);
        CHECK(lens.entries[static_cast<size_t>(L) * T + t].final_rank == 1);
      }
    }
    std::cout << "logit lens " << name << ": max |prob - reference| = " << worst << "\n";
    CHECK(worst <= 1e-4);
  }
}

TEST_CASE("logit lens: top_k and models without a head", "[engine][lens]") {
  const Transformer model = load("gpt2_lm_f32");
  const LogitLens lens = logit_lens(model, {3, 9, 4}, {}, {}, {}, 5);
  CHECK(lens.top_k == 5);
  CHECK(lens.entries[0].top_ids.size() == 5);
  CHECK(lens.entries[0].top_probs[0] >= lens.entries[0].top_probs[4]);
  test::expect_error([&] { logit_lens(model, {3}, {}, {}, {}, 0); }, "E_INPUT", "top_k");
  const Transformer bare = load("bert_gamma_beta_f32");  // BertModel: no masked-LM head
  test::expect_error([&] { logit_lens(bare, {3, 4}, {}, {}, {}, 5); }, "E_WEIGHTS", "masked-LM head");
}

TEST_CASE("direct logit attribution matches the float64 PyTorch reference", "[engine][attribution]") {
  for (const std::string name : {"gpt2_lm_f32", "gpt2_untied_f32"}) {
    const auto fixture = nlohmann::json::parse(test::read_text(kFixtures + "/lens/" + name + ".json"));
    const Transformer model = load(name);
    double worst_part = 0, worst_sum = 0, worst_logit = 0;
    int checked = 0;
    for (const auto& c : fixture["cases"]) {
      for (const auto& want : c["attributions"]) {
        INFO(name << "/" << c["name"].get<std::string>() << " position " << want["position"]);
        const Attribution a = direct_logit_attribution(model, ints(c["ids"]), ints(c["attention_mask"]), head_mask_of(c),
                                                       want["position"].get<int>(), want["token_id"].get<int32_t>());
        REQUIRE(a.parts.size() == want["parts"].size());
        for (size_t i = 0; i < a.parts.size(); ++i) {
          const auto& w = want["parts"][i];
          CHECK(attribution_kind_name(a.parts[i].kind) == w["kind"].get<std::string>());
          CHECK(a.parts[i].layer == (w["layer"].is_null() ? -1 : w["layer"].get<int>()));
          CHECK(a.parts[i].head == (w["head"].is_null() ? -1 : w["head"].get<int>()));
          const double err = std::fabs(a.parts[i].value - w["value"].get<double>());
          worst_part = std::max(worst_part, err);
          CHECK(err <= 1e-4);
        }
        worst_sum = std::max(worst_sum, std::fabs(a.sum - a.logit));
        worst_logit = std::max(worst_logit, std::fabs(a.logit - want["logit"].get<double>()));
        CHECK(std::fabs(a.sum - a.logit) <= 1e-4);
        CHECK(std::fabs(a.logit - want["logit"].get<double>()) <= 1e-4);
        ++checked;
      }
    }
    REQUIRE(checked >= 2);
    std::cout << "attribution " << name << ": max |part - reference| = " << worst_part
              << ", max |sum - logit| = " << worst_sum << ", max |logit - reference| = " << worst_logit << "\n";
  }
}

TEST_CASE("attribution: defaults, bad input, and a head switched off", "[engine][attribution]") {
  const Transformer model = load("gpt2_lm_f32");
  const std::vector<int32_t> ids = {40, 40, 2, 39, 14, 15, 28};
  const Attribution a = direct_logit_attribution(model, ids, {}, {});
  CHECK(a.position == 6);
  const std::vector<float> logits = model.lm_logits(model.forward(ids, {}, {}, ForwardOptions{}).hidden_out.data() + 6 * 36, 1);
  CHECK(a.token_id == std::max_element(logits.begin(), logits.end()) - logits.begin());
  CHECK(a.parts.front().kind == AttributionPart::Kind::Embeddings);
  CHECK(a.parts.back().kind == AttributionPart::Kind::FinalNormBias);
  test::expect_error([&] { direct_logit_attribution(model, ids, {}, {}, 7); }, "E_INPUT", "position");
  test::expect_error([&] { direct_logit_attribution(model, ids, {}, {}, 6, 53); }, "E_INPUT", "token id");
  const Transformer bert = load("bert_mlm_f32");
  test::expect_error([&] { direct_logit_attribution(bert, {3, 4}, {}, {}); }, "E_INPUT", "pre-norm decoder");

  // Switching one head off moves the logit by about that head's part (not exactly: the final
  // norm's σ and every later layer change too). Reported, not asserted.
  const int H = model.config().num_heads, L = model.config().num_layers;
  for (const auto& part : a.parts) {
    if (part.kind != AttributionPart::Kind::Head || part.layer != L - 1) continue;
    std::vector<float> mask(static_cast<size_t>(L) * H, 1.0f);
    mask[static_cast<size_t>(part.layer) * H + part.head] = 0.0f;
    const Attribution off = direct_logit_attribution(model, ids, {}, mask, 6, a.token_id);
    std::cout << "head " << part.layer << "." << part.head << " off: logit moved by " << a.logit - off.logit
              << ", its part " << part.value << "\n";
  }
}

// The Llama family's lens normalises with its final RMSNorm (no centring, no bias). Expected values
// are computed here in double from the float64 PyTorch reference's hidden states and the
// checkpoint's own norm weight and head (tests/fixtures/llama), independently of the engine's norm.
TEST_CASE("logit lens on the Llama family: the reference's residual stream through RMSNorm and the head",
          "[engine][lens][llama]") {
  const std::string dir = kFixtures + "/llama/llama3_gqa2_f32";
  const ModelConfig config = parse_config(test::read_text(dir + "/config.json"));
  const auto bytes = test::read_bytes(dir + "/model.safetensors");
  const SafeTensors tensors(bytes.data(), bytes.size());
  const int L = config.num_layers, C = config.hidden_size, V = config.vocab_size;
  const std::vector<float> gamma = tensors.to_f32("model.norm.weight", {C});
  const std::vector<float> unembed =
      tensors.to_f32(tensors.has("lm_head.weight") ? "lm_head.weight" : "model.embed_tokens.weight", {V, C});
  const Transformer model(config, load_weights(config, tensors));
  const auto inputs = nlohmann::json::parse(test::read_text(dir + "/inputs.json"));
  const auto& c = inputs["cases"][1];  // several tokens
  const auto ids = ints(c["ids"]);
  const int T = static_cast<int>(ids.size());
  REQUIRE(T > 2);
  const auto expected_bytes = test::read_bytes(dir + "/" + c["expected"].get<std::string>());
  const SafeTensors expected(expected_bytes.data(), expected_bytes.size());
  const std::vector<float> ref_hidden = expected.to_f32("hidden_states", {L + 1, T, C});

  ForwardOptions options;
  options.hidden_states = true;
  const ForwardResult r = model.forward(ids, {}, ints(c["attention_mask"]), options);
  const LogitLens lens = logit_lens(model, r, ids, V);
  double worst = 0;
  for (int l = 0; l <= L; ++l) {
    for (int t = 0; t < T; ++t) {
      const float* h = ref_hidden.data() + (static_cast<size_t>(l) * T + t) * C;
      std::vector<double> x(h, h + C);
      if (l < L) {  // the last entry is already after the final norm
        double ms = 0;
        for (double v : x) ms += v * v;
        const double inv = 1.0 / std::sqrt(ms / C + config.layer_norm_eps);
        for (int i = 0; i < C; ++i) x[i] = x[i] * inv * gamma[i];
      }
      std::vector<double> logits(V);
      double max = -INFINITY;
      for (int v = 0; v < V; ++v) {
        double dot = 0;
        for (int i = 0; i < C; ++i) dot += x[i] * unembed[static_cast<size_t>(v) * C + i];
        logits[v] = dot;
        max = std::max(max, dot);
      }
      double sum = 0;
      for (double z : logits) sum += std::exp(z - max);
      const LensEntry& e = lens.entries[static_cast<size_t>(l) * T + t];
      REQUIRE(e.top_ids.size() == static_cast<size_t>(V));
      for (int k = 0; k < V; ++k) {
        const double p = std::exp(logits[e.top_ids[k]] - max) / sum;
        worst = std::max(worst, std::abs(p - e.top_probs[k]));
      }
    }
  }
  std::cout << "[lens] llama3_gqa2_f32: max |Δprob| " << worst << "\n";
  CHECK(worst <= 1e-4);
}

// Its values against PyTorch: test_engine_llama_trace.cpp. Here: its bad input, as GPT-2's.
TEST_CASE("direct logit attribution on the Llama family: bad input is E_INPUT by name", "[engine][attribution][llama]") {
  const std::string dir = kFixtures + "/llama/llama3_gqa2_f32";
  const ModelConfig config = parse_config(test::read_text(dir + "/config.json"));
  const auto bytes = test::read_bytes(dir + "/model.safetensors");
  const SafeTensors tensors(bytes.data(), bytes.size());
  const Transformer model(config, load_weights(config, tensors));
  const Attribution a = direct_logit_attribution(model, {1, 2, 3}, {}, {}, -1, -1);
  CHECK(a.position == 2);
  CHECK(std::fabs(a.sum - a.logit) <= 1e-4 * std::max(1.0, std::fabs(static_cast<double>(a.logit))));
  test::expect_error([&] { direct_logit_attribution(model, {1, 2, 3}, {}, {}, 3); }, "E_INPUT", "position");
  test::expect_error([&] { direct_logit_attribution(model, {1, 2, 3}, {}, {}, 1, 61); }, "E_INPUT", "token id");
  test::expect_error([&] { direct_logit_attribution(model, {1, 2, 3}, {}, std::vector<float>(5, 1.0f)); }, "E_INPUT",
                     "head_mask");
}
