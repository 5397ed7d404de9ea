// Hook points (hooks.h) on the encoder, GPT-2 and Llama-family fixtures: names round-trip; hooks
// that only read change nothing, bit for bit; what they read is what the trace and the hidden
// states hold; replacing the residual stream with another run's makes that run (the identity of
// activation patching); adding zero is no change (steering at strength 0).
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "hooks.h"
#include "test_engine_support.h"
#include "test_fixture_models.h"
#include "transformer.h"

using namespace attnscope;
using attnscope::test::expect_error;
using attnscope::test::load_transformer;

namespace {

const std::string kFixtures = ATTNSCOPE_FIXTURES_DIR;
const std::vector<std::string> kModels = {"engine/bert_mlm_f32", "engine/gpt2_lm_f32", "llama/llama3_gqa2_f32"};
const std::vector<int32_t> kClean = {2, 11, 7, 30, 5, 9, 3}, kCorrupted = {2, 11, 8, 30, 5, 10, 3};

constexpr HookSite kEverySite[] = {HookSite::ResidPre, HookSite::Q,       HookSite::K,      HookSite::V,
                                   HookSite::Z,        HookSite::Pattern, HookSite::AttnOut, HookSite::ResidMid,
                                   HookSite::MlpOut,   HookSite::ResidPost};

// Every (site, layer) read during one run: name → values.
using Recording = std::map<std::string, std::vector<float>>;

Hooks recorder(Recording& into, int layers) {
  Hooks hooks;
  for (HookSite site : kEverySite)
    for (int l = 0; l < layers; ++l)
      hooks.add({HookStack::Model, site, l}, [&into](const HookPoint& p, HookTensor& t) {
        into[hook_name(p)].assign(t.data, t.data + static_cast<size_t>(t.rows) * t.width);
      }, false);
  return hooks;
}

ForwardResult run(const Transformer& model, const std::vector<int32_t>& ids, const Hooks* hooks, bool trace = false) {
  ForwardOptions options;
  options.hidden_states = true;
  options.qkv = trace;
  options.trace = trace;
  options.hooks = hooks;
  return model.forward(ids, {}, {}, options);
}

std::vector<float> slice(const std::vector<float>& v, size_t index, size_t n) {
  return {v.begin() + static_cast<std::ptrdiff_t>(index * n), v.begin() + static_cast<std::ptrdiff_t>((index + 1) * n)};
}

}  // namespace

TEST_CASE("hooks: names round-trip and bad names are E_INPUT", "[engine][hooks]") {
  for (const char* name : {"blocks.0.hook_resid_pre", "blocks.11.attn.hook_pattern", "encoder.blocks.2.hook_mlp_out",
                           "decoder.blocks.1.cross_attn.hook_z", "decoder.blocks.0.hook_resid_mid_cross"})
    CHECK(hook_name(parse_hook_name(name)) == name);
  expect_error([] { parse_hook_name("blocks.0.hook_nothing"); }, "E_INPUT", "no hook point \"hook_nothing\"");
  expect_error([] { parse_hook_name("blocks.x.hook_resid_pre"); }, "E_INPUT", "needs a layer number");
  expect_error([] { parse_hook_name("hook_resid_pre"); }, "E_INPUT", "names start with blocks.");
  expect_error([] { parse_hook_name("blocks.0.cross_attn.hook_z"); }, "E_INPUT", "an encoder–decoder's decoder's");
}

