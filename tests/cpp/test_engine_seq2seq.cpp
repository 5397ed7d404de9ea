// The encoder–decoder families (bart, marian, t5) against the independent float64 PyTorch
// reference of tests/fixtures/make_seq2seq_fixtures.py: every attention (encoder, decoder, cross)
// ≤ 1e-4, hidden states and logits ≤ 1e-3; decoding step by step over the KV cache equal to one
// pass; greedy ids equal the reference's; f16 and q8 weight precision; bad input and refused config keys.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "safetensors.h"
#include "seq2seq.h"
#include "test_engine_support.h"
#include "test_fixture_models.h"

namespace fs = std::filesystem;
using namespace attnscope;
using attnscope::test::check_close;
using attnscope::test::expect_error;

namespace {

const std::string kFixtures = std::string(ATTNSCOPE_FIXTURES_DIR) + "/seq2seq";

using test::ints;

Seq2Seq load(const std::string& model, WeightPrecision precision = WeightPrecision::F32) {
  const std::string dir = kFixtures + "/" + model;
  const Seq2SeqConfig config = parse_seq2seq_config(test::read_text(dir + "/config.json"));
  const auto bytes = test::read_bytes(dir + "/model.safetensors");
  const SafeTensors tensors(bytes.data(), bytes.size());
  return Seq2Seq(config, load_seq2seq_weights(config, tensors, precision));
}

nlohmann::json inputs_of(const std::string& model) {
  return nlohmann::json::parse(test::read_text(kFixtures + "/" + model + "/inputs.json"));
}

int32_t argmax(const float* v, size_t n) { return static_cast<int32_t>(std::max_element(v, v + n) - v); }

void check_model(const std::string& model, const Seq2Seq& m, std::map<std::string, double>& worst) {
  INFO("fixture " << model);
  const Seq2SeqConfig& c = m.config();
  const nlohmann::json in = inputs_of(model);
  const EncoderOutput enc = m.encode(ints(in["source_ids"]));
  KvCache cache;
  const DecoderOutput dec = m.decode(ints(in["decoder_input_ids"]), enc, cache);
  const auto bytes = test::read_bytes(kFixtures + "/" + model + "/expected.safetensors");
  const SafeTensors expected(bytes.data(), bytes.size());
  const int64_t S = enc.source_len, T = dec.tokens, C = c.d_model, V = c.vocab_size;
  const int64_t Le = c.encoder_layers, He = c.encoder_heads, Ld = c.decoder_layers, Hd = c.decoder_heads;
  auto check = [&](const std::string& what, const std::vector<float>& got, const std::vector<int64_t>& shape,
                   const std::vector<std::string>& axes, double tol) {
    worst[what] = std::max(worst[what], check_close(model + " " + what, expected.to_f32(what, shape), got, shape,
                                                    axes, tol));
  };
  const std::vector<std::string> lhij = {"layer", "head", "row", "col"};
  check("encoder_attentions", enc.attentions, {Le, He, S, S}, lhij, 1e-4);
  check("decoder_attentions", dec.self_attentions, {Ld, Hd, T, T}, lhij, 1e-4);
  check("cross_attentions", dec.cross_attentions, {Ld, Hd, T, S}, lhij, 1e-4);
  check("encoder_hidden", enc.hidden, {S, C}, {"token", "channel"}, 1e-3);
  check("hidden", dec.hidden, {T, C}, {"token", "channel"}, 1e-3);
  check("logits", m.logits(dec.hidden.data(), static_cast<int>(T)), {T, V}, {"token", "vocab"}, 1e-3);
  for (int64_t lh = 0; lh < Ld * Hd; ++lh)  // causal: exactly zero above the diagonal
    for (int64_t i = 0; i < T; ++i)
      for (int64_t j = i + 1; j < T; ++j) REQUIRE(dec.self_attentions[(lh * T + i) * T + j] == 0.0f);
}

}  // namespace

