// weightPrecision 'q8' through the whole engine, on every fixture family: the model
// loads from F32, F16 and BF16 files, runs with every output asked for (value norms through the
// int8 W_O slices, the trace, the Llama family's SwiGLU), steps over the KV cache, attributes a
// logit, and stays close to the same model at f32 (the f32 model is checked against the float64
// PyTorch references by the golden tests; here q8 is judged against it). The accuracy figures on
// trained models are tests/js/q8-accuracy.test.js's.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "attribution.h"
#include "config.h"
#include "safetensors.h"
#include "test_engine_support.h"
#include "transformer.h"
#include "weight_stream.h"
#include "weights.h"

namespace fs = std::filesystem;
using namespace attnscope;

namespace {

const std::string kFixtures = ATTNSCOPE_FIXTURES_DIR;

struct Fixture {
  std::string dir;
  ModelConfig config;
  std::vector<uint8_t> bytes;
};

Fixture fixture(const std::string& dir) {
  return {dir, parse_config(test::read_text(dir + "/config.json")), test::read_bytes(dir + "/model.safetensors")};
}

Transformer load(const Fixture& f, WeightPrecision precision) {
  const SafeTensors tensors(f.bytes.data(), f.bytes.size());
  return Transformer(f.config, load_weights(f.config, tensors, precision));
}

std::vector<std::string> fixture_dirs() {
  std::vector<std::string> dirs;
  for (const std::string sub : {"/engine", "/llama"})
    for (const auto& e : fs::directory_iterator(kFixtures + sub))
      if (e.is_directory() && fs::exists(e.path() / "model.safetensors")) dirs.push_back(e.path().string());
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
  REQUIRE(a.size() == b.size());
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) worst = std::max(worst, static_cast<double>(std::fabs(a[i] - b[i])));
  return worst;
}

bool all_finite(const std::vector<float>& v) {
  return std::all_of(v.begin(), v.end(), [](float x) { return std::isfinite(x); });
}

}  // namespace

TEST_CASE("q8: every fixture family loads, runs every output and stays near f32", "[engine][q8]") {
  const std::vector<std::string> dirs = fixture_dirs();
  REQUIRE(dirs.size() >= 17);  // tests/fixtures/engine/models.txt's 12 and the 5 Llama-family ones
  for (const std::string& dir : dirs) {
    INFO("fixture " << dir);
    const Fixture f = fixture(dir);
    const Transformer f32 = load(f, WeightPrecision::F32), q8 = load(f, WeightPrecision::Q8);
    const ModelConfig& c = f.config;
    std::vector<int32_t> ids;
    for (int t = 0; t < std::min(9, c.max_tokens()); ++t) ids.push_back((7 * t + 3) % c.vocab_size);
    ForwardOptions options;
    options.hidden_states = options.qkv = options.value_norms = true;
    options.trace = c.family != Family::Llama;  // the trace's layout has no RMSNorm / SwiGLU steps
    const ForwardResult a = f32.forward(ids, {}, {}, options), b = q8.forward(ids, {}, {}, options);
    const int T = static_cast<int>(ids.size());
    CHECK(b.attentions.size() == static_cast<size_t>(c.num_layers) * c.num_heads * T * T);
    CHECK(b.attentions.size() == a.attentions.size());
    CHECK(b.hidden_states.size() == a.hidden_states.size());
    CHECK(b.value_norms.size() == a.value_norms.size());
    CHECK(b.q.size() == a.q.size());
    CHECK(b.trace.layers.size() == a.trace.layers.size());
    REQUIRE(all_finite(b.attentions));
    REQUIRE(all_finite(b.hidden_out));
    REQUIRE(all_finite(b.value_norms));
    // Random fixtures (weights ~N(0, 0.02..0.2)): int8 per-channel weights and per-token
    // activations keep each attention probability within a few hundredths of f32's.
    const double attention = max_abs_diff(a.attentions, b.attentions);
    INFO("max |Δ attention| " << attention);
    CHECK(attention < 0.05);
    double norm_scale = 0, norm_diff = max_abs_diff(a.value_norms, b.value_norms);
    for (float v : a.value_norms) norm_scale = std::max(norm_scale, static_cast<double>(v));
    INFO("max |Δ value norm| " << norm_diff << " of " << norm_scale);
    CHECK(norm_diff <= 0.05 * norm_scale);
    if (f32.has_lm_head()) {
      const std::vector<float> la = f32.lm_logits(a.hidden_out.data(), T), lb = q8.lm_logits(b.hidden_out.data(), T);
      REQUIRE(lb.size() == la.size());
      CHECK(all_finite(lb));
    }
    if (c.is_decoder()) {
      // The KV-cache step: a prompt then single positions equal the full q8 run's rows (each
      // activation row is quantized on its own, so a row's GEMM does not depend on the others).
      KvCache cache;
      Activations activations;
      ForwardResult step;
      const int prompt = std::min(4, T);
      q8.extend(std::vector<int32_t>(ids.begin(), ids.begin() + prompt), cache, step, activations);
      for (int t = prompt; t < T; ++t) q8.extend({ids[t]}, cache, step, activations);
      REQUIRE(step.keys == T);
      const size_t C = c.hidden_size;
      double worst = 0;
      for (size_t i = 0; i < C; ++i)
        worst = std::max(worst, static_cast<double>(std::fabs(step.hidden_out[i] - b.hidden_out[(T - 1) * C + i])));
      CHECK(worst <= 1e-3);
      if (c.family == Family::Gpt2) {  // attribution reads W_O one head at a time (int8 slices)
        const Attribution attr = direct_logit_attribution(q8, ids, {}, {}, -1, -1);
        CHECK(!attr.parts.empty());
      }
    }
  }
}

TEST_CASE("q8: the streaming loader gives the same model as the whole file", "[engine][q8]") {
  const Fixture f = fixture(kFixtures + "/engine/gpt2_lm_bf16");
  WeightStream stream(f.config, f.bytes.size(), WeightPrecision::Q8);
  for (size_t at = 0; at < f.bytes.size(); at += 1000)
    stream.feed(f.bytes.data() + at, std::min<size_t>(1000, f.bytes.size() - at));
  stream.finish();
  const Transformer streamed(f.config, load_weights(f.config, stream, WeightPrecision::Q8));
  const Transformer whole = load(f, WeightPrecision::Q8);
  const std::vector<int32_t> ids = {5, 1, 4, 1, 5, 9, 2, 6};
  const ForwardResult a = streamed.forward(ids, {}, {}, ForwardOptions{});
  const ForwardResult b = whole.forward(ids, {}, {}, ForwardOptions{});
  CHECK(a.attentions == b.attentions);
  CHECK(a.hidden_out == b.hidden_out);
}
