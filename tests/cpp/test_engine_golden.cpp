// Golden tests: the engine against an independent float64 PyTorch reference
// (tests/fixtures/make_engine_fixtures.py) on random checkpoints of every supported family and
// storage dtype. Tolerances: attention probabilities 1e-4, hidden states / Q, K, V / value norms /
// MLM and LM logits 1e-3 (max absolute error). Decoders also: generation over the KV cache equals
// a full recompute (≤ 1e-5), and greedy generation equals the reference's greedy ids.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "config.h"
#include "transformer.h"
#include "safetensors.h"
#include "test_engine_support.h"
#include "test_fixture_models.h"
#include "weights.h"

using namespace attnscope;
using attnscope::test::check_close;
using attnscope::test::ints;

namespace {

const std::string kEngineFixtures = std::string(ATTNSCOPE_FIXTURES_DIR) + "/engine";


}  // namespace

TEST_CASE("engine golden: forward matches the float64 PyTorch reference", "[engine][golden]") {
  const auto models = test::fixture_models(kEngineFixtures);
  // The fixture script lists what it wrote in models.txt: fewer directories means a broken
  // fixture tree (a test that silently ran on less would pass), more an unlisted one.
  std::vector<std::string> listed = test::listed_names(kEngineFixtures + "/models.txt");
  std::sort(listed.begin(), listed.end());
  REQUIRE(models == listed);
  std::map<std::string, double> worst_by_output;

  for (const auto& model : models) {
    const std::string dir = kEngineFixtures + "/" + model;
    const auto inputs = nlohmann::json::parse(test::read_text(dir + "/inputs.json"));
    const ModelConfig config = parse_config(test::read_text(dir + "/config.json"));
    const auto model_bytes = test::read_bytes(dir + "/model.safetensors");
    const SafeTensors tensors(model_bytes.data(), model_bytes.size());
    const Transformer encoder(config, load_weights(config, tensors));
    const bool decoder = inputs["is_decoder"].get<bool>();
    REQUIRE(config.is_decoder() == decoder);
    REQUIRE(encoder.has_lm_head() == (decoder || inputs["has_mlm_head"].get<bool>()));

    for (const auto& c : inputs["cases"]) {
      const std::string name = model + "/" + c["name"].get<std::string>();
      {
        INFO("fixture " << name);
        ForwardOptions options;
        options.hidden_states = options.qkv = options.value_norms = options.trace = true;
        if (c.contains("head_mask"))  // Hugging Face's head_mask, (L, H)
          for (const auto& row : c["head_mask"]) for (float m : row) options.head_mask.push_back(m);
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
        if (encoder.has_lm_head())
          check(decoder ? "logits" : "mlm_logits", encoder.lm_logits(r.hidden_out.data(), r.tokens),
                {T, config.vocab_size}, {"token", "vocab"}, 1e-3);
        // The trace: every intermediate of the block (fields a family has), stacked over layers.
        const ForwardTrace& tr = r.trace;
        const int64_t F = config.intermediate_size;
        check("trace_embeddings_word", tr.embeddings.word, {T, C}, {"token", "channel"}, 1e-3);
        check("trace_embeddings_position", tr.embeddings.position, {T, C}, {"token", "channel"}, 1e-3);
        if (config.type_vocab_size > 0)
          check("trace_embeddings_token_type", tr.embeddings.token_type, {T, C}, {"token", "channel"}, 1e-3);
        else
          REQUIRE(tr.embeddings.token_type.empty());
        check("trace_embeddings_sum", tr.embeddings.sum, {T, C}, {"token", "channel"}, 1e-3);
        check("trace_embeddings_output", tr.embeddings.output, {T, C}, {"token", "channel"}, 1e-3);
        REQUIRE(tr.layers.size() == static_cast<size_t>(L));
        const std::pair<const char*, std::vector<float> LayerTrace::*> steps[] = {
            {"attention_input_norm", &LayerTrace::attention_input_norm}, {"attention_output", &LayerTrace::attention_output},
            {"attention_residual", &LayerTrace::attention_residual},     {"attention_norm", &LayerTrace::attention_norm},
            {"ffn_input_norm", &LayerTrace::ffn_input_norm},             {"ffn_pre_activation", &LayerTrace::ffn_pre_activation},
            {"ffn_intermediate", &LayerTrace::ffn_intermediate},         {"ffn_output", &LayerTrace::ffn_output},
            {"ffn_residual", &LayerTrace::ffn_residual},                 {"output", &LayerTrace::output}};
        for (const auto& [step, field] : steps) {
          std::vector<float> stacked;
          for (const LayerTrace& layer : tr.layers) stacked.insert(stacked.end(), (layer.*field).begin(), (layer.*field).end());
          const std::string name = std::string("trace_") + step;
          if (!expected.has(name)) {  // a step the other family does not have
            REQUIRE(stacked.empty());
            continue;
          }
          const bool ffn_hidden = std::string(step) == "ffn_pre_activation" || std::string(step) == "ffn_intermediate";
          const int64_t width = ffn_hidden ? F : C;
          check(name, stacked, {L, T, width}, {"layer", "token", "channel"}, 1e-3);
        }
        if (decoder) {
          check("trace_final_norm", tr.final_norm, {T, C}, {"token", "channel"}, 1e-3);
        } else {  // the encoder's layer outputs are its hidden states, exactly
          for (int64_t l = 0; l < L; ++l)
            REQUIRE(std::equal(tr.layers[l].output.begin(), tr.layers[l].output.end(),
                               r.hidden_states.begin() + (l + 1) * T * C));
        }
        if (decoder)  // the causal mask: exactly zero above the diagonal
          for (size_t lh = 0; lh < static_cast<size_t>(L * H); ++lh)
            for (int64_t i = 0; i < T; ++i)
              for (int64_t j = i + 1; j < T; ++j) REQUIRE(r.attentions[(lh * T + i) * T + j] == 0.0f);
      }
    }
  }
  std::cout << "engine golden: worst absolute error per output over all fixtures:";
  for (const auto& [what, e] : worst_by_output) std::cout << " " << what << "=" << e;
  std::cout << "\n";
}

