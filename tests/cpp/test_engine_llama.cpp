// The Llama family (llama, mistral, qwen2, qwen3) against the independent float64 PyTorch reference
// of tests/fixtures/make_llama_fixtures.py: attentions ≤ 1e-4, hidden states / Q, K, V / value
// norms / logits ≤ 1e-3; the KV cache (one K/V per key/value head) equal to a full recompute;
// greedy ids equal the reference's; the f16 weight precision and the streaming loader; and every
// config key the engine refuses, by name.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "config.h"
#include "safetensors.h"
#include "test_engine_support.h"
#include "test_fixture_models.h"
#include "transformer.h"
#include "weight_stream.h"
#include "weights.h"

using namespace attnscope;
using attnscope::test::check_close;
using attnscope::test::expect_error;
using attnscope::test::ints;

namespace {

const std::string kLlamaFixtures = std::string(ATTNSCOPE_FIXTURES_DIR) + "/llama";

std::vector<std::string> llama_models() { return test::fixture_models(kLlamaFixtures); }

Transformer load(const std::string& model, WeightPrecision precision = WeightPrecision::F32,
                 const std::string& config_text = "") {
  return test::load_transformer(kLlamaFixtures + "/" + model, precision, config_text);
}

nlohmann::json inputs_of(const std::string& model) {
  return nlohmann::json::parse(test::read_text(kLlamaFixtures + "/" + model + "/inputs.json"));
}

size_t argmax(const float* v, size_t n) { return static_cast<size_t>(std::max_element(v, v + n) - v); }

// Every case of `model` against the reference; returns the worst error per output.
void check_model(const std::string& model, const Transformer& transformer, std::map<std::string, double>& worst) {
  const ModelConfig& config = transformer.config();
  const nlohmann::json inputs = inputs_of(model);
  for (const auto& c : inputs["cases"]) {
    const std::string name = model + "/" + c["name"].get<std::string>();
    INFO("fixture " << name);
    ForwardOptions options;
    options.hidden_states = options.qkv = options.value_norms = true;
    const ForwardResult r = transformer.forward(ints(c["ids"]), {}, ints(c["attention_mask"]), options);
    const auto expected_bytes = test::read_bytes(kLlamaFixtures + "/" + model + "/" + c["expected"].get<std::string>());
    const SafeTensors expected(expected_bytes.data(), expected_bytes.size());
    const int64_t L = r.layers, H = r.heads, T = r.tokens, C = r.hidden, dh = r.head_dim;
    REQUIRE(H == config.num_heads);
    REQUIRE(dh == config.head_dim());
    auto check = [&](const std::string& what, const std::vector<float>& got, const std::vector<int64_t>& shape,
                     const std::vector<std::string>& axes, double tol) {
      const double e = check_close(name + " " + what, expected.to_f32(what, shape), got, shape, axes, tol);
      worst[what] = std::max(worst[what], e);
    };
    check("attentions", r.attentions, {L, H, T, T}, {"layer", "head", "row", "col"}, 1e-4);
    check("hidden_out", r.hidden_out, {T, C}, {"token", "channel"}, 1e-3);
    check("hidden_states", r.hidden_states, {L + 1, T, C}, {"state", "token", "channel"}, 1e-3);
    check("q", r.q, {L, H, T, dh}, {"layer", "head", "token", "dim"}, 1e-3);
    check("k", r.k, {L, H, T, dh}, {"layer", "head", "token", "dim"}, 1e-3);
    check("v", r.v, {L, H, T, dh}, {"layer", "head", "token", "dim"}, 1e-3);
    check("value_norms", r.value_norms, {L, H, T}, {"layer", "head", "token"}, 1e-3);
    check("logits", transformer.lm_logits(r.hidden_out.data(), r.tokens), {T, config.vocab_size}, {"token", "vocab"},
          1e-3);
    for (size_t lh = 0; lh < static_cast<size_t>(L * H); ++lh)  // causal: exactly zero above the diagonal
      for (int64_t i = 0; i < T; ++i)
        for (int64_t j = i + 1; j < T; ++j) REQUIRE(r.attentions[(lh * T + i) * T + j] == 0.0f);
  }
}

}  // namespace

