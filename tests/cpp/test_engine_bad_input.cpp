// One test per kind of bad input to the engine (malformed safetensors, unusable config, missing or
// misshapen tensors, bad forward inputs). Each checks the error code and that the message names
// the problem, so a user learns what is wrong with their file.
#include <functional>
#include <nlohmann/json.hpp>

#include "config.h"
#include "transformer.h"
#include "error.h"
#include "safetensors.h"
#include "test_engine_support.h"
#include "weights.h"

using namespace attnscope;
using json = nlohmann::json;

namespace {

const std::string kBert = std::string(ATTNSCOPE_FIXTURES_DIR) + "/engine/bert_mlm_f32";
const std::string kDistil = std::string(ATTNSCOPE_FIXTURES_DIR) + "/engine/distilbert_mlm_f32";

using attnscope::test::expect_error;

// A fixture checkpoint (default the BERT one) with its header edited by `edit` (data section
// unchanged).
std::vector<uint8_t> edited_model(const std::function<void(json&)>& edit, const std::string& dir = kBert) {
  const auto bytes = test::read_bytes(dir + "/model.safetensors");
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | bytes[i];
  json header = json::parse(bytes.begin() + 8, bytes.begin() + 8 + n);
  edit(header);
  auto out = test::safetensors_file(header.dump(), bytes.size() - 8 - n);
  std::copy(bytes.begin() + 8 + n, bytes.end(), out.begin() + 8 + header.dump().size());
  return out;
}

void open(const std::vector<uint8_t>& b) { SafeTensors st(b.data(), b.size()); }

void load(const std::string& config_path, const std::vector<uint8_t>& b) {
  const SafeTensors st(b.data(), b.size());
  load_weights(parse_config(test::read_text(config_path)), st);
}

Transformer bert_encoder() {
  static const auto bytes = test::read_bytes(kBert + "/model.safetensors");
  const ModelConfig c = parse_config(test::read_text(kBert + "/config.json"));
  const SafeTensors st(bytes.data(), bytes.size());
  return Transformer(c, load_weights(c, st));
}

}  // namespace

// ---- safetensors -------------------------------------------------------------------------------

TEST_CASE("bad safetensors: file shorter than 8 bytes", "[engine][errors]") {
  const std::vector<uint8_t> b = {1, 2, 3};
  expect_error([&] { open(b); }, "E_SAFETENSORS", "shorter than the 8-byte header length");
  expect_error([&] { SafeTensors(nullptr, 0); }, "E_SAFETENSORS", "0 bytes");
}

TEST_CASE("bad safetensors: truncated file", "[engine][errors]") {
  auto b = test::read_bytes(kBert + "/model.safetensors");
  b.resize(b.size() / 2);  // header intact, data section cut: the last tensors run past the end
  expect_error([&] { open(b); }, "E_SAFETENSORS", "out of range");
  b.resize(100);  // header itself cut
  expect_error([&] { open(b); }, "E_SAFETENSORS", "runs past the end");
}

TEST_CASE("bad safetensors: header length past the end", "[engine][errors]") {
  auto b = test::safetensors_file("{}", 0);
  b[0] = 0xff;
  b[7] = 0x7f;  // 0x7f000000000000ff
  expect_error([&] { open(b); }, "E_SAFETENSORS", "runs past the end of the 10-byte file");
}

TEST_CASE("bad safetensors: header not JSON / not an object", "[engine][errors]") {
  expect_error([&] { open(test::safetensors_file("{\"a\": ", 0)); }, "E_SAFETENSORS", "not valid JSON");
  expect_error([&] { open(test::safetensors_file("[1, 2]", 0)); }, "E_SAFETENSORS", "must be a JSON object");
  expect_error([&] { open(test::safetensors_file("{\"t\": 5}", 0)); }, "E_SAFETENSORS", "tensor \"t\"");
}

TEST_CASE("bad safetensors: unknown dtype is named", "[engine][errors]") {
  const std::string h = R"({"w": {"dtype": "F8_E9M9", "shape": [2], "data_offsets": [0, 2]}})";
  expect_error([&] { open(test::safetensors_file(h, 2)); }, "E_SAFETENSORS", "unknown dtype \"F8_E9M9\"");
  // A known integer dtype opens (real checkpoints store I64 position_ids) but is not usable as weights.
  const std::string ok = R"({"ids": {"dtype": "I64", "shape": [2], "data_offsets": [0, 16]}})";
  const auto b = test::safetensors_file(ok, 16);
  const SafeTensors st(b.data(), b.size());
  expect_error([&] { st.to_f32("ids", {2}); }, "E_SAFETENSORS", "dtype I64");
}