TEST_CASE("hooks: reading every site changes nothing and reads the trace's values", "[engine][hooks]") {
  for (const std::string& name : kModels) {
    INFO(name);
    const Transformer model = load_transformer(kFixtures + "/" + name);
    const ModelConfig& c = model.config();
    const int L = c.num_layers, T = static_cast<int>(kClean.size()), C = c.hidden_size;
    const ForwardResult plain = run(model, kClean, nullptr, true);
    Recording seen;
    const Hooks hooks = recorder(seen, L);
    const ForwardResult hooked = run(model, kClean, &hooks, true);
    CHECK(hooked.attentions == plain.attentions);  // bit for bit
    CHECK(hooked.hidden_out == plain.hidden_out);
    CHECK(hooked.hidden_states == plain.hidden_states);
    const size_t TC = static_cast<size_t>(T) * C, layer_maps = static_cast<size_t>(c.num_heads) * T * T;
    for (int l = 0; l < L; ++l) {
      const std::string b = "blocks." + std::to_string(l) + ".";
      const LayerTrace& trace = plain.trace.layers[l];
      CHECK(seen[b + "hook_resid_pre"] == slice(plain.hidden_states, l, TC));
      CHECK(seen[b + "hook_resid_post"] == trace.output);
      CHECK(seen[b + "hook_attn_out"] == trace.attention_output);
      CHECK(seen[b + "hook_resid_mid"] == trace.attention_residual);
      CHECK(seen[b + "hook_mlp_out"] == trace.ffn_output);
      CHECK(seen[b + "attn.hook_pattern"] == slice(plain.attentions, l, layer_maps));
      CHECK(seen[b + "attn.hook_z"].size() == static_cast<size_t>(T) * c.q_width());
      if (!trace.attention_context.empty()) CHECK(seen[b + "attn.hook_z"] == trace.attention_context);
      // hook_q/k/v hold every head side by side; the qkv output each head's (L, H, T, dh) block.
      const int H = c.num_heads, dh = c.head_dim();
      for (int h = 0; h < H; ++h)
        for (int t = 0; t < T; ++t)
          for (int d = 0; d < dh; ++d) {
            const size_t at = ((static_cast<size_t>(l) * H + h) * T + t) * dh + d;
            REQUIRE(seen[b + "attn.hook_q"][static_cast<size_t>(t) * c.q_width() + h * dh + d] == plain.q[at]);
            REQUIRE(seen[b + "attn.hook_k"][static_cast<size_t>(t) * c.kv_width() + c.kv_head_of(h) * dh + d] == plain.k[at]);
            REQUIRE(seen[b + "attn.hook_v"][static_cast<size_t>(t) * c.kv_width() + c.kv_head_of(h) * dh + d] == plain.v[at]);
          }
    }
  }
}

TEST_CASE("hooks: another run's residual stream written in makes that run; adding zero changes nothing",
          "[engine][hooks]") {
  for (const std::string& name : kModels) {
    INFO(name);
    const Transformer model = load_transformer(kFixtures + "/" + name);
    const int L = model.config().num_layers;
    const ForwardResult clean = run(model, kClean, nullptr), corrupted = run(model, kCorrupted, nullptr);
    REQUIRE(clean.hidden_out != corrupted.hidden_out);
    Recording clean_acts;
    const Hooks read = recorder(clean_acts, L);
    run(model, kClean, &read);
    for (const char* site : {"blocks.0.hook_resid_pre", "blocks.0.hook_attn_out"}) {
      INFO(site);
      // Layer 0's input at every position is the whole difference between the runs; its attention
      // output is not (the residual still carries the corrupted tokens).
      Hooks patch;
      patch.add(site, [&](const HookPoint& p, HookTensor& t) {
        std::copy(clean_acts[hook_name(p)].begin(), clean_acts[hook_name(p)].end(), t.data);
      }, true);
      const ForwardResult patched = run(model, kCorrupted, &patch);
      if (std::string(site).find("resid_pre") != std::string::npos) {
        CHECK(patched.hidden_out == clean.hidden_out);
        CHECK(patched.attentions == clean.attentions);
      } else {
        CHECK(patched.hidden_out != corrupted.hidden_out);
      }
    }
    Hooks add_zero;
    for (int l = 0; l < L; ++l)
      add_zero.add({HookStack::Model, HookSite::ResidPre, l}, [](const HookPoint&, HookTensor& t) {
        for (int i = 0; i < t.rows * t.width; ++i) t.data[i] += 0.0f;
      }, true);
    CHECK(run(model, kCorrupted, &add_zero).hidden_out == corrupted.hidden_out);
  }
}

TEST_CASE("hooks: a written pattern weights the values (its own pattern written back: the same run)",
          "[engine][hooks]") {
  for (const std::string& name : kModels) {
    INFO(name);
    const Transformer model = load_transformer(kFixtures + "/" + name);
    const ForwardResult plain = run(model, kClean, nullptr);
    Hooks same, uniform;
    same.add("blocks.0.attn.hook_pattern", [](const HookPoint&, HookTensor&) {}, true);
    const ForwardResult rewritten = run(model, kClean, &same);
    CHECK(test::worst(plain.hidden_out, rewritten.hidden_out).max_error <= 1e-5);
    // A pattern that differs must change the output: each row uniform over its visible keys.
    uniform.add("blocks.0.attn.hook_pattern", [](const HookPoint&, HookTensor& t) {
      for (int r = 0; r < t.rows; ++r) {
        float* row = t.data + static_cast<size_t>(r) * t.width;
        int visible = 0;
        for (int j = 0; j < t.width; ++j) visible += row[j] > 0.0f;
        for (int j = 0; j < t.width; ++j) row[j] = row[j] > 0.0f ? 1.0f / visible : 0.0f;
      }
    }, true);
    CHECK(test::worst(plain.hidden_out, run(model, kClean, &uniform).hidden_out).max_error > 1e-3);
  }
}