TEST_CASE("seq2seq golden: every listed fixture matches the float64 PyTorch reference", "[engine][golden][seq2seq]") {
  const auto models = test::listed_names(kFixtures + "/models.txt");
  REQUIRE(models.size() >= 5);
  std::map<std::string, double> worst;
  for (const auto& model : models) {
    std::map<std::string, double> mine;
    check_model(model, load(model), mine);
    std::cout << "  " << model << ": attentions (enc/dec/cross) " << mine["encoder_attentions"] << " / "
              << mine["decoder_attentions"] << " / " << mine["cross_attentions"] << ", hidden " << mine["hidden"]
              << ", logits " << mine["logits"] << "\n";
    for (const auto& [what, e] : mine) worst[what] = std::max(worst[what], e);
  }
  std::cout << "seq2seq golden: worst absolute error per output over " << models.size() << " fixtures:";
  for (const auto& [what, e] : worst) std::cout << " " << what << " " << e;
  std::cout << "\n";
}

TEST_CASE("seq2seq golden: f16 weight precision stays within tolerance", "[engine][golden][seq2seq]") {
  std::map<std::string, double> worst;
  for (const std::string model : {"marian_f16", "t5v11_gated_untied_bf16", "bart_untied_bf16"})
    check_model(model, load(model, WeightPrecision::F16), worst);
}

TEST_CASE("seq2seq: decoding step by step over the cache equals one pass", "[engine][golden][seq2seq]") {
  for (const auto& model : test::listed_names(kFixtures + "/models.txt")) {
    INFO("fixture " << model);
    const Seq2Seq m = load(model);
    const nlohmann::json in = inputs_of(model);
    const EncoderOutput enc = m.encode(ints(in["source_ids"]));
    const std::vector<int32_t> target = ints(in["decoder_input_ids"]);
    KvCache whole_cache, steps;
    const DecoderOutput whole = m.decode(target, enc, whole_cache);
    const int T = static_cast<int>(target.size()), S = enc.source_len, C = m.config().d_model;
    const int L = m.config().decoder_layers, H = m.config().decoder_heads;
    // A two-token prompt, then one token at a time.
    for (int first = 0; first < T;) {
      const int n = first == 0 ? 2 : 1;
      const DecoderOutput step = m.decode({target.begin() + first, target.begin() + first + n}, enc, steps);
      REQUIRE(step.keys == first + n);
      for (int i = 0; i < n; ++i) {
        const int t = first + i;
        for (int c = 0; c < C; ++c)
          CHECK(std::fabs(step.hidden[i * C + c] - whole.hidden[t * C + c]) <= 1e-5f);
        for (int lh = 0; lh < L * H; ++lh) {
          for (int j = 0; j < first + n; ++j)
            CHECK(std::fabs(step.self_attentions[(static_cast<size_t>(lh) * n + i) * (first + n) + j] -
                            whole.self_attentions[(static_cast<size_t>(lh) * T + t) * T + j]) <= 1e-6f);
          for (int j = 0; j < S; ++j)
            CHECK(std::fabs(step.cross_attentions[(static_cast<size_t>(lh) * n + i) * S + j] -
                            whole.cross_attentions[(static_cast<size_t>(lh) * T + t) * S + j]) <= 1e-6f);
        }
      }
      first += n;
    }
    CHECK(steps.length == T);
  }
}

TEST_CASE("seq2seq: greedy decoding over the cache gives the reference's ids", "[engine][golden][seq2seq]") {
  for (const auto& model : test::listed_names(kFixtures + "/models.txt")) {
    INFO("fixture " << model);
    const Seq2Seq m = load(model);
    const nlohmann::json g = inputs_of(model)["greedy"];
    const EncoderOutput enc = m.encode(ints(g["source_ids"]));
    KvCache cache;
    std::vector<int32_t> ids = {m.config().decoder_start_token_id};
    for (int step = 0; step < g["max_new_tokens"].get<int>(); ++step) {
      const DecoderOutput out = m.decode({ids.back()}, enc, cache);
      const std::vector<float> logits = m.logits(out.hidden.data(), 1);
      ids.push_back(argmax(logits.data(), logits.size()));
      if (ids.back() == m.config().eos_token_id) break;
    }
    CHECK(ids == ints(g["ids"]));
  }
}