TEST_CASE("llama golden: forward matches the float64 PyTorch reference", "[engine][golden][llama]") {
  const auto models = llama_models();
  REQUIRE(models.size() >= 5);  // fewer: a broken fixture tree, and the test would pass on nothing
  std::map<std::string, double> worst;
  for (const auto& model : models) check_model(model, load(model), worst);
  std::cout << "llama golden: worst absolute error per output over all fixtures:";
  for (const auto& [what, e] : worst) std::cout << " " << what << "=" << e;
  std::cout << "\n";
}

TEST_CASE("llama golden: f16 weight precision and the streaming loader", "[engine][golden][llama]") {
  // F16 and BF16 files loaded with f16 matrices: their values are f16 already (BF16's 8-bit
  // mantissas fit f16's 11 at these magnitudes), so the reference holds to the same tolerances.
  std::map<std::string, double> worst;
  check_model("qwen2_bias_f16", load("qwen2_bias_f16", WeightPrecision::F16), worst);
  check_model("llama_gqa4_linear_bf16", load("llama_gqa4_linear_bf16", WeightPrecision::F16), worst);
  // Streaming: the file fed in small pieces, the matrices converted as they pass, the rotary
  // inv_freq buffers skipped (weight_is_used), and the same outputs bit for bit.
  const std::string dir = kLlamaFixtures + "/mistral_mqa_f32";
  const ModelConfig config = parse_config(test::read_text(dir + "/config.json"));
  const auto bytes = test::read_bytes(dir + "/model.safetensors");
  WeightStream stream(config, bytes.size(), WeightPrecision::F16);
  for (size_t at = 0; at < bytes.size(); at += 777) stream.feed(bytes.data() + at, std::min<size_t>(777, bytes.size() - at));
  stream.finish();
  const Transformer streamed(config, load_weights(config, stream, WeightPrecision::F16));
  const Transformer whole = load("mistral_mqa_f32", WeightPrecision::F16);
  const std::vector<int32_t> ids = {3, 1, 4, 1, 5, 9, 2, 6};
  const ForwardResult a = streamed.forward(ids, {}, {}, ForwardOptions{});
  const ForwardResult b = whole.forward(ids, {}, {}, ForwardOptions{});
  CHECK(a.attentions == b.attentions);
  CHECK(a.hidden_out == b.hidden_out);
  CHECK_FALSE(weight_is_used(config, "layers.0.self_attn.rotary_emb.inv_freq"));
  CHECK(weight_is_matrix(config, "layers.1.mlp.gate_proj.weight", 2));
  CHECK(weight_is_matrix(config, "model.layers.1.self_attn.k_proj.weight", 2));
  CHECK(weight_is_matrix(config, "lm_head.weight", 2));
  CHECK_FALSE(weight_is_matrix(config, "layers.1.input_layernorm.weight", 1));
}

