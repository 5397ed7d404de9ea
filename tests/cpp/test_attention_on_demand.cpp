// Attention maps on demand (engine/attention_sources.h): a run that keeps what its maps are made
// of gives, for every layer and head, the map an eager run keeps, bit for bit — every family
// (BERT with a padding mask, GPT-2, Llama with grouped-query heads, Qwen3's q/k norms, BART, T5's
// relative bias in both stacks and its cross-attention, a decoder step over the cache), one
// query included; the rest of the run is unchanged; Auto keeps the fixtures' small maps eagerly.
#include <cstring>
#include <string>
#include <vector>

#include "safetensors.h"
#include "seq2seq.h"
#include "test_engine_support.h"
#include "test_fixture_models.h"

using namespace attnscope;

namespace {

const std::string kFixtures = ATTNSCOPE_FIXTURES_DIR;

std::vector<int32_t> some_ids(int T, int vocab) {
  std::vector<int32_t> ids(T);
  for (int t = 0; t < T; ++t) ids[t] = (7 * t + 3) % vocab;
  return ids;
}

// Every head of `sources` equals its (layers, heads, queries, keys) slice of `eager`, bit for bit
// (memcmp: NaN payloads and −0 included); on failure the first differing entry.
void check_maps(const std::string& what, const AttentionSources& sources, const std::vector<float>& eager) {
  INFO(what);
  REQUIRE_FALSE(sources.empty());
  const size_t map = static_cast<size_t>(sources.queries) * sources.keys;
  REQUIRE(eager.size() == static_cast<size_t>(sources.layers) * sources.layout.heads * map);
  std::vector<float> got(map);
  for (int l = 0; l < sources.layers; ++l)
    for (int h = 0; h < sources.layout.heads; ++h) {
      INFO("layer " << l << " head " << h);
      std::fill(got.begin(), got.end(), -1.0f);
      sources.map(l, h, got.data());
      const float* want = eager.data() + (static_cast<size_t>(l) * sources.layout.heads + h) * map;
      size_t at = 0;  // the first differing entry, if any: where, expected, got
      while (at < map && std::memcmp(&got[at], &want[at], sizeof(float)) == 0) ++at;
      INFO("row " << (at / sources.keys) << " col " << (at % sources.keys) << ": eager "
                  << (at < map ? want[at] : 0.0f) << ", on demand " << (at < map ? got[at] : 0.0f));
      REQUIRE(at == map);
    }
}

ForwardOptions with_maps(AttentionMaps maps) {
  ForwardOptions o;
  o.maps = maps;
  return o;
}

Seq2Seq load_seq2seq(const std::string& model) {
  const std::string dir = kFixtures + "/seq2seq/" + model;
  const Seq2SeqConfig config = parse_seq2seq_config(test::read_text(dir + "/config.json"));
  const auto bytes = test::read_bytes(dir + "/model.safetensors");
  const SafeTensors tensors(bytes.data(), bytes.size());
  return Seq2Seq(config, load_seq2seq_weights(config, tensors));
}

}  // namespace

TEST_CASE("maps on demand: every single-stack family's maps equal the eager ones bit for bit", "[engine][on-demand]") {
  for (const std::string model : {"engine/bert_mlm_f32", "engine/gpt2_lm_f32", "llama/llama3_gqa2_f32",
                                  "llama/qwen3_qknorm_f32"}) {
    INFO(model);
    const Transformer m = test::load_transformer(kFixtures + "/" + model);
    const ModelConfig& c = m.config();
    for (int T : {1, 19}) {
      const std::vector<int32_t> ids = some_ids(T, c.vocab_size);
      std::vector<int32_t> mask;
      if (!c.is_decoder() && T > 1) {  // an encoder's padding mask: the key bias kept with the sources
        mask.assign(T, 1);
        mask[T - 1] = mask[T - 2] = 0;
      }
      const ForwardResult eager = m.forward(ids, {}, mask, with_maps(AttentionMaps::Eager));
      const ForwardResult lazy = m.forward(ids, {}, mask, with_maps(AttentionMaps::OnDemand));
      CHECK(eager.attention_sources.empty());
      CHECK(lazy.attentions.empty());
      check_maps(model + " T=" + std::to_string(T), lazy.attention_sources, eager.attentions);
      CHECK(lazy.hidden_out == eager.hidden_out);  // the rest of the run is the same
      // What the rule weighs is what the run holds: per layer T·(H + KV)·dh floats, the stats, the mask.
      const AttentionSources& kept = lazy.attention_sources;
      CHECK(kept.bytes() == AttentionSources::bytes_for(c.num_layers, T, T, kept.layout, !mask.empty(), false));
      CHECK(kept.bytes() == (static_cast<size_t>(c.num_layers) * T * (c.q_width() + c.kv_width() + 2 * c.num_heads) +
                             mask.size()) * sizeof(float));
      // Auto: the fixtures' maps are far below the threshold, so they stay eager.
      CHECK_FALSE(m.forward(ids, {}, mask, with_maps(AttentionMaps::Auto)).attentions.empty());
    }
  }
}