TEST_CASE("seq2seq bad input: empty, too long, out of vocab, a foreign encoder output", "[engine][seq2seq]") {
  const Seq2Seq bart = load("bart_f32");
  expect_error([&] { bart.encode({}); }, "E_INPUT", "no source tokens");
  expect_error([&] { bart.encode(std::vector<int32_t>(25, 5)); }, "E_INPUT", "max_position_embeddings");
  expect_error([&] { bart.encode({5, 41}); }, "E_INPUT", "token id 41 at position 1");
  const EncoderOutput enc = bart.encode({5, 6, 7});
  KvCache cache;
  expect_error([&] { bart.decode({}, enc, cache); }, "E_INPUT", "no target tokens");
  expect_error([&] { bart.decode({-1}, enc, cache); }, "E_INPUT", "token id -1");
  bart.decode(std::vector<int32_t>(20, 2), enc, cache);
  expect_error([&] { bart.decode(std::vector<int32_t>(5, 2), enc, cache); }, "E_INPUT", "20 + 5 target positions");
  CHECK(cache.length == 20);
  const Seq2Seq t5 = load("t5_relu_tied_f32");
  KvCache t5_cache;
  expect_error([&] { t5.decode({0}, enc, t5_cache); }, "E_INPUT", "encoder output is not this model's");
  expect_error([&] { t5.decode({0}, EncoderOutput{}, t5_cache); }, "E_INPUT", "encoder output");
}

TEST_CASE("seq2seq config: keys read as transformers reads them", "[engine][config][seq2seq]") {
  const Seq2SeqConfig t5 = parse_seq2seq_config(R"({"model_type": "t5", "d_model": 8, "d_kv": 3, "num_heads": 5,
      "d_ff": 7, "num_layers": 2, "vocab_size": 20, "feed_forward_proj": "gated-gelu"})");
  CHECK(t5.family == Seq2SeqFamily::T5);
  CHECK(t5.decoder_layers == 2);  // num_decoder_layers defaults to num_layers
  CHECK(t5.encoder_head_dim() == 3);
  CHECK(t5.gated_ffn);
  CHECK(t5.activation == "gelu_new");  // transformers' special case of gated-gelu
  CHECK(t5.eps == 1e-6);
  CHECK(t5.num_buckets == 32);
  CHECK(t5.max_distance == 128);
  CHECK(t5.tie_word_embeddings);
  CHECK(t5.decoder_start_token_id == 0);
  const Seq2SeqConfig marian = parse_seq2seq_config(R"({"model_type": "marian", "d_model": 8,
      "encoder_attention_heads": 2, "decoder_attention_heads": 2, "vocab_size": 20, "pad_token_id": 19,
      "activation_function": "swish", "scale_embedding": true})");
  CHECK(marian.decoder_start_token_id == 19);  // MarianConfig: decoder_start_token_id = pad_token_id
  CHECK(marian.eos_token_id == 0);
  CHECK(marian.max_position_embeddings == 1024);
  // Keys of transformers 3.x's Marian conversions that MarianMTModel never reads.
  CHECK_NOTHROW(parse_seq2seq_config(R"({"model_type": "marian", "d_model": 8, "encoder_attention_heads": 2,
      "decoder_attention_heads": 2, "vocab_size": 20, "pad_token_id": 19, "extra_pos_embeddings": 20,
      "add_bias_logits": true, "static_position_embeddings": true, "normalize_embedding": false,
      "normalize_before": false, "add_final_layer_norm": false})"));
  const Seq2SeqConfig bart = parse_seq2seq_config(R"({"model_type": "bart", "d_model": 8,
      "encoder_attention_heads": 2, "decoder_attention_heads": 4, "vocab_size": 20, "normalize_before": false})");
  CHECK(bart.decoder_start_token_id == 2);
  CHECK(bart.decoder_head_dim() == 2);
  CHECK(is_seq2seq_config(R"({"model_type": "t5"})"));
  CHECK_FALSE(is_seq2seq_config(R"({"model_type": "bert"})"));
  CHECK_FALSE(is_seq2seq_config("not json"));
}