TEST_CASE("llama golden: steps over the KV cache equal a full recompute", "[engine][golden][llama][decoder]") {
  for (const std::string model : {"llama3_gqa2_f32", "llama_gqa4_linear_bf16", "qwen2_bias_f16", "qwen3_qknorm_f32",
                                  "mistral_mqa_f32"}) {
    INFO("fixture " << model);
    const Transformer decoder = load(model);
    const ModelConfig& cfg = decoder.config();
    const std::vector<int32_t> ids = ints(inputs_of(model)["cases"][3]["ids"]);  // max positions
    const int T = static_cast<int>(ids.size()), L = cfg.num_layers, H = cfg.num_heads, V = cfg.vocab_size;
    const ForwardResult full = decoder.forward(ids, {}, {}, ForwardOptions{});
    const std::vector<float> full_logits = decoder.lm_logits(full.hidden_out.data(), T);
    // A prompt of 5, then steps of 1, 3, 1, 1 and 7 positions, over and over up to the end.
    KvCache cache;
    Activations activations;
    ForwardResult step;
    double worst = 0, worst_logit = 0;
    int first = 0;
    const int sizes[] = {5, 1, 3, 1, 1, 7};
    for (int s = 0; first < T; ++s) {
      const int n = std::min(sizes[s % 6], T - first);
      decoder.extend(std::vector<int32_t>(ids.begin() + first, ids.begin() + first + n), cache, step, activations);
      REQUIRE(step.keys == first + n);
      const std::vector<float> logits = decoder.lm_logits(step.hidden_out.data(), n);
      for (int i = 0; i < n; ++i) {
        const int position = first + i;
        for (int lh = 0; lh < L * H; ++lh)
          for (int j = 0; j < T; ++j) {
            const float got = j < step.keys ? step.attentions[(static_cast<size_t>(lh) * n + i) * step.keys + j] : 0.0f;
            worst = std::max(worst, static_cast<double>(std::fabs(got - full.attentions[(static_cast<size_t>(lh) * T + position) * T + j])));
          }
        for (int v = 0; v < V; ++v)
          worst_logit = std::max(worst_logit, static_cast<double>(std::fabs(
                                                  logits[static_cast<size_t>(i) * V + v] -
                                                  full_logits[static_cast<size_t>(position) * V + v])));
      }
      first += n;
    }
    // The cache holds one K and one V per key/value head: KV·dh per position, not C.
    CHECK(cache.k.size() == static_cast<size_t>(L) * cache.capacity * cfg.kv_width());
    INFO("worst attention difference " << worst << ", worst logit difference " << worst_logit);
    CHECK(worst <= 1e-5);
    CHECK(worst_logit <= 1e-4);
    REQUIRE(cache.length == T);  // the fixture's longest case is the model's every position
    CHECK_THROWS_WITH(decoder.extend({1}, cache, step, activations), Catch::Contains("more than the model's"));
    CHECK(cache.length == T);
  }
}

TEST_CASE("llama golden: greedy generation equals the reference's greedy ids", "[engine][golden][llama][decoder]") {
  for (const auto& model : llama_models()) {
    INFO("fixture " << model);
    const Transformer decoder = load(model);
    const auto greedy = inputs_of(model)["greedy"];
    std::vector<int32_t> ids = ints(greedy["prompt"]), next = ids;
    const std::vector<int32_t> expected = ints(greedy["ids"]);
    REQUIRE(expected.size() > ids.size());
    KvCache cache;
    Activations activations;
    ForwardResult step;
    while (ids.size() < expected.size()) {
      decoder.extend(next, cache, step, activations);
      const std::vector<float> logits = decoder.lm_logits(step.hidden_out.data() + (step.tokens - 1) * step.hidden, 1);
      ids.push_back(static_cast<int32_t>(argmax(logits.data(), decoder.config().vocab_size)));
      next = {ids.back()};
    }
    CHECK(ids == expected);
  }
}

