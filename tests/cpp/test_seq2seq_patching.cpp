// Activation patching on encoder–decoders (seq2seq_patching.h) against the float64 PyTorch
// reference of tests/fixtures/make_patching_fixtures.py (random BART and T5 checkpoints of
// tests/fixtures/seq2seq): the sources differ, the decoder's ids are the same; every cell of the
// decoder's and the encoder's sites ≤ 1e-3, both LDs ≤ 1e-4 relative; a run patched with its own
// activations is unchanged, bit for bit. Steering the decoder: greedy ids equal to the reference's
// up to its first near-tie and different from the plain ones; strength 0 is the plain run bit for bit.
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "safetensors.h"
#include "seq2seq_patching.h"
#include "steering.h"
#include "test_engine_support.h"
#include "test_fixture_models.h"

using namespace attnscope;

namespace {

const std::string kFixtures = ATTNSCOPE_FIXTURES_DIR;

Seq2Seq load(const std::string& model) {
  const std::string dir = kFixtures + "/seq2seq/" + model;
  const Seq2SeqConfig config = parse_seq2seq_config(test::read_text(dir + "/config.json"));
  const auto bytes = test::read_bytes(dir + "/model.safetensors");
  const SafeTensors tensors(bytes.data(), bytes.size());
  return Seq2Seq(config, load_seq2seq_weights(config, tensors));
}

Seq2SeqPatchingInput input_of(const nlohmann::json& c) {
  Seq2SeqPatchingInput in;
  in.clean_source = test::ints(c["clean"]);
  in.corrupted_source = test::ints(c["corrupted"]);
  in.decoder_ids = test::ints(c["decoder_ids"]);
  in.answer = c["answer"];
  in.wrong = c["wrong"];
  in.site = parse_patch_site(c["site"]);
  in.stack = c["stack"] == "encoder" ? HookStack::Encoder : HookStack::Decoder;
  return in;
}

// Greedy decoder ids after `start`, every step with `hooks`.
std::vector<int32_t> greedy(const Seq2Seq& model, const EncoderOutput& enc, std::vector<int32_t> ids, int steps,
                            const Hooks* hooks) {
  KvCache cache;
  Seq2SeqRunOptions options;
  options.hooks = hooks;
  std::vector<int32_t> next = ids;
  for (int s = 0; s < steps; ++s) {
    const DecoderOutput out = model.decode(next, enc, cache, options);
    const std::vector<float> logits = model.logits(out.hidden.data() + static_cast<size_t>(out.tokens - 1) * model.config().d_model, 1);
    ids.push_back(static_cast<int32_t>(std::max_element(logits.begin(), logits.end()) - logits.begin()));
    next = {ids.back()};
  }
  return ids;
}

}  // namespace

TEST_CASE("seq2seq steering: the decoder's greedy ids match the reference; strength 0 is plain", "[engine][steering][seq2seq]") {
  for (const std::string name : {"bart_f32", "t5_relu_tied_f32"}) {
    const Seq2Seq model = load(name);
    const auto fixture = nlohmann::json::parse(test::read_text(kFixtures + "/patching/seq2seq_" + name + ".json"));
    for (const auto& s : fixture["steering"]) {
      INFO(name);
      const EncoderOutput enc = model.encode(test::ints(s["source"]));
      Steering steering;
      steering.layer = s["layer"];
      steering.stack = HookStack::Decoder;
      steering.vector = seq2seq_steering_vector(model, steering.layer, enc, test::ints(s["from"]), test::ints(s["to"]));
      double worst = 0;
      for (size_t i = 0; i < steering.vector.size(); ++i)
        worst = std::max(worst, std::abs(steering.vector[i] - s["vector"][i].get<double>()));
      CHECK(worst <= 1e-4);
      steering.strength = s["strength"];
      const Hooks hooks = steering_hooks(steering);
      const std::vector<int32_t> start = test::ints(s["start"]), expected = test::ints(s["ids"]);
      const int steps = s["steps"];
      const std::vector<int32_t> steered = greedy(model, enc, start, steps, &hooks), plain = greedy(model, enc, start, steps, nullptr);
      size_t compared = 0;
      for (size_t i = 0; i < static_cast<size_t>(steps) && s["margins"][i].get<double>() > 1e-3; ++i, ++compared)
        REQUIRE(steered[start.size() + i] == expected[start.size() + i]);
      CHECK(compared >= 3);
      CHECK(steered != plain);
      steering.strength = 0;
      CHECK(greedy(model, enc, start, steps, &hooks) == plain);
      KvCache c1, c2;
      Seq2SeqRunOptions steered_options;
      steered_options.hooks = &hooks;
      const DecoderOutput a = model.decode(plain, enc, c1, steered_options), b = model.decode(plain, enc, c2);
      CHECK(a.hidden == b.hidden);
      CHECK(a.self_attentions == b.self_attentions);
    }
  }
}