TEST_CASE("seq2seq config: keys the engine does not implement are refused by name", "[engine][config][seq2seq]") {
  const std::string bart = R"({"model_type": "bart", "d_model": 8, "encoder_attention_heads": 2,
      "decoder_attention_heads": 2, "vocab_size": 20, )";
  const std::string t5 = R"({"model_type": "t5", "d_model": 8, "d_kv": 4, "num_heads": 2, "vocab_size": 20, )";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {bart + R"("normalize_before": true})", "normalize_before"},
      {bart + R"("add_final_layer_norm": true})", "add_final_layer_norm"},
      {bart + R"("normalize_embedding": false})", "normalize_embedding"},
      {bart + R"("static_position_embeddings": true})", "static_position_embeddings"},
      {bart + R"("add_bias_logits": true})", "add_bias_logits"},
      {bart + R"("extra_pos_embeddings": 0})", "extra_pos_embeddings"},
      {bart + R"("share_encoder_decoder_embeddings": false})", "share_encoder_decoder_embeddings"},
      {bart + R"("activation_function": "tanh"})", "activation_function"},
      {bart + R"("encoder_attention_heads": 3})", "encoder_attention_heads"},
      {bart + R"("decoder_start_token_id": 20})", "decoder_start_token_id"},
      {bart + R"("is_encoder_decoder": false})", "is_encoder_decoder"},
      {t5 + R"("feed_forward_proj": "gated-tanh"})", "feed_forward_proj"},
      {t5 + R"("feed_forward_proj": "gated-gated-gelu"})", "feed_forward_proj"},
      {t5 + R"("relative_attention_num_buckets": 2})", "relative_attention_num_buckets"},
      {t5 + R"("relative_attention_max_distance": 16})", "relative_attention_max_distance"},
      {t5 + R"("layer_norm_epsilon": 0})", "layer_norm_epsilon"},
      {t5 + R"("feed_forward_proj": "gated-gelu", "dense_act_fn": "relu"})", "dense_act_fn"},
      {t5 + R"("is_gated_act": true})", "is_gated_act"},
      {t5 + R"("d_kv": 1.5})", "d_kv"},
      {R"({"model_type": "mbart"})", "model_type"},
      {"[1]", "JSON object"},
  };
  for (const auto& entry : cases) {
    const std::string& text = entry.first;
    INFO(text);
    expect_error([&] { parse_seq2seq_config(text); }, "E_CONFIG", entry.second);
  }
}

TEST_CASE("seq2seq weights: a missing or misshapen tensor is named", "[engine][seq2seq]") {
  const std::string dir = kFixtures + "/t5_relu_tied_f32";
  Seq2SeqConfig config = parse_seq2seq_config(test::read_text(dir + "/config.json"));
  const auto bytes = test::read_bytes(dir + "/model.safetensors");
  const SafeTensors tensors(bytes.data(), bytes.size());
  config.gated_ffn = true;
  expect_error([&] { load_seq2seq_weights(config, tensors); }, "E_WEIGHTS", "DenseReluDense.wi_1.weight");
  config = parse_seq2seq_config(test::read_text(dir + "/config.json"));
  config.tie_word_embeddings = false;
  expect_error([&] { load_seq2seq_weights(config, tensors); }, "E_WEIGHTS", "lm_head.weight");
  config = parse_seq2seq_config(test::read_text(dir + "/config.json"));
  config.d_kv = 5;
  expect_error([&] { load_seq2seq_weights(config, tensors); }, "E_WEIGHTS", "SelfAttention.q.weight");
}

