// The Llama family's trace (every step of every layer: RMSNorm, q/k/v projections, Qwen3's head
// norms, the rotation, grouped-query attention's context, o_proj, residuals, SwiGLU's gate, up and
// product, down) and its direct logit attribution (the RMSNorm reading of attribution.h) against
// the float64 PyTorch reference of tests/fixtures/make_llama_trace_fixtures.py: each traced tensor
// within 1e-4 of its largest reference value, each attribution part within 1e-4 of the logit's
// scale, and tracing changing nothing in the run's outputs.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "attribution.h"
#include "config.h"
#include "safetensors.h"
#include "test_engine_support.h"
#include "test_fixture_models.h"
#include "transformer.h"
#include "weights.h"

namespace fs = std::filesystem;
using namespace attnscope;

namespace {

const std::string kLlama = std::string(ATTNSCOPE_FIXTURES_DIR) + "/llama";
const char* const kModels[] = {"llama3_gqa2_f32", "llama_gqa4_linear_bf16", "mistral_mqa_f32", "qwen2_bias_f16",
                               "qwen3_qknorm_f32"};

Transformer load(const std::string& model) { return test::load_transformer(kLlama + "/" + model); }

using test::ints;

// max |got − want| / max |want| (0 for two empty tensors); requires equal sizes.
double relative_error(const std::string& what, const std::vector<float>& want, const std::vector<float>& got) {
  INFO(what << ": " << got.size() << " values traced, " << want.size() << " in the reference");
  REQUIRE(got.size() == want.size());
  double scale = 0, err = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    scale = std::max(scale, std::fabs(static_cast<double>(want[i])));
    err = std::max(err, std::fabs(static_cast<double>(got[i]) - want[i]));
    REQUIRE(std::isfinite(got[i]));
  }
  return want.empty() ? 0 : err / scale;
}

}  // namespace

TEST_CASE("llama trace: every step of every layer matches the float64 PyTorch reference", "[engine][llama][trace]") {
  for (const std::string model : kModels) {
    INFO("model " << model);
    const Transformer t = load(model);
    const ModelConfig& cfg = t.config();
    const auto fixture = nlohmann::json::parse(test::read_text(kLlama + "/" + model + "/attribution_t7.json"));
    const std::vector<int32_t> ids = ints(fixture["ids"]), mask = ints(fixture["attention_mask"]);
    ForwardOptions options;
    options.trace = options.hidden_states = true;
    const ForwardResult r = t.forward(ids, {}, mask, options);
    const auto bytes = test::read_bytes(kLlama + "/" + model + "/trace_t7.safetensors");
    const SafeTensors want(bytes.data(), bytes.size());
    const int64_t T = static_cast<int64_t>(ids.size()), C = cfg.hidden_size, F = cfg.intermediate_size;
    const int64_t Q = cfg.q_width(), KV = cfg.kv_width();
    double worst = 0;
    int checked = 0;
    auto check = [&](const std::string& name, const std::vector<float>& got, std::vector<int64_t> shape) {
      const double e = relative_error(name, want.to_f32(name, shape), got);
      INFO(name << " relative error " << e);
      CHECK(e <= 1e-4);
      worst = std::max(worst, e);
      ++checked;
    };
    const ForwardTrace& tr = r.trace;
    check("embeddings_word", tr.embeddings.word, {T, C});
    check("embeddings_output", tr.embeddings.output, {T, C});
    CHECK(tr.embeddings.position.empty());  // no position table: positions enter as the rotation
    CHECK(tr.embeddings.sum == tr.embeddings.word);
    REQUIRE(tr.layers.size() == static_cast<size_t>(cfg.num_layers));
    for (int l = 0; l < cfg.num_layers; ++l) {
      const LayerTrace& s = tr.layers[l];
      const std::string p = "layers." + std::to_string(l) + ".";
      check(p + "attention_input_norm", s.attention_input_norm, {T, C});
      check(p + "q_projection", s.q_projection, {T, Q});
      check(p + "k_projection", s.k_projection, {T, KV});
      check(p + "v_projection", s.v_projection, {T, KV});
      if (cfg.qk_norm) {
        check(p + "q_head_norm", s.q_head_norm, {T, Q});
        check(p + "k_head_norm", s.k_head_norm, {T, KV});
      } else {
        CHECK(s.q_head_norm.empty());
        CHECK(s.k_head_norm.empty());
      }
      check(p + "q_rotated", s.q_rotated, {T, Q});
      check(p + "k_rotated", s.k_rotated, {T, KV});
      check(p + "attention_context", s.attention_context, {T, Q});
      check(p + "attention_output", s.attention_output, {T, C});
      check(p + "attention_residual", s.attention_residual, {T, C});
      check(p + "ffn_input_norm", s.ffn_input_norm, {T, C});
      check(p + "ffn_gate", s.ffn_gate, {T, F});
      check(p + "ffn_gate_activated", s.ffn_gate_activated, {T, F});
      check(p + "ffn_up", s.ffn_up, {T, F});
      check(p + "ffn_intermediate", s.ffn_intermediate, {T, F});
      check(p + "ffn_output", s.ffn_output, {T, C});
      check(p + "output", s.output, {T, C});
      CHECK(s.ffn_residual == s.output);
      CHECK(s.attention_norm.empty());
      CHECK(s.ffn_pre_activation.empty());
    }
    check("final_norm", tr.final_norm, {T, C});
    std::cout << "llama trace " << model << ": " << checked << " tensors, max relative error " << worst << "\n";

    // Tracing keeps copies only: the run's outputs are bit-identical without it.
    ForwardOptions plain;
    plain.hidden_states = true;
    const ForwardResult u = t.forward(ids, {}, mask, plain);
    CHECK(u.attentions == r.attentions);
    CHECK(u.hidden_out == r.hidden_out);
    CHECK(u.hidden_states == r.hidden_states);
  }
}