TEST_CASE("bad safetensors: shape not a list of non-negative integers", "[engine][errors]") {
  for (const char* shape : {"\"4\"", "[-1]", "[1.5]", "[[2]]", "[\"2\"]"}) {
    const std::string h = std::string(R"({"w": {"dtype": "F32", "shape": )") + shape + R"(, "data_offsets": [0, 16]}})";
    INFO(h);
    expect_error([&] { open(test::safetensors_file(h, 16)); }, "E_SAFETENSORS", "\"shape\" must be a list");
  }
  // numel × dtype size overflowing 64 bits is caught, not wrapped
  const std::string huge = R"({"w": {"dtype": "F32", "shape": [4294967296, 4294967296, 4], "data_offsets": [0, 0]}})";
  expect_error([&] { open(test::safetensors_file(huge, 0)); }, "E_SAFETENSORS", "too many elements");
}

TEST_CASE("bad safetensors: data_offsets out of range, reversed, overlapping, wrong size", "[engine][errors]") {
  const auto h = [](const std::string& a, const std::string& b) {
    return R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": )" + a +
           R"(}, "b": {"dtype": "F32", "shape": [2], "data_offsets": )" + b + "}}";
  };
  expect_error([&] { open(test::safetensors_file(h("[0, 8]", "[8, 24]"), 16)); }, "E_SAFETENSORS", "out of range");
  expect_error([&] { open(test::safetensors_file(h("[0, 8]", "[8, 0]"), 16)); }, "E_SAFETENSORS", "< begin");
  expect_error([&] { open(test::safetensors_file(h("[0, 8]", "[4, 12]"), 16)); }, "E_SAFETENSORS", "overlap");
  expect_error([&] { open(test::safetensors_file(h("[0, 8]", "[8, 12]"), 16)); }, "E_SAFETENSORS", "needs 2 × 4");
  expect_error([&] { open(test::safetensors_file(h("[0, 8]", "[8]"), 16)); }, "E_SAFETENSORS", "[begin, end]");
  // the valid layout opens, and __metadata__ is allowed
  const std::string good = R"({"__metadata__": {"format": "pt"}, "a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}, "b": {"dtype": "F16", "shape": [2, 2], "data_offsets": [8, 16]}})";
  const auto b = test::safetensors_file(good, 16);
  const SafeTensors st(b.data(), b.size());
  CHECK(st.tensors().size() == 2);
  CHECK(st.get("b").numel() == 4);
}

TEST_CASE("safetensors: half and bfloat16 conversion", "[engine][safetensors]") {
  // IEEE 754 binary16 bit patterns with known values
  CHECK(f16_to_f32(0x3c00) == 1.0f);
  CHECK(f16_to_f32(0xc000) == -2.0f);
  CHECK(f16_to_f32(0x7bff) == 65504.0f);            // largest normal
  CHECK(f16_to_f32(0x0400) == std::ldexp(1.0f, -14));  // smallest normal
  CHECK(f16_to_f32(0x0001) == std::ldexp(1.0f, -24));  // smallest subnormal
  CHECK(f16_to_f32(0x03ff) == std::ldexp(1023.0f, -24));  // largest subnormal
  CHECK(f16_to_f32(0x3555) == 0.333251953125f);
  CHECK(std::isinf(f16_to_f32(0x7c00)));
  CHECK(std::isnan(f16_to_f32(0x7e00)));
  CHECK(std::signbit(f16_to_f32(0x8000)));
  CHECK(bf16_to_f32(0x3f80) == 1.0f);
  CHECK(bf16_to_f32(0xc049) == -3.140625f);
}

// ---- config ----------------------------------------------------------------------------------