TEST_CASE("seq2seq config: published checkpoints' key sets parse as transformers reads them", "[engine][config][seq2seq]") {
  // Key sets as t5-small, google/flan-t5-small, facebook/bart-base and Helsinki-NLP/opus-mt-en-de
  // publish them (task and generation keys left out: they do not change the forward pass).
  const Seq2SeqConfig t5 = parse_seq2seq_config(R"({"architectures": ["T5ForConditionalGeneration"], "d_ff": 2048,
      "d_kv": 64, "d_model": 512, "decoder_start_token_id": 0, "dropout_rate": 0.1, "eos_token_id": 1,
      "initializer_factor": 1.0, "is_encoder_decoder": true, "layer_norm_epsilon": 1e-06, "model_type": "t5",
      "n_positions": 512, "num_heads": 8, "num_layers": 6, "output_past": true, "pad_token_id": 0,
      "relative_attention_num_buckets": 32, "vocab_size": 32128})");
  CHECK((t5.encoder_layers == 6 && t5.decoder_layers == 6 && t5.activation == "relu" && !t5.gated_ffn));
  CHECK(t5.tie_word_embeddings);
  const Seq2SeqConfig flan = parse_seq2seq_config(R"({"architectures": ["T5ForConditionalGeneration"], "d_ff": 1024,
      "d_kv": 64, "d_model": 512, "decoder_start_token_id": 0, "dense_act_fn": "gelu_new", "dropout_rate": 0.1,
      "eos_token_id": 1, "feed_forward_proj": "gated-gelu", "initializer_factor": 1.0, "is_encoder_decoder": true,
      "is_gated_act": true, "layer_norm_epsilon": 1e-06, "model_type": "t5", "n_positions": 512,
      "num_decoder_layers": 8, "num_heads": 6, "num_layers": 8, "pad_token_id": 0,
      "relative_attention_max_distance": 128, "relative_attention_num_buckets": 32, "tie_word_embeddings": false,
      "vocab_size": 32128})");
  CHECK((flan.gated_ffn && flan.activation == "gelu_new" && !flan.tie_word_embeddings));
  CHECK(flan.encoder_heads * flan.encoder_head_dim() == 384);  // ≠ d_model 512
  const Seq2SeqConfig bart = parse_seq2seq_config(R"({"activation_function": "gelu", "add_bias_logits": false,
      "add_final_layer_norm": false, "architectures": ["BartModel"], "bos_token_id": 0, "d_model": 768,
      "decoder_attention_heads": 12, "decoder_ffn_dim": 3072, "decoder_layers": 6, "decoder_start_token_id": 2,
      "encoder_attention_heads": 12, "encoder_ffn_dim": 3072, "encoder_layers": 6, "eos_token_id": 2,
      "is_encoder_decoder": true, "max_position_embeddings": 1024, "model_type": "bart", "normalize_before": false,
      "normalize_embedding": true, "pad_token_id": 1, "scale_embedding": false, "vocab_size": 50265})");
  CHECK((bart.decoder_start_token_id == 2 && bart.encoder_head_dim() == 64 && !bart.scale_embedding));
  const Seq2SeqConfig marian = parse_seq2seq_config(R"({"activation_function": "swish", "add_bias_logits": false,
      "add_final_layer_norm": false, "architectures": ["MarianMTModel"], "bos_token_id": 0, "d_model": 512,
      "decoder_attention_heads": 8, "decoder_ffn_dim": 2048, "decoder_layers": 6, "decoder_start_token_id": 58100,
      "encoder_attention_heads": 8, "encoder_ffn_dim": 2048, "encoder_layers": 6, "eos_token_id": 0,
      "extra_pos_embeddings": 58101, "is_encoder_decoder": true, "max_position_embeddings": 512,
      "model_type": "marian", "normalize_before": false, "normalize_embedding": false, "pad_token_id": 58100,
      "scale_embedding": true, "static_position_embeddings": true, "vocab_size": 58101})");
  CHECK((marian.decoder_start_token_id == 58100 && marian.scale_embedding && marian.activation == "swish"));
}

