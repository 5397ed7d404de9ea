// Activation patching and steering (patching.h, steering.h) against the float64 PyTorch reference
// of tests/fixtures/make_patching_fixtures.py (random BERT, GPT-2 and grouped-query Llama
// checkpoints): every cell's score ≤ 1e-3, both LDs ≤ 1e-4 relative (at least 1e-4 absolute), steered greedy ids equal to
// the reference's up to its first near-tie and different from the plain ones. Identities: patching
// a run with its own activations changes nothing, bit for bit; resid_pre at layer 0, every position
// patched, is the clean run; steering at strength 0 is the plain run bit for bit.
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "patching.h"
#include "steering.h"
#include "test_engine_support.h"
#include "test_fixture_models.h"
#include "transformer.h"

using namespace attnscope;

namespace {

const std::string kFixtures = ATTNSCOPE_FIXTURES_DIR;
const std::vector<std::string> kModels = {"engine/gpt2_lm_f32", "llama/llama3_gqa2_f32", "engine/bert_mlm_f32"};

nlohmann::json fixture(const std::string& model) {
  std::string file = model;
  std::replace(file.begin(), file.end(), '/', '_');
  return nlohmann::json::parse(test::read_text(kFixtures + "/patching/" + file + ".json"));
}

PatchingInput input_of(const nlohmann::json& c) {
  PatchingInput in;
  in.clean = test::ints(c["clean"]);
  in.corrupted = test::ints(c["corrupted"]);
  in.answer = c["answer"];
  in.wrong = c["wrong"];
  in.position = c["position"];
  in.site = parse_patch_site(c["site"]);
  return in;
}

// Greedy ids (prompt first) through extend(), every step with `hooks`.
std::vector<int32_t> greedy(const Transformer& model, std::vector<int32_t> ids, int steps, const Hooks* hooks) {
  KvCache cache;
  ForwardResult out;
  Activations a;
  std::vector<int32_t> next = ids;
  for (int s = 0; s < steps; ++s) {
    model.extend(next, cache, out, a, hooks);
    const std::vector<float> logits = model.lm_logits(out.hidden_out.data() + (out.tokens - 1) * out.hidden, 1);
    const int32_t id = static_cast<int32_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
    ids.push_back(id);
    next = {id};
  }
  return ids;
}

}  // namespace

TEST_CASE("patching: every site's grid matches the float64 reference", "[engine][patching]") {
  for (const std::string& name : kModels) {
    const Transformer model = test::load_transformer(kFixtures + "/" + name);
    const auto expected_file = fixture(name);  // held: a range-for over a temporary's member dangles
    for (const auto& c : expected_file["cases"]) {
      INFO(name << " " << c["site"].get<std::string>());
      PatchingRun run(model, input_of(c));
      const double clean = c["clean_ld"], corrupted = c["corrupted_ld"];
      // 1e-4 relative with a floor of 1: an LD is a difference of two logits, and where they nearly
      // cancel float32 logits cannot give it to 1e-4 of itself.
      CHECK(std::abs(run.clean_ld() - clean) <= 1e-4 * std::max(1.0, std::abs(clean)));
      CHECK(std::abs(run.corrupted_ld() - corrupted) <= 1e-4 * std::max(1.0, std::abs(corrupted)));
      REQUIRE(run.layers() == static_cast<int>(c["scores"].size()));
      double worst = 0;
      for (int l = 0; l < run.layers(); ++l) {
        const std::vector<double> scores = run.scores(run.patched_lds(l));
        REQUIRE(scores.size() == c["scores"][l].size());
        for (size_t i = 0; i < scores.size(); ++i) {
          const double expected = c["scores"][l][i], error = std::abs(scores[i] - expected);
          if (error > 1e-3) FAIL_CHECK("layer " << l << " column " << i << ": expected " << expected << ", got " << scores[i]);
          worst = std::max(worst, error);
        }
      }
      INFO("max error " << worst);
      CHECK(worst <= 1e-3);
    }
  }
}

TEST_CASE("patching: a run patched with its own activations is unchanged, bit for bit", "[engine][patching]") {
  for (const std::string& name : kModels) {
    const Transformer model = test::load_transformer(kFixtures + "/" + name);
    const auto c = fixture(name)["cases"][0];
    for (const char* site : {"resid_pre", "attn_out", "mlp_out", "head", "pattern"}) {
      INFO(name << " " << site);
      PatchingInput in = input_of(c);
      in.corrupted = in.clean;
      in.site = parse_patch_site(site);
      PatchingRun run(model, in);
      CHECK(run.clean_ld() == run.corrupted_ld());
      for (int l = 0; l < run.layers(); ++l)
        for (double ld : run.patched_lds(l)) REQUIRE(ld == run.clean_ld());
      test::expect_error([&] { run.scores({0.0}); }, "E_INPUT", "no difference to restore");
    }
  }
}