namespace {

Transformer load_fixture(const std::string& model) {
  const std::string dir = kEngineFixtures + "/" + model;
  const ModelConfig config = parse_config(test::read_text(dir + "/config.json"));
  const auto bytes = test::read_bytes(dir + "/model.safetensors");
  const SafeTensors tensors(bytes.data(), bytes.size());
  return Transformer(config, load_weights(config, tensors));
}

size_t argmax(const float* v, size_t n) { return static_cast<size_t>(std::max_element(v, v + n) - v); }

}  // namespace

TEST_CASE("engine golden: decoder steps over the KV cache equal a full recompute", "[engine][golden][decoder]") {
  for (const std::string model : {"gpt2_lm_f32", "gpt2_lm_f16", "gpt2_untied_f32"}) {
    INFO("fixture " << model);
    const Transformer decoder = load_fixture(model);
    const auto inputs = nlohmann::json::parse(test::read_text(kEngineFixtures + "/" + model + "/inputs.json"));
    const std::vector<int32_t> sequence = ints(inputs["cases"][2]["ids"]);  // 33 tokens
    const int V = decoder.config().vocab_size, L = decoder.config().num_layers, H = decoder.config().num_heads;
    const int prompt = 5;
    const ForwardResult full = decoder.forward(sequence, {}, {}, ForwardOptions{});
    const std::vector<float> full_logits = decoder.lm_logits(full.hidden_out.data(), full.tokens);
    const int T = full.tokens;

    KvCache cache;
    Activations activations;
    ForwardResult step;
    // Attention probabilities are in [0, 1]: absolute difference. Logits are compared relative to
    // the largest logit magnitude of the full pass (they reach ~10 here, where float32 rounding of
    // a differently blocked native GEMM is already ~1e-6).
    double worst = 0, worst_logit = 0, logit_scale = 0;
    for (float l : full_logits) logit_scale = std::max(logit_scale, static_cast<double>(std::fabs(l)));
    // The prompt at once, then one token per step (the cache grows past its first capacity).
    for (int first = 0; first < T;) {
      const int n = first == 0 ? prompt : 1;
      const std::vector<int32_t> ids(sequence.begin() + first, sequence.begin() + first + n);
      decoder.extend(ids, cache, step, activations);
      REQUIRE(cache.length == first + n);
      REQUIRE(step.tokens == n);
      REQUIRE(step.keys == first + n);
      const std::vector<float> logits = decoder.lm_logits(step.hidden_out.data(), n);
      for (int i = 0; i < n; ++i) {
        const int position = first + i;
        for (int lh = 0; lh < L * H; ++lh)
          for (int j = 0; j < T; ++j) {  // the step's row, zero-extended to T, against the full row
            const float got = j < step.keys ? step.attentions[(static_cast<size_t>(lh) * n + i) * step.keys + j] : 0.0f;
            const float want = full.attentions[(static_cast<size_t>(lh) * T + position) * T + j];
            worst = std::max(worst, static_cast<double>(std::fabs(got - want)));
          }
        for (int v = 0; v < V; ++v)
          worst_logit = std::max(worst_logit, std::fabs(logits[static_cast<size_t>(i) * V + v] -
                                                        full_logits[static_cast<size_t>(position) * V + v]) /
                                                  logit_scale);
      }
      first += n;
    }
    INFO("worst attention difference " << worst << ", worst logit difference " << worst_logit
                                         << " of the largest logit " << logit_scale);
    CHECK(worst <= 1e-5);
    CHECK(worst_logit <= 1e-5);

    // Past n_positions: a clear error, and the cache is left as it was.
    KvCache full_cache;
    decoder.extend(std::vector<int32_t>(decoder.config().max_position_embeddings, 1), full_cache, step, activations);
    CHECK_THROWS_WITH(decoder.extend({1}, full_cache, step, activations),
                      Catch::Contains("more than the model's") && Catch::Contains("n_positions"));
    CHECK(full_cache.length == decoder.config().max_position_embeddings);
  }
}

