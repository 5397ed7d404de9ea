// The decoder side's logit lens and direct logit attribution of encoder–decoders
// (seq2seq_analysis.h) against the float64 PyTorch reference of
// tests/fixtures/make_seq2seq_lens_fixtures.py (a post-norm BART and a pre-norm untied T5 v1.1 of
// tests/fixtures/seq2seq, under the three head masks): lens top ids equal, probabilities ≤ 1e-5;
// attribution parts in the reference's order, each ≤ 1e-4 of the logit. The lens's last row is the
// run's own logits; bad positions, token ids and top_k are E_INPUT.
#include <cmath>
#include <nlohmann/json.hpp>

#include "safetensors.h"
#include "seq2seq_analysis.h"
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

std::vector<float> flat_mask(const nlohmann::json& rows) {
  std::vector<float> out;
  for (const auto& row : rows)
    for (const auto& v : row) out.push_back(v.get<float>());
  return out;
}

}  // namespace

TEST_CASE("seq2seq logit lens and attribution match the float64 reference", "[engine][seq2seq][lens]") {
  for (const std::string name : {"bart_f32", "t5v11_gated_untied_bf16"}) {
    INFO(name);
    const Seq2Seq model = load(name);
    const auto fx = nlohmann::json::parse(test::read_text(kFixtures + "/seq2seq_lens/" + name + ".json"));
    const std::vector<int32_t> source = test::ints(fx["source_ids"]);
    std::vector<int32_t> decoder_ids = {model.config().decoder_start_token_id};
    for (int32_t id : test::ints(fx["target_ids"])) decoder_ids.push_back(id);
    Seq2SeqRunOptions masks;
    masks.head_mask = flat_mask(fx["masks"]["head_mask"]);
    masks.decoder_head_mask = flat_mask(fx["masks"]["decoder_head_mask"]);
    masks.cross_attn_head_mask = flat_mask(fx["masks"]["cross_attn_head_mask"]);

    const LogitLens lens = seq2seq_logit_lens(model, source, decoder_ids, masks, fx["top_k"]);
    const int T = static_cast<int>(decoder_ids.size());
    REQUIRE(lens.layers == model.config().decoder_layers);
    for (int l = 0; l <= lens.layers; ++l)
      for (int t = 0; t < T; ++t) {
        const LensEntry& e = lens.entries[static_cast<size_t>(l) * T + t];
        const auto& want = fx["logit_lens"][l][t];
        CHECK(e.top_ids == test::ints(want["top_ids"]));
        for (int i = 0; i < lens.top_k; ++i) CHECK(std::abs(e.top_probs[i] - want["top_probs"][i].get<double>()) <= 1e-5);
      }

    const Attribution a = seq2seq_attribution(model, source, decoder_ids, masks);
    const auto& want = fx["attribution"];
    CHECK(a.position == want["position"].get<int>());
    CHECK(a.token_id == want["token_id"].get<int>());
    const double scale = std::max(1.0, std::abs(want["logit"].get<double>()));
    REQUIRE(a.parts.size() == want["parts"].size());
    for (size_t i = 0; i < a.parts.size(); ++i) {
      const auto& p = want["parts"][i];
      CHECK(attribution_kind_name(a.parts[i].kind) == p["kind"].get<std::string>());
      CHECK(a.parts[i].layer == (p["layer"].is_null() ? -1 : p["layer"].get<int>()));
      CHECK(a.parts[i].head == (p["head"].is_null() ? -1 : p["head"].get<int>()));
      CHECK(std::abs(a.parts[i].value - p["value"].get<double>()) <= 1e-4 * scale);
    }
    CHECK(std::abs(a.sum - a.logit) <= 1e-4 * scale);
  }
}

TEST_CASE("seq2seq lens: the last row is the run's own prediction; bad requests are E_INPUT", "[engine][seq2seq][lens]") {
  const Seq2Seq model = load("bart_f32");
  const std::vector<int32_t> source = {5, 6, 7}, decoder_ids = {model.config().decoder_start_token_id, 9, 10};
  const LogitLens lens = seq2seq_logit_lens(model, source, decoder_ids, {}, 1);
  const EncoderOutput enc = model.encode(source);
  KvCache cache;
  const DecoderOutput dec = model.decode(decoder_ids, enc, cache);
  const std::vector<float> logits = model.logits(dec.hidden.data(), dec.tokens);
  const int V = model.config().vocab_size;
  for (int t = 0; t < dec.tokens; ++t) {
    const float* row = logits.data() + static_cast<size_t>(t) * V;
    CHECK(lens.final_ids[t] == std::max_element(row, row + V) - row);
  }
  test::expect_error([&] { seq2seq_logit_lens(model, source, decoder_ids, {}, 0); }, "E_INPUT", "top_k");
  test::expect_error([&] { seq2seq_attribution(model, source, decoder_ids, {}, 3); }, "E_INPUT", "past the 3 decoder tokens");
  test::expect_error([&] { seq2seq_attribution(model, source, decoder_ids, {}, -1, V); }, "E_INPUT", "out of vocab range");
}