TEST_CASE("patching: resid_pre at layer 0 patched at every position is the clean run", "[engine][patching]") {
  for (const std::string& name : kModels) {
    INFO(name);
    const Transformer model = test::load_transformer(kFixtures + "/" + name);
    const PatchingInput in = input_of(fixture(name)["cases"][0]);
    const PatchingRun run(model, in);
    // Layer 0's input at every position is the clean run's: the forward from there is the clean run.
    const ForwardResult clean = model.forward(in.clean, {}, {}, {});
    std::vector<float> clean_resid_pre;
    Hooks read;
    read.add("blocks.0.hook_resid_pre", [&](const HookPoint&, HookTensor& t) {
      clean_resid_pre.assign(t.data, t.data + static_cast<size_t>(t.rows) * t.width);
    }, false);
    ForwardOptions options;
    options.hooks = &read;
    model.forward(in.corrupted, {}, {}, options);  // reads nothing of the clean run
    model.forward(in.clean, {}, {}, options);
    ForwardResult from;
    Activations a;
    model.forward_from_layer(0, clean_resid_pre.data(), static_cast<int>(in.clean.size()), {}, {}, from, a);
    CHECK(from.hidden_out == clean.hidden_out);
    CHECK(from.attentions == clean.attentions);
  }
}

TEST_CASE("patching: bad input is E_INPUT naming what is wrong", "[engine][patching]") {
  const Transformer model = test::load_transformer(kFixtures + "/engine/gpt2_lm_f32");
  PatchingInput in;
  in.clean = {2, 11, 7, 30};
  in.corrupted = {2, 11, 7};
  in.answer = 3;
  in.wrong = 19;
  test::expect_error([&] { PatchingRun run(model, in); }, "E_INPUT", "the clean prompt has 4 tokens and the corrupted one 3");
  in.corrupted = {2, 11, 8, 30};
  in.wrong = 3;
  test::expect_error([&] { PatchingRun run(model, in); }, "E_INPUT", "answer and wrong are the same token");
  in.wrong = 53;
  test::expect_error([&] { PatchingRun run(model, in); }, "E_INPUT", "wrong token id 53 is out of vocab range");
  in.wrong = 19;
  in.position = 4;
  test::expect_error([&] { PatchingRun run(model, in); }, "E_INPUT", "metric position 4 is outside the 4 tokens");
  in.position = -1;
  test::expect_error([] { parse_patch_site("resid_post"); }, "E_INPUT", "resid_pre, attn_out, mlp_out, head, pattern");
  PatchingRun run(model, in);
  test::expect_error([&] { run.patched_lds(3); }, "E_INPUT", "layer 3 is outside [0, 3)");
}

TEST_CASE("steering: greedy ids match the reference; strength 0 is plain generation bit for bit",
          "[engine][steering]") {
  for (const std::string& name : {"engine/gpt2_lm_f32", "llama/llama3_gqa2_f32"}) {
    const Transformer model = test::load_transformer(kFixtures + "/" + name);
    const auto expected_file = fixture(name);  // held: a range-for over a temporary's member dangles
    for (const auto& s : expected_file["steering"]) {
      INFO(name);
      Steering steering;
      steering.layer = s["layer"];
      steering.vector = steering_vector(model, steering.layer, test::ints(s["from"]), test::ints(s["to"]));
      double worst = 0;
      for (size_t i = 0; i < steering.vector.size(); ++i)
        worst = std::max(worst, std::abs(steering.vector[i] - s["vector"][i].get<double>()));
      CHECK(worst <= 1e-4);
      steering.strength = s["strength"];
      check_steering(steering, model.config().num_layers, model.config().hidden_size);
      const Hooks hooks = steering_hooks(steering);
      const std::vector<int32_t> prompt = test::ints(s["prompt"]);
      const int steps = s["steps"];
      const std::vector<int32_t> steered = greedy(model, prompt, steps, &hooks), plain = greedy(model, prompt, steps, nullptr);
      // Equal up to the reference's first near-tie (a margin under 1e-3 may flip in float32).
      const std::vector<int32_t> expected = test::ints(s["ids"]), expected_plain = test::ints(s["plain_ids"]);
      size_t compared = 0;
      for (size_t i = 0; i < static_cast<size_t>(steps) && s["margins"][i].get<double>() > 1e-3; ++i, ++compared)
        REQUIRE(steered[prompt.size() + i] == expected[prompt.size() + i]);
      CHECK(compared >= 3);
      for (size_t i = 0; i < static_cast<size_t>(steps) && s["plain_margins"][i].get<double>() > 1e-3; ++i)
        REQUIRE(plain[prompt.size() + i] == expected_plain[prompt.size() + i]);
      CHECK(steered != plain);

      // Strength 0: the hook runs and adds 0 · v; every step's outputs are the plain ones.
      steering.strength = 0;
      KvCache c1, c2;
      ForwardResult r1, r2;
      Activations a1, a2;
      std::vector<int32_t> next = prompt;
      for (int step = 0; step < steps; ++step) {
        model.extend(next, c1, r1, a1, &hooks);
        model.extend(next, c2, r2, a2, nullptr);
        REQUIRE(r1.hidden_out == r2.hidden_out);
        REQUIRE(r1.attentions == r2.attentions);
        next = {plain[prompt.size() + step]};
      }
    }
  }
  Steering bad;
  bad.layer = 3;
  test::expect_error([&] { check_steering(bad, 3, 36); }, "E_INPUT", "steering layer 3 is outside [0, 3)");
  bad.layer = 0;
  bad.vector.assign(35, 0.0f);
  test::expect_error([&] { check_steering(bad, 3, 36); }, "E_INPUT", "steering vector has 35 values, the residual stream 36");
}
