// Information flow (flow.h) against the float64 PyTorch implementation of the definitions in
// tests/fixtures/make_flow_fixtures.py, on random GPT-2, BERT (post-LN), Llama-3 (grouped-query,
// o_proj bias), Mistral (multi-query) and BART / Marian (f16) / T5 checkpoints, with padding, head
// masks and a query whose keys are all
// masked: every share within 1e-4; each sum's shares add to 1; a key a query cannot see has share 0.
// The proportion rule itself on hand-worked sums; q8 weights keep the sums at 1 and stay near f32.
#include <catch2/catch.hpp>

#include <algorithm>
#include <ctime>
#include <cmath>
#include <nlohmann/json.hpp>

#include "flow_models.h"
#include "safetensors.h"
#include "seq2seq_config.h"
#include "test_engine_support.h"
#include "test_fixture_models.h"

using namespace attnscope;
using test::ints;

namespace {

const std::string kFixtures = ATTNSCOPE_FIXTURES_DIR;
constexpr double kTolerance = 1e-4;

std::vector<float> flat(const nlohmann::json& j) {
  std::vector<float> out;
  if (j.is_array())
    for (const auto& x : j) {
      const std::vector<float> inner = flat(x);
      out.insert(out.end(), inner.begin(), inner.end());
    }
  else if (j.is_number())
    out.push_back(j.get<float>());
  return out;
}

std::vector<float> masks_of(const nlohmann::json& j) { return j.is_null() ? std::vector<float>{} : flat(j); }

double compare(const std::string& what, const std::vector<float>& got, const nlohmann::json& expected) {
  INFO(what);
  const std::vector<float> want = flat(expected);
  REQUIRE(got.size() == want.size());
  const test::Mismatch m = test::worst(want, got);
  CHECK(m.max_error <= kTolerance);
  return m.max_error;
}

// Every field of one attention sublayer ("" or "cross_") and the feed-forward's.
double compare_stack(const StackFlow& f, const nlohmann::json& expected) {
  double worst = 0;
  auto attention = [&](const AttentionFlow& a, const std::string& prefix) {
    for (auto [name, values] : {std::pair{"tokens", &a.tokens}, {"residual", &a.residual}, {"bias", &a.bias},
                                {"heads", &a.heads}, {"heads_residual", &a.heads_residual}, {"heads_bias", &a.heads_bias}})
      worst = std::max(worst, compare(prefix + name, *values, expected[prefix + name]));
  };
  attention(f.self, "");
  if (expected.contains("cross_tokens")) attention(f.cross, "cross_");
  worst = std::max(worst, compare("mlp", f.mlp, expected["mlp"]));
  worst = std::max(worst, compare("mlp_residual", f.mlp_residual, expected["mlp_residual"]));
  return worst;
}

// Each sum's shares add to 1, or are all 0 (every importance 0: an update whose parts cancel,
// which the random Marian's feed-forward does at a few positions).
bool one_or_none(double sum) { return std::fabs(sum - 1.0) <= 1e-5 || sum == 0.0; }

void check_sums(const AttentionFlow& a, int L, int H, int T) {
  const int K = a.keys;
  for (int l = 0; l < L; ++l)
    for (int i = 0; i < T; ++i) {
      const size_t row = static_cast<size_t>(l) * T + i;
      double tokens = a.residual[row] + a.bias[row], heads = a.heads_residual[row] + a.heads_bias[row];
      for (int j = 0; j < K; ++j) {
        tokens += a.tokens[row * K + j];
        for (int h = 0; h < H; ++h) heads += a.heads[((static_cast<size_t>(l) * H + h) * T + i) * K + j];
      }
      INFO("layer " << l << ", query " << i << ": " << tokens << ", " << heads);
      REQUIRE(one_or_none(tokens));
      REQUIRE(one_or_none(heads));
    }
}

void check_sums(const StackFlow& f) {
  check_sums(f.self, f.layers, f.heads, f.tokens);
  if (!f.cross.tokens.empty()) check_sums(f.cross, f.layers, f.heads, f.tokens);
  for (size_t r = 0; r < f.mlp.size(); ++r) REQUIRE(one_or_none(f.mlp[r] + f.mlp_residual[r]));
}

Seq2Seq load_seq2seq(const std::string& model) {
  const std::string dir = kFixtures + "/" + model;
  const Seq2SeqConfig config = parse_seq2seq_config(test::read_text(dir + "/config.json"));
  const auto bytes = test::read_bytes(dir + "/model.safetensors");
  const SafeTensors tensors(bytes.data(), bytes.size());
  return Seq2Seq(config, load_seq2seq_weights(config, tensors));
}

}  // namespace

