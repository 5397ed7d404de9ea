// WeightStream (a safetensors file fed in pieces) against the whole-file reader it replaces in
// the wasm loader: identical f32 weights for every fixture checkpoint and dtype whatever the
// piece size (1 byte splits every element and the header), the same validation, and a clear
// E_SAFETENSORS error for a file that ends early or runs long.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "config.h"
#include "error.h"
#include "safetensors.h"
#include "test_engine_support.h"
#include "test_fixture_models.h"
#include "weight_stream.h"
#include "weights.h"

namespace fs = std::filesystem;
using namespace attnscope;

namespace {

const std::string kEngineFixtures = std::string(ATTNSCOPE_FIXTURES_DIR) + "/engine";

ModelWeights stream_load(const ModelConfig& config, const std::vector<uint8_t>& file, size_t piece,
                         bool announce_size = true, WeightPrecision precision = WeightPrecision::F32) {
  WeightStream stream(config, announce_size ? file.size() : 0, precision);
  for (size_t at = 0; at < file.size(); at += piece)
    stream.feed(file.data() + at, std::min(piece, file.size() - at));
  stream.finish();
  return load_weights(config, stream, precision);
}

// The weight matrices (kept in the load's precision), in a fixed order.
std::vector<const WeightMatrix*> matrices(const ModelWeights& w) {
  std::vector<const WeightMatrix*> out = {&w.word_emb};
  for (const LayerWeights& l : w.layers)
    for (auto* m : {&l.q_w, &l.k_w, &l.v_w, &l.o_w, &l.ff_i_w, &l.ff_o_w}) out.push_back(m);
  return out;
}

// Every array that is f32 whatever the precision, flattened in a fixed order.
std::vector<const std::vector<float>*> vectors(const ModelWeights& w) {
  std::vector<const std::vector<float>*> out = {&w.pos_emb, &w.type_emb, &w.ln_emb_g, &w.ln_emb_b};
  for (const LayerWeights& l : w.layers)
    for (auto* a : {&l.q_b, &l.k_b, &l.v_b, &l.o_b, &l.ln_attn_g, &l.ln_attn_b, &l.ff_i_b, &l.ff_o_b,
                    &l.ln_out_g, &l.ln_out_b})
      out.push_back(a);
  for (auto* a : {&w.mlm.dense_w, &w.mlm.dense_b, &w.mlm.ln_g, &w.mlm.ln_b, &w.mlm.decoder_w, &w.mlm.bias})
    out.push_back(a);
  return out;
}

// Every f32 array (an F32 load), flattened in a fixed order.
std::vector<const std::vector<float>*> arrays(const ModelWeights& w) {
  std::vector<const std::vector<float>*> out = vectors(w);
  for (const WeightMatrix* m : matrices(w)) out.push_back(&m->f32);
  return out;
}

}  // namespace

using attnscope::test::expect_error;

TEST_CASE("weight stream: same weights as the whole-file reader, any piece size", "[engine][stream]") {
  int models = 0;
  for (const auto& name : test::fixture_models(kEngineFixtures, "model.safetensors")) {
    ++models;
    const std::string dir = kEngineFixtures + "/" + name;
    INFO(dir);
    const ModelConfig config = parse_config(test::read_text(dir + "/config.json"));
    const auto file = test::read_bytes(dir + "/model.safetensors");
    const SafeTensors whole(file.data(), file.size());
    const ModelWeights expected = load_weights(config, whole);
    for (size_t piece : {size_t{1}, size_t{3}, size_t{7}, size_t{4096}, file.size()}) {
      for (bool announce : {true, false}) {
        INFO("piece " << piece << ", size announced " << announce);
        const ModelWeights got = stream_load(config, file, piece, announce);
        CHECK(got.has_mlm_head == expected.has_mlm_head);
        REQUIRE(got.layers.size() == expected.layers.size());
        const auto a = arrays(expected), b = arrays(got);
        for (size_t i = 0; i < a.size(); ++i) {
          INFO("array " << i);
          CHECK(*a[i] == *b[i]);  // bit-identical: same conversion, no arithmetic
        }
      }
    }
  }
  // Every checkpoint the fixture script lists (models.txt), none missing.
  REQUIRE(models == static_cast<int>(test::listed_names(kEngineFixtures + "/models.txt").size()));
}