TEST_CASE("llama config: keys read as transformers reads them", "[engine][config][llama]") {
  const std::string base = R"({"model_type": "llama", "vocab_size": 10, "hidden_size": 8, "num_hidden_layers": 1,
                                "num_attention_heads": 4, "intermediate_size": 8)";
  ModelConfig c = parse_config(base + "}");
  CHECK(c.family == Family::Llama);
  CHECK(c.is_decoder());
  CHECK(c.kv_heads() == 4);           // num_key_value_heads defaults to num_attention_heads
  CHECK(c.head_dim() == 2);           // head_dim defaults to hidden / heads
  CHECK_FALSE(c.tie_word_embeddings); // LlamaConfig: untied by default
  CHECK(c.rope.theta == 10000.0);
  CHECK(c.layer_norm_eps == 1e-6);
  CHECK(c.hidden_act == "silu");
  CHECK(c.max_position_embeddings == 2048);
  c = parse_config(base + R"(, "num_key_value_heads": 2, "head_dim": 6, "eos_token_id": [7, 8, 9],
                             "rope_scaling": {"type": "linear", "factor": 4}})");
  CHECK(c.kv_heads() == 2);
  CHECK(c.head_dim() == 6);
  CHECK(c.q_width() == 24);
  CHECK(c.kv_width() == 12);
  CHECK(c.kv_head_of(0) == 0);
  CHECK(c.kv_head_of(1) == 0);
  CHECK(c.kv_head_of(2) == 1);
  CHECK(c.eos_token_id == 7);
  CHECK(c.rope.scaling == RopeConfig::Scaling::Linear);
  CHECK(c.rope.factor == 4.0);
  CHECK(parse_config(base + R"(, "rope_scaling": {"rope_type": "default"}})").rope.scaling == RopeConfig::Scaling::None);
  CHECK(parse_config(base + R"(, "model_type": "qwen3"})").head_dim() == 128);  // Qwen3Config's default
  const ModelConfig qwen2 = parse_config(base + R"(, "model_type": "qwen2", "attention_bias": false})");
  CHECK(qwen2.qkv_bias);  // Qwen2 always has q/k/v biases
  CHECK_FALSE(qwen2.o_bias);
  const ModelConfig mistral = parse_config(base + R"(, "model_type": "mistral", "attention_bias": true, "mlp_bias": true})");
  CHECK_FALSE(mistral.qkv_bias);  // MistralAttention has no biases whatever the config says
  CHECK_FALSE(mistral.mlp_bias);
  CHECK(mistral.sliding_window == 4096);  // MistralConfig's default window
  CHECK(parse_config(base + R"(, "model_type": "mistral", "sliding_window": null})").sliding_window == 0);
  CHECK(parse_config(base + R"(, "model_type": "qwen2", "sliding_window": 4})").sliding_window == 0);  // off
  CHECK(parse_config(base + R"(, "model_type": "qwen2", "use_sliding_window": true, "sliding_window": 4,
                                 "max_window_layers": 0})").sliding_window == 4);
}

TEST_CASE("llama config: keys the engine does not implement are refused by name", "[engine][config][llama]") {
  const std::string base = R"({"model_type": "llama", "vocab_size": 10, "hidden_size": 8, "num_hidden_layers": 1,
                                "num_attention_heads": 4, "intermediate_size": 8, )";
  const std::pair<const char*, const char*> refused[] = {
      {R"("rope_scaling": {"rope_type": "yarn", "factor": 4})", "yarn"},
      {R"("rope_scaling": {"type": "dynamic", "factor": 2})", "dynamic"},
      {R"("rope_scaling": {"rope_type": "linear"})", "factor"},
      {R"("rope_scaling": {"rope_type": "llama3", "factor": 8, "low_freq_factor": 1})", "high_freq_factor"},
      {R"("rope_scaling": {"factor": 8})", "rope_type"},
      {R"("rope_scaling": 3)", "rope_scaling"},
      {R"("pretraining_tp": 2)", "pretraining_tp"},
      {R"("partial_rotary_factor": 0.5)", "partial_rotary_factor"},
      {R"("num_key_value_heads": 3)", "num_key_value_heads"},
      {R"("head_dim": 3)", "head_dim"},
      {R"("head_dim": 0)", "head_dim"},
      {R"("num_attention_heads": 16, "num_key_value_heads": 16)", "head_dim"},  // 8 / 16 = 0 wide heads
      {R"("head_dim": 1073741824)", "too large"},
      {R"("num_key_value_heads": 8)", "num_key_value_heads"},  // more K/V heads than query heads
      {R"("hidden_act": "gelu_accurate")", "gelu_accurate"},
      {R"("rms_norm_eps": 0)", "rms_norm_eps"},
      {R"("rope_theta": "big")", "rope_theta"},
      {R"("layer_types": ["full_attention", "chunked_attention"])", "layer_types"},
      {R"("attention_bias": 1)", "attention_bias"},
  };
  for (const auto& entry : refused) {
    const std::string text = base + entry.first + "}";
    INFO(text);
    expect_error([&] { parse_config(text); }, "E_CONFIG", entry.second);
  }
}