TEST_CASE("llama attribution: the RMSNorm reading matches the float64 PyTorch reference", "[engine][llama][attribution]") {
  for (const std::string model : kModels) {
    const Transformer t = load(model);
    const auto fixture = nlohmann::json::parse(test::read_text(kLlama + "/" + model + "/attribution_t7.json"));
    double worst_part = 0, worst_sum = 0;
    int checked = 0;
    for (const auto& w : fixture["attributions"]) {
      INFO(model << " position " << w["position"]);
      std::vector<float> head_mask;
      if (!w["head_mask"].is_null())
        for (const auto& row : w["head_mask"])
          for (const auto& m : row) head_mask.push_back(m.get<float>());
      const int32_t token = w["token_id"].get<int32_t>();
      // The first entry asks for the top-1 token at the last position (−1, −1), as the page does.
      const bool defaults = head_mask.empty();
      const Attribution a = defaults ? direct_logit_attribution(t, ints(fixture["ids"]), ints(fixture["attention_mask"]), {})
                                     : direct_logit_attribution(t, ints(fixture["ids"]), ints(fixture["attention_mask"]),
                                                                head_mask, w["position"].get<int>(), token);
      CHECK(a.position == w["position"].get<int>());
      CHECK(a.token_id == token);
      const double scale = std::max(1.0, std::fabs(w["logit"].get<double>()));
      CHECK(std::fabs(a.logit - w["logit"].get<double>()) <= 1e-4 * scale);
      REQUIRE(a.parts.size() == w["parts"].size());
      for (size_t i = 0; i < a.parts.size(); ++i) {
        const auto& want = w["parts"][i];
        INFO("part " << i << " " << want["kind"].get<std::string>());
        CHECK(attribution_kind_name(a.parts[i].kind) == want["kind"].get<std::string>());
        CHECK(a.parts[i].layer == (want["layer"].is_null() ? -1 : want["layer"].get<int>()));
        CHECK(a.parts[i].head == (want["head"].is_null() ? -1 : want["head"].get<int>()));
        const double err = std::fabs(a.parts[i].value - want["value"].get<double>()) / scale;
        worst_part = std::max(worst_part, err);
        CHECK(err <= 1e-4);
      }
      CHECK(a.parts.back().kind == AttributionPart::Kind::Mlp);  // RMSNorm: no final-norm bias term
      worst_sum = std::max(worst_sum, std::fabs(a.sum - a.logit) / scale);
      CHECK(std::fabs(a.sum - a.logit) <= 1e-4 * scale);
      ++checked;
    }
    REQUIRE(checked == 2);
    std::cout << "llama attribution " << model << ": max |part - reference| / max(1, |logit|) = " << worst_part
              << ", max |sum - logit| / max(1, |logit|) = " << worst_sum << "\n";
  }
}