TEST_CASE("bad config: unknown model_type, heads, activation, types, JSON", "[engine][errors]") {
  auto with = [](const std::function<void(json&)>& edit) {
    json c = json::parse(test::read_text(kBert + "/config.json"));
    edit(c);
    return c.dump();
  };
  expect_error([&] { parse_config(with([](json& c) { c["model_type"] = "t5"; })); }, "E_CONFIG",
               "unsupported model_type \"t5\"");
  expect_error([&] { parse_config(with([](json& c) { c["num_attention_heads"] = 7; })); }, "E_CONFIG",
               "hidden size 60 is not divisible by the number of heads 7");
  expect_error([&] { parse_config(with([](json& c) { c["hidden_act"] = "swish"; })); }, "E_CONFIG",
               "unsupported activation \"swish\"");
  expect_error([&] { parse_config(with([](json& c) { c["hidden_size"] = 60.5; })); }, "E_CONFIG",
               "\"hidden_size\" must be an integer");
  expect_error([&] { parse_config(with([](json& c) { c["num_hidden_layers"] = 0; })); }, "E_CONFIG",
               "\"num_hidden_layers\" = 0 is out of range");
  expect_error([&] { parse_config(with([](json& c) { c["vocab_size"] = 1e300; })); }, "E_CONFIG", "\"vocab_size\"");
  expect_error([&] { parse_config(with([](json& c) { c.erase("intermediate_size"); })); }, "E_CONFIG",
               "missing required key \"intermediate_size\"");
  expect_error([&] { parse_config(with([](json& c) { c["position_embedding_type"] = "relative_key"; })); },
               "E_CONFIG", "relative_key");
  expect_error([&] { parse_config("not json"); }, "E_CONFIG", "not valid JSON");
  expect_error([&] { parse_config("[]"); }, "E_CONFIG", "JSON object");
  // DistilBERT spells the sizes differently; its heads check uses "dim"
  expect_error([&] {
    json c = json::parse(test::read_text(kDistil + "/config.json"));
    c["n_heads"] = 3;
    parse_config(c.dump());
  }, "E_CONFIG", "hidden size 40 is not divisible by the number of heads 3");
}

// ---- weights ---------------------------------------------------------------------------------

TEST_CASE("bad weights: missing tensor is named", "[engine][errors]") {
  const auto b = edited_model([](json& h) { h.erase("bert.encoder.layer.1.attention.self.key.weight"); });
  expect_error([&] { load(kBert + "/config.json", b); }, "E_WEIGHTS",
               "missing tensor \"bert.encoder.layer.1.attention.self.key.weight\"");
}

TEST_CASE("bad weights: wrong shape is named with both shapes", "[engine][errors]") {
  // Same byte count, transposed shape: only the shape check can catch it.
  const auto b = edited_model([](json& h) {
    h["bert.encoder.layer.0.intermediate.dense.weight"]["shape"] = {60, 44};
  });
  expect_error([&] { load(kBert + "/config.json", b); }, "E_WEIGHTS",
               "\"bert.encoder.layer.0.intermediate.dense.weight\" has shape [60, 44], expected [44, 60]");
  // A config that disagrees with the checkpoint (vocab 51 vs 50 rows) also fails by tensor name.
  json c = json::parse(test::read_text(kBert + "/config.json"));
  c["vocab_size"] = 51;
  const auto orig = test::read_bytes(kBert + "/model.safetensors");
  const SafeTensors st(orig.data(), orig.size());
  expect_error([&] { load_weights(parse_config(c.dump()), st); }, "E_WEIGHTS",
               "\"bert.embeddings.word_embeddings.weight\" has shape [50, 60], expected [51, 60]");
}

TEST_CASE("bad weights: mlm_logits without a head", "[engine][errors]") {
  const auto b = test::read_bytes(std::string(ATTNSCOPE_FIXTURES_DIR) + "/engine/minilm_relu_f32/model.safetensors");
  const ModelConfig c = parse_config(test::read_text(std::string(ATTNSCOPE_FIXTURES_DIR) + "/engine/minilm_relu_f32/config.json"));
  const SafeTensors st(b.data(), b.size());
  const Transformer e(c, load_weights(c, st));
  CHECK_FALSE(e.has_lm_head());
  const auto r = e.forward({1, 2}, {}, {}, ForwardOptions{});
  expect_error([&] { e.lm_logits(r.hidden_out.data(), r.tokens); }, "E_WEIGHTS", "no masked-LM head");
}

// ---- forward inputs --------------------------------------------------------------------------