TEST_CASE("llama bad input: the sliding window, lengths and ids", "[engine][llama]") {
  // A Mistral whose window (16) is shorter than its positions: a run past it is refused, naming
  // sliding_window (the banded mask is not implemented), and inside it runs.
  std::string text = test::read_text(kLlamaFixtures + "/mistral_mqa_f32/config.json");
  auto config = nlohmann::json::parse(text);
  config["sliding_window"] = 16;
  const Transformer windowed = load("mistral_mqa_f32", WeightPrecision::F32, config.dump());
  CHECK(windowed.config().max_tokens() == 16);
  expect_error([&] { windowed.forward(std::vector<int32_t>(17, 1), {}, {}, ForwardOptions{}); }, "E_INPUT",
               "sliding_window");
  CHECK(windowed.forward(std::vector<int32_t>(16, 1), {}, {}, ForwardOptions{}).tokens == 16);
  KvCache cache;
  Activations activations;
  ForwardResult step;
  windowed.extend(std::vector<int32_t>(16, 1), cache, step, activations);
  expect_error([&] { windowed.extend({1}, cache, step, activations); }, "E_INPUT", "sliding_window");
  CHECK(cache.length == 16);

  const Transformer qwen3 = load("qwen3_qknorm_f32");
  expect_error([&] { qwen3.forward({1, 45}, {}, {}, ForwardOptions{}); }, "E_INPUT", "out of vocab");
  expect_error([&] { qwen3.forward({}, {}, {}, ForwardOptions{}); }, "E_INPUT", "no tokens");
  expect_error([&] { qwen3.forward(std::vector<int32_t>(41, 1), {}, {}, ForwardOptions{}); }, "E_INPUT",
               "max_position_embeddings");
  expect_error([&] { qwen3.forward({1, 2}, {1, 0}, {}, ForwardOptions{}); }, "E_INPUT", "token type");

  // A checkpoint missing what the config says it has: E_WEIGHTS naming the tensor.
  const std::string dir = kLlamaFixtures + "/qwen3_qknorm_f32";
  auto untied = nlohmann::json::parse(test::read_text(dir + "/config.json"));
  untied["model_type"] = "qwen2";  // wants q/k/v biases the Qwen3 file does not have
  const ModelConfig wrong = parse_config(untied.dump());
  const auto bytes = test::read_bytes(dir + "/model.safetensors");
  const SafeTensors tensors(bytes.data(), bytes.size());
  expect_error([&] { load_weights(wrong, tensors); }, "E_WEIGHTS", "self_attn.q_proj.bias");
  untied["model_type"] = "qwen3";
  untied["num_key_value_heads"] = 4;
  const ModelConfig more_heads = parse_config(untied.dump());
  expect_error([&] { load_weights(more_heads, tensors); }, "E_WEIGHTS", "k_proj.weight");
}