TEST_CASE("engine golden: greedy generation equals the reference's greedy ids", "[engine][golden][decoder]") {
  for (const std::string model : {"gpt2_lm_f32", "gpt2_lm_bf16", "gpt2_untied_f32"}) {
    INFO("fixture " << model);
    const Transformer decoder = load_fixture(model);
    const auto greedy = nlohmann::json::parse(test::read_text(kEngineFixtures + "/" + model + "/inputs.json"))["greedy"];
    std::vector<int32_t> ids = ints(greedy["prompt"]);
    const std::vector<int32_t> expected = ints(greedy["ids"]);
    REQUIRE(expected.size() > ids.size());
    KvCache cache;
    Activations activations;
    ForwardResult step;
    std::vector<int32_t> next = ids;
    const int V = decoder.config().vocab_size;
    while (ids.size() < expected.size()) {
      decoder.extend(next, cache, step, activations);
      const std::vector<float> logits = decoder.lm_logits(step.hidden_out.data() + (step.tokens - 1) * step.hidden, 1);
      ids.push_back(static_cast<int32_t>(argmax(logits.data(), V)));
      next = {ids.back()};
    }
    CHECK(ids == expected);
  }
}

TEST_CASE("engine golden: optional outputs are empty unless requested", "[engine][golden]") {
  const std::string dir = kEngineFixtures + "/minilm_relu_f32";
  const ModelConfig config = parse_config(test::read_text(dir + "/config.json"));
  const auto bytes = test::read_bytes(dir + "/model.safetensors");
  const SafeTensors tensors(bytes.data(), bytes.size());
  const Transformer encoder(config, load_weights(config, tensors));
  ForwardOptions options;
  options.attentions = false;
  const ForwardResult bare = encoder.forward({1, 2, 3}, {}, {}, options);
  CHECK(bare.attentions.empty());
  CHECK(bare.hidden_states.empty());
  CHECK(bare.q.empty());
  CHECK(bare.value_norms.empty());
  CHECK(bare.trace.layers.empty());
  CHECK(bare.trace.embeddings.word.empty());
  // Same hidden output whether or not the probabilities are kept (they go to a scratch buffer).
  const ForwardResult full = encoder.forward({1, 2, 3}, {0, 0, 0}, {1, 1, 1}, ForwardOptions{});
  CHECK(full.attentions.size() == static_cast<size_t>(3 * 3 * 3 * 3));
  CHECK(bare.hidden_out == full.hidden_out);
}

// The trace's extra work (the FFN's first GEMM run again without its fused activation, to keep the
// pre-activation) must not change a single output bit, and its two halves must be one activation
// apart: ffn_intermediate = act(ffn_pre_activation), for every activation the fixtures use.
TEST_CASE("engine golden: tracing changes no output; ffn_intermediate is act(ffn_pre_activation)", "[engine][golden]") {
  for (const std::string model : {"bert_mlm_f32", "bert_gamma_beta_f32", "minilm_relu_f32", "distilbert_mlm_f16",
                                  "gpt2_lm_f32"}) {
    INFO("fixture " << model);
    const Transformer transformer = load_fixture(model);
    const ModelConfig& config = transformer.config();
    const auto inputs = nlohmann::json::parse(test::read_text(kEngineFixtures + "/" + model + "/inputs.json"));
    const auto& c = inputs["cases"][2];  // t33_padded: 33 tokens, padded keys
    ForwardOptions plain;
    plain.hidden_states = plain.qkv = plain.value_norms = true;
    ForwardOptions traced = plain;
    traced.trace = true;
    const auto ids = ints(c["ids"]), types = ints(c["token_types"]), mask = ints(c["attention_mask"]);
    const ForwardResult off = transformer.forward(ids, types, mask, plain);
    const ForwardResult on = transformer.forward(ids, types, mask, traced);
    CHECK(off.trace.layers.empty());
    CHECK(on.attentions == off.attentions);  // bit for bit
    CHECK(on.hidden_out == off.hidden_out);
    CHECK(on.hidden_states == off.hidden_states);
    CHECK(on.q == off.q);
    CHECK(on.k == off.k);
    CHECK(on.v == off.v);
    CHECK(on.value_norms == off.value_norms);

    const kernels::Activation act = activation_for(config.hidden_act);
    const size_t TF = static_cast<size_t>(on.tokens) * config.intermediate_size;
    double worst = 0;
    for (const LayerTrace& layer : on.trace.layers) {
      REQUIRE(layer.ffn_pre_activation.size() == TF);
      REQUIRE(layer.ffn_intermediate.size() == TF);
      std::vector<float> activated = layer.ffn_pre_activation;
      kernels::activation_f32_naive(activated.data(), activated.size(), act);  // scalar <cmath> reference
      for (size_t i = 0; i < TF; ++i)
        worst = std::max(worst, static_cast<double>(std::fabs(activated[i] - layer.ffn_intermediate[i])));
    }
    INFO("activation " << config.hidden_act << ": worst |act(pre) - intermediate| " << worst);
    CHECK(worst <= 1e-6);  // the fused kernel's GELU (Eigen's vectorised tanh) vs <cmath>: a few ulp
  }
}