TEST_CASE("bad input: ids, lengths, token types, mask values", "[engine][errors]") {
  const Transformer e = bert_encoder();  // vocab 50, max positions 40, 2 token types
  const ForwardOptions o;
  expect_error([&] { e.forward({}, {}, {}, o); }, "E_INPUT", "at least one token");
  expect_error([&] { e.forward({1, 50, 2}, {}, {}, o); }, "E_INPUT", "token id 50 at position 1 is out of vocab range [0, 50)");
  expect_error([&] { e.forward({-1}, {}, {}, o); }, "E_INPUT", "token id -1 at position 0");
  expect_error([&] { e.forward(std::vector<int32_t>(41, 1), {}, {}, o); }, "E_INPUT",
               "41 tokens is more than the model's 40 positions (max_position_embeddings = 40)");
  CHECK_NOTHROW(e.forward(std::vector<int32_t>(40, 1), {}, {}, o));  // exactly the limit is fine
  expect_error([&] { e.forward({1, 2}, {0}, {}, o); }, "E_INPUT", "token_types has 1 entries for 2 token ids");
  expect_error([&] { e.forward({1, 2}, {}, {1, 1, 1}, o); }, "E_INPUT", "attention_mask has 3 entries");
  expect_error([&] { e.forward({1, 2}, {0, 2}, {}, o); }, "E_INPUT", "token type 2 at position 1 is out of range [0, 2)");
  expect_error([&] { e.forward({1, 2}, {}, {1, 2}, o); }, "E_INPUT", "attention_mask value 2 at position 1");
  expect_error([&] { e.lm_logits(nullptr, 0); }, "E_INPUT", "at least one hidden state row");

  const auto db = test::read_bytes(kDistil + "/model.safetensors");
  const ModelConfig dc = parse_config(test::read_text(kDistil + "/config.json"));
  const SafeTensors st(db.data(), db.size());
  const Transformer d(dc, load_weights(dc, st));
  expect_error([&] { d.forward({1, 2}, {0, 1}, {}, o); }, "E_INPUT", "distilbert has no token types");
  CHECK_NOTHROW(d.forward({1, 2}, {0, 0}, {}, o));
}

TEST_CASE("bad input: Transformer rejects weights that do not match the config", "[engine][errors]") {
  const ModelConfig c = parse_config(test::read_text(kBert + "/config.json"));
  ModelWeights w;  // empty
  expect_error([&] { Transformer(c, w); }, "E_WEIGHTS", "word embeddings");
}

// ---- GPT-2 checkpoints -------------------------------------------------------------------------

namespace {

const std::string kGpt2 = std::string(ATTNSCOPE_FIXTURES_DIR) + "/engine/gpt2_lm_f32";

std::string gpt2_config_with(const std::function<void(json&)>& edit) {
  json c = json::parse(test::read_text(kGpt2 + "/config.json"));
  edit(c);
  return c.dump();
}

std::vector<uint8_t> edited_gpt2(const std::function<void(json&)>& edit) { return edited_model(edit, kGpt2); }

void load_gpt2(const std::string& config_json, const std::vector<uint8_t>& b) {
  const SafeTensors st(b.data(), b.size());
  load_weights(parse_config(config_json), st);
}

}  // namespace

TEST_CASE("bad config: GPT-2 options the engine does not implement are named", "[engine][errors][decoder]") {
  const ModelConfig ok = parse_config(test::read_text(kGpt2 + "/config.json"));
  CHECK(ok.is_decoder());
  CHECK(ok.intermediate_size == 52);
  CHECK(parse_config(gpt2_config_with([](json& c) { c["n_inner"] = nullptr; })).intermediate_size == 4 * 36);
  for (const auto& [key, value] : {std::pair{"scale_attn_by_inverse_layer_idx", true},
                                   std::pair{"reorder_and_upcast_attn", true}, std::pair{"add_cross_attention", true},
                                   std::pair{"scale_attn_weights", false}}) {
    INFO(key);
    expect_error([&, key = key, value = value] { parse_config(gpt2_config_with([&](json& c) { c[key] = value; })); },
                 "E_CONFIG", std::string("\"") + key + "\"");
  }
  expect_error([] { parse_config(gpt2_config_with([](json& c) { c["n_head"] = 5; })); }, "E_CONFIG",
               "hidden size 36 is not divisible by the number of heads 5");
  expect_error([] { parse_config(gpt2_config_with([](json& c) { c.erase("n_positions"); })); }, "E_CONFIG",
               "missing required key \"n_positions\"");
  expect_error([] { parse_config(gpt2_config_with([](json& c) { c["activation_function"] = "swish"; })); },
               "E_CONFIG", "unsupported activation \"swish\"");
  expect_error([] { parse_config(gpt2_config_with([](json& c) { c["layer_norm_epsilon"] = "1e-5"; })); },
               "E_CONFIG", "\"layer_norm_epsilon\" must be a number");
}