TEST_CASE("llama config: published checkpoints' configs parse as transformers reads them", "[engine][config][llama]") {
  // Key sets as SmolLM2-135M, Llama-3.2-1B, Qwen2.5-0.5B, Qwen3-0.6B and Mistral-7B-v0.1 publish them
  // (keys transformers ignores, such as nanotron's rope_interleaved or torch_dtype, included).
  const ModelConfig smol = parse_config(R"({"architectures": ["LlamaForCausalLM"], "attention_bias": false,
      "attention_dropout": 0.0, "bos_token_id": 0, "eos_token_id": 0, "hidden_act": "silu", "hidden_size": 576,
      "initializer_range": 0.041666666666666664, "intermediate_size": 1536, "is_llama_config": true,
      "max_position_embeddings": 8192, "model_type": "llama", "num_attention_heads": 9, "num_hidden_layers": 30,
      "num_key_value_heads": 3, "pretraining_tp": 1, "rms_norm_eps": 1e-05, "rope_interleaved": false,
      "rope_scaling": null, "rope_theta": 100000, "tie_word_embeddings": true, "torch_dtype": "bfloat16",
      "transformers_version": "4.40.1", "use_cache": true, "vocab_size": 49152})");
  CHECK(smol.head_dim() == 64);
  CHECK(smol.kv_width() == 192);
  CHECK(smol.tie_word_embeddings);
  CHECK(smol.rope.theta == 100000.0);
  CHECK(smol.max_tokens() == 8192);
  const ModelConfig llama32 = parse_config(R"({"architectures": ["LlamaForCausalLM"], "attention_bias": false,
      "attention_dropout": 0.0, "bos_token_id": 128000, "eos_token_id": 128001, "head_dim": 64, "hidden_act": "silu",
      "hidden_size": 2048, "initializer_range": 0.02, "intermediate_size": 8192, "max_position_embeddings": 131072,
      "mlp_bias": false, "model_type": "llama", "num_attention_heads": 32, "num_hidden_layers": 16,
      "num_key_value_heads": 8, "pretraining_tp": 1, "rms_norm_eps": 1e-05,
      "rope_scaling": {"factor": 32.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                       "original_max_position_embeddings": 8192, "rope_type": "llama3"},
      "rope_theta": 500000.0, "tie_word_embeddings": true, "torch_dtype": "bfloat16", "use_cache": true,
      "vocab_size": 128256})");
  CHECK(llama32.rope.scaling == RopeConfig::Scaling::Llama3);
  CHECK(llama32.rope.factor == 32.0);
  CHECK(llama32.kv_head_of(31) == 7);
  const ModelConfig qwen25 = parse_config(R"({"architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0,
      "bos_token_id": 151643, "eos_token_id": 151643, "hidden_act": "silu", "hidden_size": 896,
      "initializer_range": 0.02, "intermediate_size": 4864, "max_position_embeddings": 32768, "max_window_layers": 24,
      "model_type": "qwen2", "num_attention_heads": 14, "num_hidden_layers": 24, "num_key_value_heads": 2,
      "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "sliding_window": 32768, "tie_word_embeddings": true,
      "torch_dtype": "bfloat16", "use_cache": true, "use_sliding_window": false, "vocab_size": 151936})");
  CHECK(qwen25.qkv_bias);
  CHECK(qwen25.sliding_window == 0);
  CHECK(qwen25.head_dim() == 64);
  const ModelConfig qwen3 = parse_config(R"({"architectures": ["Qwen3ForCausalLM"], "attention_bias": false,
      "attention_dropout": 0.0, "bos_token_id": 151643, "eos_token_id": 151645, "head_dim": 128, "hidden_act": "silu",
      "hidden_size": 1024, "initializer_range": 0.02, "intermediate_size": 3072, "max_position_embeddings": 40960,
      "max_window_layers": 28, "model_type": "qwen3", "num_attention_heads": 16, "num_hidden_layers": 28,
      "num_key_value_heads": 8, "rms_norm_eps": 1e-06, "rope_scaling": null, "rope_theta": 1000000,
      "sliding_window": null, "tie_word_embeddings": true, "torch_dtype": "bfloat16", "use_cache": true,
      "use_sliding_window": false, "vocab_size": 151936})");
  CHECK(qwen3.qk_norm);
  CHECK(qwen3.q_width() == 2048);  // 16 × 128 ≠ hidden 1024
  CHECK_FALSE(qwen3.qkv_bias);
  const ModelConfig mistral = parse_config(R"({"architectures": ["MistralForCausalLM"], "bos_token_id": 1,
      "eos_token_id": 2, "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02,
      "intermediate_size": 14336, "max_position_embeddings": 32768, "model_type": "mistral",
      "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8, "rms_norm_eps": 1e-05,
      "rope_theta": 10000.0, "sliding_window": 4096, "tie_word_embeddings": false, "torch_dtype": "bfloat16",
      "use_cache": true, "vocab_size": 32000})");
  CHECK(mistral.sliding_window == 4096);
  CHECK(mistral.max_tokens() == 4096);  // runs stay inside the window
  CHECK(mistral.position_limit_key() == "sliding_window");
}