TEST_CASE("flow: the proportion rule on hand-worked sums", "[engine][flow]") {
  // y = (3, 0) = (1, 0) + (2, 0): imp 3 − 2 = 1 and 3 − 1 = 2.
  const float y[] = {3, 0}, a[] = {1, 0}, b[] = {2, 0};
  const float* parts[] = {a, b};
  float shares[2];
  proportion_shares(shares, y, parts, 2, 2);
  CHECK(shares[0] == Approx(1.0 / 3));
  CHECK(shares[1] == Approx(2.0 / 3));
  // A component pointing away from the sum has importance 0: y = (4, 1) + (−1, −1).
  const float y2[] = {3, 0}, c[] = {4, 1}, d[] = {-1, -1};
  const float* parts2[] = {c, d};
  proportion_shares(shares, y2, parts2, 2, 2);
  CHECK(shares[0] == Approx(1.0));
  CHECK(shares[1] == 0.0f);
  // A zero sum: every importance 0, every share 0 (not NaN).
  const float zero[] = {0, 0}, e[] = {1, 1}, g[] = {-1, -1};
  const float* parts3[] = {e, g};
  proportion_shares(shares, zero, parts3, 2, 2);
  CHECK(shares[0] == 0.0f);
  CHECK(shares[1] == 0.0f);
}

TEST_CASE("flow: GPT-2, BERT, Llama-3 (grouped-query) and Mistral (multi-query) match the float64 reference",
          "[engine][flow]") {
  for (const std::string name :
       {"engine/gpt2_lm_f32", "engine/bert_mlm_f32", "llama/llama3_gqa2_f32", "llama/mistral_mqa_f32"}) {
    std::string file = name;
    std::replace(file.begin(), file.end(), '/', '_');
    const auto fixture = nlohmann::json::parse(test::read_text(kFixtures + "/flow/" + file + ".json"));
    const Transformer model = test::load_transformer(kFixtures + "/" + name);
    REQUIRE(!fixture["cases"].empty());
    double worst = 0;
    for (const auto& c : fixture["cases"]) {
      INFO(name << "/" << c["name"].get<std::string>());
      const std::vector<int32_t> ids = ints(c["ids"]), mask = ints(c["attention_mask"]);
      const std::vector<int32_t> types = c["token_types"].is_null() ? std::vector<int32_t>{} : ints(c["token_types"]);
      const StackFlow f = information_flow(model, ids, types, mask, masks_of(c["head_mask"]));
      const int T = static_cast<int>(ids.size());
      REQUIRE(f.layers == model.config().num_layers);
      REQUIRE(f.tokens == T);
      worst = std::max(worst, compare_stack(f, c["flow"]));
      if (c["name"] != "t7_all_masked") check_sums(f);
      // Keys a query cannot see (later ones in a decoder, padded ones) have share exactly 0.
      for (int l = 0; l < f.layers; ++l)
        for (int i = 0; i < T; ++i)
          for (int j = 0; j < T; ++j)
            if ((model.config().is_decoder() && j > i) || (mask[j] == 0 && c["name"] != "t7_all_masked"))
              REQUIRE(f.self.tokens[(static_cast<size_t>(l) * T + i) * T + j] == 0.0f);
    }
    WARN(name << ": worst share error " << worst);
  }
}