// decode(…, trace = true): the traced pass gives the same outputs bit for bit, each family's steps
// (post-LN: the *_norm steps; T5: the *_input_norm steps and the final norm), each Add consistent
// with its sublayer's output, and the trace ends in the hidden state. The values against float64
// PyTorch: tests/js/seq2seq-trace.test.js.
TEST_CASE("seq2seq trace: same outputs, each family's steps, adds that add up", "[engine][seq2seq][trace]") {
  for (const auto& model : test::listed_names(kFixtures + "/models.txt")) {
    INFO("fixture " << model);
    const Seq2Seq m = load(model);
    const nlohmann::json in = inputs_of(model);
    const EncoderOutput enc = m.encode(ints(in["source_ids"]));
    KvCache plain_cache, traced_cache;
    const DecoderOutput plain = m.decode(ints(in["decoder_input_ids"]), enc, plain_cache);
    Seq2SeqRunOptions traced_run;
    traced_run.trace = true;
    const DecoderOutput traced = m.decode(ints(in["decoder_input_ids"]), enc, traced_cache, traced_run);
    CHECK(plain.trace.layers.empty());
    CHECK(traced.hidden == plain.hidden);
    CHECK(traced.self_attentions == plain.self_attentions);
    CHECK(traced.cross_attentions == plain.cross_attentions);
    const Seq2SeqConfig& c = m.config();
    const size_t TC = static_cast<size_t>(traced.tokens) * c.d_model;
    const bool t5 = c.pre_norm();
    REQUIRE(traced.trace.layers.size() == static_cast<size_t>(c.decoder_layers));
    CHECK(traced.trace.embeddings.size() == TC);
    const std::vector<float>* input = &traced.trace.embeddings;
    for (const Seq2SeqDecoderLayerTrace& y : traced.trace.layers) {
      CHECK(y.self_attention_input_norm.size() == (t5 ? TC : 0));
      CHECK(y.self_attention_norm.size() == (t5 ? 0 : TC));
      CHECK(y.cross_attention_input_norm.size() == (t5 ? TC : 0));
      CHECK(y.ffn_input_norm.size() == (t5 ? TC : 0));
      CHECK(y.ffn_pre_activation.size() == static_cast<size_t>(traced.tokens) * c.decoder_ffn);
      CHECK(y.ffn_intermediate.size() == y.ffn_pre_activation.size());
      const std::vector<float>& after_self = t5 ? y.self_attention_residual : y.self_attention_norm;
      const std::vector<float>& after_cross = t5 ? y.cross_attention_residual : y.cross_attention_norm;
      for (size_t i = 0; i < TC; ++i) {
        CHECK(std::fabs((*input)[i] + y.self_attention_output[i] - y.self_attention_residual[i]) <= 1e-5f);
        CHECK(std::fabs(after_self[i] + y.cross_attention_output[i] - y.cross_attention_residual[i]) <= 1e-5f);
        CHECK(std::fabs(after_cross[i] + y.ffn_output[i] - y.ffn_residual[i]) <= 1e-5f);
      }
      input = &y.output;
    }
    CHECK((t5 ? traced.trace.final_norm : traced.trace.layers.back().output) == traced.hidden);
  }
}