TEST_CASE("seq2seq patching: both stacks' grids match the float64 reference", "[engine][patching][seq2seq]") {
  for (const std::string name : {"bart_f32", "t5_relu_tied_f32"}) {
    const Seq2Seq model = load(name);
    const auto fixture = nlohmann::json::parse(test::read_text(kFixtures + "/patching/seq2seq_" + name + ".json"));
    for (const auto& c : fixture["cases"]) {
      INFO(name << " " << c["stack"].get<std::string>() << " " << c["site"].get<std::string>());
      const Seq2SeqPatchingRun run(model, input_of(c));
      const double clean = c["clean_ld"], corrupted = c["corrupted_ld"];
      CHECK(std::abs(run.clean_ld() - clean) <= 1e-4 * std::abs(clean));
      CHECK(std::abs(run.corrupted_ld() - corrupted) <= 1e-4 * std::abs(corrupted));
      CHECK(run.position() == c["position"].get<int>());
      REQUIRE(run.layers() == static_cast<int>(c["scores"].size()));
      double worst = 0;
      for (int l = 0; l < run.layers(); ++l) {
        const std::vector<double> scores = run.scores(run.patched_lds(l));
        REQUIRE(scores.size() == c["scores"][l].size());
        for (size_t i = 0; i < scores.size(); ++i) worst = std::max(worst, std::abs(scores[i] - c["scores"][l][i].get<double>()));
      }
      INFO("max error " << worst);
      CHECK(worst <= 1e-3);
    }
  }
}

TEST_CASE("seq2seq patching: a run patched with its own activations is unchanged; bad input is E_INPUT",
          "[engine][patching][seq2seq]") {
  const Seq2Seq model = load("t5_relu_tied_f32");
  Seq2SeqPatchingInput in;
  in.clean_source = in.corrupted_source = {11, 22, 24, 11, 30, 20, 15};
  in.decoder_ids = {0, 5, 9, 14};
  in.answer = 9;
  in.wrong = 28;
  for (HookStack stack : {HookStack::Decoder, HookStack::Encoder})
    for (const char* site : {"resid_pre", "attn_out", "mlp_out", "head", "pattern"}) {
      INFO(site);
      in.stack = stack;
      in.site = parse_patch_site(site);
      const Seq2SeqPatchingRun run(model, in);
      for (int l = 0; l < run.layers(); ++l)
        for (double ld : run.patched_lds(l)) REQUIRE(ld == run.clean_ld());
    }
  in.corrupted_source = {11, 22};
  test::expect_error([&] { Seq2SeqPatchingRun run(model, in); }, "E_INPUT", "the clean source has 7 tokens and the corrupted one 2");
  in.corrupted_source = in.clean_source;
  in.decoder_ids.clear();
  test::expect_error([&] { Seq2SeqPatchingRun run(model, in); }, "E_INPUT", "no decoder ids");
  in.decoder_ids = {0};
  in.stack = HookStack::Model;
  test::expect_error([&] { Seq2SeqPatchingRun run(model, in); }, "E_INPUT", "the encoder's or the decoder's sites");
}