TEST_CASE("bad weights: GPT-2 tensors missing, misshapen, untied head absent, file cut short",
          "[engine][errors][decoder]") {
  const std::string config = test::read_text(kGpt2 + "/config.json");
  expect_error([&] { load_gpt2(config, edited_gpt2([](json& h) { h.erase("transformer.h.2.attn.c_attn.weight"); })); },
               "E_WEIGHTS", "\"transformer.h.2.attn.c_attn.weight\"");
  expect_error([&] {
    load_gpt2(config, edited_gpt2([](json& h) { h["transformer.h.0.mlp.c_fc.weight"]["shape"] = {52, 36}; }));
  }, "E_WEIGHTS", "\"transformer.h.0.mlp.c_fc.weight\" has shape [52, 36], expected [36, 52]");
  expect_error([&] { load_gpt2(config, edited_gpt2([](json& h) { h.erase("transformer.ln_f.bias"); })); },
               "E_WEIGHTS", "\"transformer.ln_f.bias\"");
  const std::string untied = gpt2_config_with([](json& c) { c["tie_word_embeddings"] = false; });
  expect_error([&] { load_gpt2(untied, test::read_bytes(kGpt2 + "/model.safetensors")); }, "E_WEIGHTS",
               "no \"lm_head.weight\"");
  auto bytes = test::read_bytes(kGpt2 + "/model.safetensors");
  bytes.resize(bytes.size() - 100);
  expect_error([&] { load_gpt2(config, bytes); }, "E_SAFETENSORS", "");
  // The mask buffers are skipped even when missing: they are constants, not weights.
  CHECK_NOTHROW(load_gpt2(config, edited_gpt2([](json& h) {
    for (int l = 0; l < 3; ++l) h.erase("transformer.h." + std::to_string(l) + ".attn.masked_bias");
  })));
}

TEST_CASE("bad input: extend() is for decoders, with ids in range", "[engine][errors][decoder]") {
  const Transformer e = bert_encoder();
  KvCache cache;
  Activations a;
  ForwardResult r;
  expect_error([&] { e.extend({1}, cache, r, a); }, "E_INPUT", "only decoders run incrementally");

  const auto bytes = test::read_bytes(kGpt2 + "/model.safetensors");
  const ModelConfig c = parse_config(test::read_text(kGpt2 + "/config.json"));
  const SafeTensors st(bytes.data(), bytes.size());
  const Transformer d(c, load_weights(c, st));
  expect_error([&] { d.extend({}, cache, r, a); }, "E_INPUT", "at least one token");
  expect_error([&] { d.extend({1, 53}, cache, r, a); }, "E_INPUT", "token id 53 at position 1");
  CHECK(cache.length == 0);
  expect_error([&] { d.forward({1, 2}, {0, 1}, {}, ForwardOptions{}); }, "E_INPUT", "gpt2 has no token types");
}

TEST_CASE("bad input: RoBERTa's positions start after its padding id", "[engine][errors]") {
  const std::string dir = std::string(ATTNSCOPE_FIXTURES_DIR) + "/engine/roberta_mlm_f32";
  const ModelConfig c = parse_config(test::read_text(dir + "/config.json"));
  CHECK(c.family == Family::Roberta);
  CHECK(c.max_tokens() == 40);  // 42 embeddings, the first two (0, pad 1) never used by a token
  const auto bytes = test::read_bytes(dir + "/model.safetensors");
  const SafeTensors st(bytes.data(), bytes.size());
  const Transformer r(c, load_weights(c, st));
  CHECK_NOTHROW(r.forward(std::vector<int32_t>(40, 5), {}, {}, ForwardOptions{}));
  expect_error([&] { r.forward(std::vector<int32_t>(41, 5), {}, {}, ForwardOptions{}); }, "E_INPUT",
               "41 tokens is more than the model's 40 positions (max_position_embeddings = 42)");
  json j = json::parse(test::read_text(dir + "/config.json"));
  j["max_position_embeddings"] = 2;
  expect_error([&] { parse_config(j.dump()); }, "E_CONFIG", "leaves no position after RoBERTa's padding offset");
}