TEST_CASE("maps on demand: BART and T5, encoder, decoder and cross-attention, one pass and a step", "[engine][on-demand][seq2seq]") {
  for (const std::string model : {"bart_f32", "t5_relu_tied_f32"}) {
    INFO(model);
    const Seq2Seq m = load_seq2seq(model);
    const int V = m.config().vocab_size;
    const std::vector<int32_t> source = some_ids(11, V), target = some_ids(6, V);
    Seq2SeqRunOptions eager_options, lazy_options;
    lazy_options.maps = AttentionMaps::OnDemand;
    const EncoderOutput enc = m.encode(source, eager_options), enc_lazy = m.encode(source, lazy_options);
    CHECK(enc_lazy.attentions.empty());
    CHECK(enc_lazy.hidden == enc.hidden);
    check_maps(model + " encoder", enc_lazy.attention_sources, enc.attentions);
    KvCache cache, cache_lazy;
    // Five target positions, then a sixth over the cache (one query: the row kernel).
    for (int first : {0, 5}) {
      const int n = first == 0 ? 5 : 1;
      const std::vector<int32_t> ids(target.begin() + first, target.begin() + first + n);
      const DecoderOutput dec = m.decode(ids, enc, cache, eager_options);
      const DecoderOutput lazy = m.decode(ids, enc, cache_lazy, lazy_options);
      CHECK(lazy.self_attentions.empty());
      CHECK(lazy.cross_attentions.empty());
      CHECK(lazy.hidden == dec.hidden);
      check_maps(model + " decoder self from " + std::to_string(first), lazy.self_sources, dec.self_attentions);
      check_maps(model + " cross from " + std::to_string(first), lazy.cross_sources, dec.cross_attentions);
    }
  }
}

TEST_CASE("maps on demand: a layer or head outside the run is E_INPUT; hooks keep maps eager", "[engine][on-demand]") {
  const Transformer m = test::load_transformer(kFixtures + "/engine/gpt2_lm_f32");
  const ForwardResult r = m.forward(some_ids(5, m.config().vocab_size), {}, {}, with_maps(AttentionMaps::OnDemand));
  std::vector<float> out(25);
  test::expect_error([&] { r.attention_sources.map(r.layers, 0, out.data()); }, "E_INPUT", "layer");
  test::expect_error([&] { r.attention_sources.map(0, -1, out.data()); }, "E_INPUT", "head");
  CHECK(maps_on_demand(AttentionMaps::Auto, kEagerMapsBytes + 1, kEagerMapsBytes / 4, false));
  CHECK_FALSE(maps_on_demand(AttentionMaps::Auto, kEagerMapsBytes, 1, false));
  CHECK_FALSE(maps_on_demand(AttentionMaps::Auto, kEagerMapsBytes * 2, kEagerMapsBytes * 3, false));
  CHECK_FALSE(maps_on_demand(AttentionMaps::OnDemand, kEagerMapsBytes * 2, 1, true));
}

TEST_CASE("maps on demand: a decoder's prompt through extend(), then its steps, as the eager extend() gives",
          "[engine][on-demand][decoder]") {
  for (const std::string model : {"engine/gpt2_lm_f32", "llama/llama3_gqa2_f32"}) {
    INFO(model);
    const Transformer m = test::load_transformer(kFixtures + "/" + model);
    const std::vector<int32_t> prompt = some_ids(13, m.config().vocab_size);
    KvCache eager_cache, lazy_cache;
    Activations a;
    ForwardResult eager, lazy;
    m.extend(prompt, eager_cache, eager, a, nullptr, AttentionMaps::Eager);
    m.extend(prompt, lazy_cache, lazy, a, nullptr, AttentionMaps::OnDemand);
    CHECK(lazy.attentions.empty());
    check_maps(model + " prompt", lazy.attention_sources, eager.attentions);
    CHECK(lazy.hidden_out == eager.hidden_out);
    CHECK(lazy_cache.k == eager_cache.k);
    // The next steps keep their rows eagerly whatever the prompt asked, and drop its sources.
    for (const int32_t id : {5, 9}) {
      m.extend({id}, eager_cache, eager, a, nullptr, AttentionMaps::Eager);
      m.extend({id}, lazy_cache, lazy, a, nullptr, AttentionMaps::OnDemand);
      CHECK(lazy.attention_sources.empty());
      CHECK(lazy.attentions == eager.attentions);
      CHECK(lazy.hidden_out == eager.hidden_out);
    }
  }
}