// weightPrecision q8: the seq2seq linear layers are the other families' LinearLayer, quantized to
// int8 per output channel. Judged against the same model at f32 (itself checked against PyTorch
// above): loads from F32, F16 and BF16 files; the decoder's hidden state within 5% (relative L2)
// and every attention probability within 0.15 (up to 0.135 measured: these fixtures are 10–18
// channels wide, so a token's activations quantize over few values, and T5's unscaled q·k at the
// fixtures' weight scales is sharp; tests/js/seq2seq.test.js has the figures); the cached steps
// equal one q8 pass (each activation row is quantized on its own).
TEST_CASE("seq2seq q8: every fixture loads, stays near f32, and steps over the cache as one pass", "[engine][seq2seq][q8]") {
  for (const auto& model : test::listed_names(kFixtures + "/models.txt")) {
    INFO("fixture " << model);
    const Seq2Seq f32 = load(model), q8 = load(model, WeightPrecision::Q8);
    const nlohmann::json in = inputs_of(model);
    const std::vector<int32_t> target = ints(in["decoder_input_ids"]);
    const EncoderOutput ea = f32.encode(ints(in["source_ids"])), eb = q8.encode(ints(in["source_ids"]));
    KvCache ca, cb;
    const DecoderOutput da = f32.decode(target, ea, ca), db = q8.decode(target, eb, cb);
    auto near = [](const char* what, const std::vector<float>& a, const std::vector<float>& b, double tol) {
      REQUIRE(a.size() == b.size());
      double worst = 0;
      for (size_t i = 0; i < a.size(); ++i) {
        REQUIRE(std::isfinite(b[i]));
        worst = std::max(worst, static_cast<double>(std::fabs(a[i] - b[i])));
      }
      INFO(what << ": max |q8 - f32| " << worst);
      CHECK(worst > 0);  // really quantized, not f32 under another name
      CHECK(worst < tol);
    };
    near("encoder_attentions", ea.attentions, eb.attentions, 0.15);
    near("decoder_attentions", da.self_attentions, db.self_attentions, 0.15);
    near("cross_attentions", da.cross_attentions, db.cross_attentions, 0.15);
    double num = 0, den = 0;
    for (size_t i = 0; i < da.hidden.size(); ++i) {
      num += (double(db.hidden[i]) - da.hidden[i]) * (double(db.hidden[i]) - da.hidden[i]);
      den += double(da.hidden[i]) * da.hidden[i];
    }
    INFO("hidden: relative L2 |q8 - f32| " << std::sqrt(num / den));
    CHECK(std::sqrt(num / den) <= 0.05);
    const int T = static_cast<int>(target.size()), C = q8.config().d_model;
    const std::vector<float> logits = q8.logits(db.hidden.data(), T);
    CHECK(std::all_of(logits.begin(), logits.end(), [](float x) { return std::isfinite(x); }));
    KvCache steps;
    for (int t = 0; t < T; ++t) {
      const DecoderOutput step = q8.decode({target[t]}, eb, steps);
      for (int c = 0; c < C; ++c) CHECK(std::fabs(step.hidden[c] - db.hidden[t * C + c]) <= 1e-5f);
    }
  }
}

// Hugging Face's head_mask, decoder_head_mask and cross_attn_head_mask (a head off, one halved, one
// doubled in each) against the float64 reference run with the same masks.
TEST_CASE("seq2seq head masks: every stack's mask matches the float64 reference", "[engine][golden][seq2seq]") {
  for (const auto& model : test::listed_names(kFixtures + "/models.txt")) {
    INFO("fixture " << model);
    const Seq2Seq m = load(model);
    const Seq2SeqConfig& c = m.config();
    const nlohmann::json in = inputs_of(model), masks = in["head_masks"];
    auto flat = [](const nlohmann::json& rows) {
      std::vector<float> out;
      for (const auto& row : rows)
        for (float v : row.get<std::vector<float>>()) out.push_back(v);
      return out;
    };
    Seq2SeqRunOptions options;
    options.head_mask = flat(masks["head_mask"]);
    options.decoder_head_mask = flat(masks["decoder_head_mask"]);
    options.cross_attn_head_mask = flat(masks["cross_attn_head_mask"]);
    const EncoderOutput enc = m.encode(ints(in["source_ids"]), options);
    KvCache cache;
    const DecoderOutput dec = m.decode(ints(in["decoder_input_ids"]), enc, cache, options);
    const auto bytes = test::read_bytes(kFixtures + "/" + model + "/" + masks["expected"].get<std::string>());
    const SafeTensors expected(bytes.data(), bytes.size());
    const int64_t S = enc.source_len, T = dec.tokens, C = c.d_model, V = c.vocab_size;
    check_close(model + " encoder_hidden", expected.to_f32("encoder_hidden", {S, C}), enc.hidden, {S, C},
                {"token", "channel"}, 1e-3);
    check_close(model + " hidden", expected.to_f32("hidden", {T, C}), dec.hidden, {T, C}, {"token", "channel"}, 1e-3);
    check_close(model + " logits", expected.to_f32("logits", {T, V}), m.logits(dec.hidden.data(), static_cast<int>(T)),
                {T, V}, {"token", "vocab"}, 1e-3);
    // The masks matter: the unmasked reference is far from the masked run.
    const auto plain_bytes = test::read_bytes(kFixtures + "/" + model + "/expected.safetensors");
    const SafeTensors plain(plain_bytes.data(), plain_bytes.size());
    CHECK(test::worst(plain.to_f32("hidden", {T, C}), dec.hidden).max_error > 1e-2);
  }
  const Seq2Seq bart = load("bart_f32");
  Seq2SeqRunOptions ragged;
  ragged.head_mask = {1.0f, 0.0f, 1.0f};
  expect_error([&] { bart.encode({5, 6, 7}, ragged); }, "E_INPUT", "head_mask has 3 values for 2 layers");
}