TEST_CASE("weight stream: F16 precision keeps the matrices as rounded f16, everything else f32",
          "[engine][stream][f16]") {
  int models = 0;
  for (const auto& name : test::fixture_models(kEngineFixtures, "model.safetensors")) {
    ++models;
    const std::string dir = kEngineFixtures + "/" + name;
    INFO(dir);
    const ModelConfig config = parse_config(test::read_text(dir + "/config.json"));
    const auto file = test::read_bytes(dir + "/model.safetensors");
    const SafeTensors whole(file.data(), file.size());
    const ModelWeights f32 = load_weights(config, whole);
    const ModelWeights whole_f16 = load_weights(config, whole, WeightPrecision::F16);
    for (size_t piece : {size_t{1}, size_t{3}, size_t{4096}, file.size()}) {
      INFO("piece " << piece);
      const ModelWeights got = stream_load(config, file, piece, true, WeightPrecision::F16);
      const auto want_m = matrices(f32), got_m = matrices(got), whole_m = matrices(whole_f16);
      REQUIRE(want_m.size() == got_m.size());
      for (size_t i = 0; i < want_m.size(); ++i) {
        INFO("matrix " << i);
        REQUIRE(got_m[i]->is_f16());
        CHECK(got_m[i]->f32.empty());
        CHECK(got_m[i]->f16 == whole_m[i]->f16);
        std::vector<uint16_t> rounded(want_m[i]->f32.size());
        f32_to_f16(rounded.data(), want_m[i]->f32.data(), rounded.size());
        CHECK(got_m[i]->f16 == rounded);
      }
      const auto want_v = vectors(f32), got_v = vectors(got);
      for (size_t i = 0; i < want_v.size(); ++i) CHECK(*want_v[i] == *got_v[i]);
    }
    WeightStream f16_stream(config, file.size(), WeightPrecision::F16), f32_stream(config, file.size());
    f16_stream.feed(file.data(), file.size());
    f32_stream.feed(file.data(), file.size());
    CHECK(f16_stream.weight_bytes() < f32_stream.weight_bytes());
  }
  REQUIRE(models == static_cast<int>(test::listed_names(kEngineFixtures + "/models.txt").size()));
}

TEST_CASE("weight stream: a file that ends early or runs long is named", "[engine][stream][errors]") {
  const std::string dir = kEngineFixtures + "/bert_mlm_f32";
  REQUIRE(fs::exists(dir + "/model.safetensors"));
  const ModelConfig config = parse_config(test::read_text(dir + "/config.json"));
  const auto file = test::read_bytes(dir + "/model.safetensors");
  const uint64_t header_end = 8 + read_le_u64(file.data());

  WeightStream in_header(config, 0);
  in_header.feed(file.data(), 20);
  expect_error([&] { in_header.finish(); }, "E_SAFETENSORS", "inside its header");

  WeightStream in_tensor(config, 0);
  in_tensor.feed(file.data(), static_cast<size_t>(header_end + 10));
  expect_error([&] { in_tensor.finish(); }, "E_SAFETENSORS", "inside tensor \"");

  WeightStream short_of_size(config, file.size());
  short_of_size.feed(file.data(), file.size() - 1);
  expect_error([&] { short_of_size.finish(); }, "E_SAFETENSORS", "of the announced");

  WeightStream too_long(config, file.size() - 1);
  expect_error([&] { too_long.feed(file.data(), file.size()); }, "E_SAFETENSORS", "more than the announced");

  // A tensor cannot be taken before the stream is finished.
  WeightStream unfinished(config, 0);
  unfinished.feed(file.data(), static_cast<size_t>(header_end));
  expect_error([&] { load_weights(config, unfinished); }, "E_SAFETENSORS", "incomplete");
}