TEST_CASE("flow: BART, Marian and T5 encoder, decoder self- and cross-attention match the float64 reference",
          "[engine][flow]") {
  for (const std::string name : {"seq2seq/bart_f32", "seq2seq/marian_f16", "seq2seq/t5_relu_tied_f32"}) {
    std::string file = name;
    std::replace(file.begin(), file.end(), '/', '_');
    const auto fixture = nlohmann::json::parse(test::read_text(kFixtures + "/flow/" + file + ".json"));
    const Seq2Seq model = load_seq2seq(name);
    double worst = 0;
    for (const auto& c : fixture["cases"]) {
      INFO(name << "/" << c["name"].get<std::string>());
      Seq2SeqRunOptions options;
      if (!c["head_masks"].is_null()) {
        options.head_mask = masks_of(c["head_masks"]["head_mask"]);
        options.decoder_head_mask = masks_of(c["head_masks"]["decoder_head_mask"]);
        options.cross_attn_head_mask = masks_of(c["head_masks"]["cross_attn_head_mask"]);
      }
      const Seq2SeqFlow f = information_flow(model, ints(c["source_ids"]), ints(c["decoder_input_ids"]), options);
      REQUIRE(f.decoder.cross.keys == static_cast<int>(c["source_ids"].size()));
      worst = std::max(worst, compare_stack(f.encoder, c["flow"]["encoder"]));
      worst = std::max(worst, compare_stack(f.decoder, c["flow"]));
      check_sums(f.encoder);
      check_sums(f.decoder);
    }
    WARN(name << ": worst share error " << worst);
  }
}

TEST_CASE("flow: with q8 weights the shares still add to 1 and stay near the f32 run's", "[engine][flow]") {
  const std::string dir = kFixtures + "/engine/gpt2_lm_f32";
  const Transformer f32 = test::load_transformer(dir), q8 = test::load_transformer(dir, WeightPrecision::Q8);
  const std::vector<int32_t> ids = {2, 11, 7, 30, 5, 9, 3};
  const StackFlow a = information_flow(f32, ids, {}, {}), b = information_flow(q8, ids, {}, {});
  check_sums(b);
  const test::Mismatch m = test::worst(a.self.tokens, b.self.tokens);
  WARN("q8 vs f32 token shares: worst difference " << m.max_error);
  CHECK(m.max_error < 0.05);
}

TEST_CASE("flow: a decoder pass after cached positions is E_INPUT", "[engine][flow]") {
  const Seq2Seq model = load_seq2seq("seq2seq/bart_f32");
  const EncoderOutput encoder = model.encode({5, 6, 7});
  KvCache cache;
  model.decode({2}, encoder, cache);
  FlowRecorder recorder = decoder_flow_recorder(model, encoder, {});
  Hooks hooks;
  recorder.install(hooks);
  Seq2SeqRunOptions options;
  options.hooks = &hooks;
  test::expect_error([&] { model.decode({8}, encoder, cache, options); }, "E_INPUT", "whole pass from the first position");
}

// Not run by default (hidden tag): the flow's cost beside the pass it reads, on the bundled decoder.
TEST_CASE("flow: cost on the bundled decoder", "[.][flow-bench]") {
  const Transformer model = test::load_transformer(kFixtures + "/../../model-causal");
  for (int T : {32, 64, 128, 256}) {
    std::vector<int32_t> ids(T);
    for (int t = 0; t < T; ++t) ids[t] = (t * 37 + 11) % model.config().vocab_size;
    // CPU time (the machine is shared: wall time says more about the neighbours).
    auto time = [&](auto&& fn) {
      const std::clock_t start = std::clock();
      for (int r = 0; r < 5; ++r) fn();
      return 1000.0 * static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC / 5;
    };
    const double plain = time([&] { model.forward(ids, {}, {}, ForwardOptions{}); });
    const double flow = time([&] { information_flow(model, ids, {}, {}); });
    WARN("T=" << T << ": forward " << plain << " ms, forward + flow " << flow << " ms (CPU)");
  }
}