// Hook points of both stacks (hooks.h): reading every site changes nothing and reads the trace's
// values; the encoder's layer-0 input written from another source makes that source's run.
TEST_CASE("seq2seq hooks: reads change nothing, reads equal the trace, a written residual patches", "[engine][seq2seq][hooks]") {
  for (const std::string model : {"bart_f32", "t5_gated_f16"}) {
    INFO("fixture " << model);
    const Seq2Seq m = load(model);
    const Seq2SeqConfig& c = m.config();
    const nlohmann::json in = inputs_of(model);
    const std::vector<int32_t> src = ints(in["source_ids"]), tgt = ints(in["decoder_input_ids"]);
    std::map<std::string, std::vector<float>> seen;
    Hooks read;
    for (HookStack stack : {HookStack::Encoder, HookStack::Decoder})
      for (int site = 0; site < static_cast<int>(HookSite::kCount); ++site) {
        const bool cross = site >= static_cast<int>(HookSite::CrossZ) && site <= static_cast<int>(HookSite::ResidMidCross);
        if (cross && stack == HookStack::Encoder) continue;
        for (int l = 0; l < (stack == HookStack::Encoder ? c.encoder_layers : c.decoder_layers); ++l)
          read.add({stack, static_cast<HookSite>(site), l}, [&seen](const HookPoint& p, HookTensor& t) {
            seen[hook_name(p)].assign(t.data, t.data + static_cast<size_t>(t.rows) * t.width);
          }, false);
      }
    Seq2SeqRunOptions traced, hooked;
    traced.trace = hooked.trace = true;
    hooked.hooks = &read;
    KvCache c1, c2;
    const EncoderOutput e1 = m.encode(src, traced), e2 = m.encode(src, hooked);
    const DecoderOutput d1 = m.decode(tgt, e1, c1, traced), d2 = m.decode(tgt, e2, c2, hooked);
    CHECK(e2.hidden == e1.hidden);
    CHECK(d2.hidden == d1.hidden);
    CHECK(d2.cross_attentions == d1.cross_attentions);
    for (int l = 0; l < c.decoder_layers; ++l) {
      const std::string b = "decoder.blocks." + std::to_string(l) + ".";
      CHECK(seen[b + "hook_resid_post"] == d1.trace.layers[l].output);
      CHECK(seen[b + "hook_cross_attn_out"] == d1.trace.layers[l].cross_attention_output);
      CHECK(seen[b + "hook_resid_mid_cross"] == d1.trace.layers[l].cross_attention_residual);
      CHECK(seen[b + "hook_mlp_out"] == d1.trace.layers[l].ffn_output);
    }
    for (int l = 0; l < c.encoder_layers; ++l)
      CHECK(seen["encoder.blocks." + std::to_string(l) + ".hook_resid_post"] == e1.trace.layers[l].output);
    // Patching the encoder's input at every position with another source's.
    std::vector<int32_t> other = src;
    other[2] = other[2] == 5 ? 6 : 5;
    const std::vector<float> clean_input = seen["encoder.blocks.0.hook_resid_pre"];
    Hooks patch;
    patch.add("encoder.blocks.0.hook_resid_pre", [&](const HookPoint&, HookTensor& t) {
      std::copy(clean_input.begin(), clean_input.end(), t.data);
    }, true);
    Seq2SeqRunOptions patched;
    patched.hooks = &patch;
    CHECK(m.encode(other, patched).hidden == e1.hidden);
    CHECK(m.encode(other).hidden != e1.hidden);
  }
}