TEST_CASE("weight stream: header errors as the whole-file reader reports them", "[engine][stream][errors]") {
  const ModelConfig config;  // bert-base defaults; the header fails before any tensor matters
  const auto bad_dtype = test::safetensors_file(R"({"w": {"dtype": "F7", "shape": [1], "data_offsets": [0, 4]}})", 4);
  WeightStream s1(config, bad_dtype.size());
  expect_error([&] { s1.feed(bad_dtype.data(), bad_dtype.size()); }, "E_SAFETENSORS", "unknown dtype \"F7\"");

  const auto past_end = test::safetensors_file(R"({"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}})", 8);
  WeightStream s2(config, past_end.size());
  expect_error([&] { s2.feed(past_end.data(), past_end.size()); }, "E_SAFETENSORS", "out of range");

  std::vector<uint8_t> huge_header(16, 0xff);
  WeightStream s3(config, 0);
  expect_error([&] { s3.feed(huge_header.data(), huge_header.size()); }, "E_SAFETENSORS", "absurdly large");
}

TEST_CASE("weight stream: skips what the model does not use, refuses integer weights", "[engine][stream]") {
  ModelConfig config;
  config.hidden_size = 4;
  config.num_heads = 1;
  config.num_layers = 0;
  config.intermediate_size = 4;
  config.vocab_size = 2;
  config.max_position_embeddings = 2;
  // A pooler (skipped) before the embeddings, an I64 position_ids buffer (skipped), and a word
  // embedding stored as I32 (used, so taking it is an error naming the dtype).
  const std::string header =
      R"({"bert.pooler.dense.weight": {"dtype": "F32", "shape": [4, 4], "data_offsets": [0, 64]},)"
      R"("bert.embeddings.position_ids": {"dtype": "I64", "shape": [1, 2], "data_offsets": [64, 80]},)"
      R"("bert.embeddings.word_embeddings.weight": {"dtype": "I32", "shape": [2, 4], "data_offsets": [80, 112]}})";
  const auto file = test::safetensors_file(header, 112);
  WeightStream stream(config, file.size());
  stream.feed(file.data(), file.size());
  stream.finish();
  CHECK(stream.weight_bytes() == 0);  // nothing float that the model reads
  CHECK(stream.has("bert.pooler.dense.weight"));
  expect_error([&] { stream.take_f32("bert.embeddings.word_embeddings.weight", {2, 4}); }, "E_SAFETENSORS",
               "dtype I32");
  expect_error([&] { stream.take_f32("bert.embeddings.word_embeddings.weight", {3, 4}); }, "E_WEIGHTS",
               "has shape [2, 4], expected [3, 4]");
  expect_error([&] { stream.take_f32("nope", {1}); }, "E_WEIGHTS", "missing tensor \"nope\"");
}

TEST_CASE("tied decoder: the word embeddings are used, a stored copy ignored unless untied", "[engine][stream]") {
  ModelConfig tied;
  CHECK(tied.tie_word_embeddings);
  CHECK_FALSE(weight_is_used(tied, "cls.predictions.decoder.weight"));
  CHECK_FALSE(weight_is_used(tied, "vocab_projector.weight"));
  CHECK(weight_is_used(tied, "cls.predictions.decoder.bias"));
  CHECK_FALSE(weight_is_used(tied, "bert.pooler.dense.bias"));
  CHECK_FALSE(weight_is_used(tied, "cls.seq_relationship.weight"));
  CHECK(weight_is_used(tied, "bert.encoder.layer.0.attention.self.query.weight"));
  const std::string base = R"({"model_type": "bert", "vocab_size": 10, "hidden_size": 4, "num_hidden_layers": 1,
                                "num_attention_heads": 1, "intermediate_size": 8, )";
  ModelConfig untied = parse_config(base + R"("tie_word_embeddings": false})");
  CHECK_FALSE(untied.tie_word_embeddings);
  CHECK(weight_is_used(untied, "cls.predictions.decoder.weight"));
  expect_error([&] { parse_config(base + R"("tie_word_embeddings": 1})"); }, "E_CONFIG", "tie_word_embeddings");
}
