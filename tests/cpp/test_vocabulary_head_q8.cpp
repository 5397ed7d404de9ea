// A q8 model's vocabulary head is int8 (vocabulary_head_q8.h): on every decoder and
// encoder–decoder fixture, the q8 model's logits of a few hidden rows are within the error int8
// weights allow of the exact product with the head they were quantized from (in double, from the
// matrix the model keeps as W_U), and they are not that product itself (the int8 head is the one
// read). The bound is the quantizer's definition, not a measured tolerance: a weight moves by at
// most half its row's step max|w|/127, so |x·ŵ − x·w| ≤ Σ |x_k|·Δw, plus the f32 sum of C
// products and the scale and bias (≤ (C + 3)·2⁻²⁴ of Σ |x_k·ŵ_k| + |bias|).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "config.h"
#include "half.h"
#include "safetensors.h"
#include "seq2seq.h"
#include "seq2seq_config.h"
#include "test_engine_support.h"
#include "transformer.h"
#include "weights.h"

namespace fs = std::filesystem;
using namespace attnscope;

namespace {

const std::string kFixtures = ATTNSCOPE_FIXTURES_DIR;

// Three rows of C values in [−2, 2] (the first all positive).
std::vector<float> hidden_rows(int C) {
  std::vector<float> h(static_cast<size_t>(3) * C);
  uint32_t s = 2024;
  for (size_t i = 0; i < h.size(); ++i) {
    s = s * 1103515245u + 12345u;
    const float u = static_cast<float>((s >> 8) % 4001) / 1000.0f - 2.0f;
    h[i] = i < static_cast<size_t>(C) ? std::fabs(u) : u;
  }
  return h;
}

float weight_at(const WeightMatrix& w, size_t i) { return w.is_f16() ? f16_to_f32(w.f16[i]) : w.f32[i]; }

// Checks logits (rows, V) of `hidden` (rows, C) times `scale` against W (V, C) and bias.
void check_head(const std::vector<float>& logits, const std::vector<float>& hidden, float scale, const WeightMatrix& w,
                const std::vector<float>& bias, int C, int V) {
  const int rows = static_cast<int>(hidden.size() / C);
  REQUIRE(logits.size() == static_cast<size_t>(rows) * V);
  int differ = 0;
  double worst_share = 0;  // the largest |error| / bound met
  for (int r = 0; r < rows; ++r) {
    std::vector<double> x(C);
    for (int k = 0; k < C; ++k)
      x[k] = static_cast<float>(hidden[static_cast<size_t>(r) * C + k] * scale);  // as logits() scales, in f32
    for (int n = 0; n < V; ++n) {
      double wmax = 0;
      for (int k = 0; k < C; ++k) wmax = std::max(wmax, std::fabs(static_cast<double>(weight_at(w, static_cast<size_t>(n) * C + k))));
      const double dw = wmax / 127 / 2 * (1 + 1e-6);
      const double b = bias.empty() ? 0.0 : bias[n];
      double exact = b, bound = 0, magnitude = std::fabs(b);
      for (int k = 0; k < C; ++k) {
        const double wk = weight_at(w, static_cast<size_t>(n) * C + k);
        exact += x[k] * wk;
        bound += std::fabs(x[k]) * dw;
        magnitude += std::fabs(x[k]) * (std::fabs(wk) + dw);
      }
      bound += (C + 3) * 0x1p-24 * magnitude;
      const double got = logits[static_cast<size_t>(r) * V + n], error = std::fabs(got - exact);
      INFO("row " << r << " logit " << n << ": " << got << " against " << exact << ", bound " << bound);
      REQUIRE(error <= bound);
      worst_share = std::max(worst_share, error / bound);
      if (error > 1e-5 * (1 + std::fabs(exact))) ++differ;
    }
  }
  INFO("largest error as a share of its bound " << worst_share);
  CHECK(differ > 0);  // int8, not the exact product
}

}  // namespace

TEST_CASE("q8 vocabulary head: decoders' logits within int8 error of their head", "[engine][q8][head]") {
  int checked = 0;
  for (const std::string sub : {"/engine", "/llama"})
    for (const auto& e : fs::directory_iterator(kFixtures + sub)) {
      if (!e.is_directory() || !fs::exists(e.path() / "model.safetensors")) continue;
      const ModelConfig config = parse_config(test::read_text((e.path() / "config.json").string()));
      if (!config.is_decoder()) continue;
      INFO("fixture " << e.path().string());
      const std::vector<uint8_t> bytes = test::read_bytes((e.path() / "model.safetensors").string());
      const SafeTensors tensors(bytes.data(), bytes.size());
      const Transformer q8(config, load_weights(config, tensors, WeightPrecision::Q8));
      const int C = config.hidden_size, V = config.vocab_size;
      const std::vector<float> h = hidden_rows(C);
      check_head(q8.lm_logits(h.data(), 3), h, 1.0f, q8.unembedding(), {}, C, V);
      ++checked;
    }
  CHECK(checked >= 6);
}

TEST_CASE("q8 vocabulary head: encoder–decoders' logits (scaled, biased, tied and untied)", "[engine][q8][head]") {
  for (const std::string name : {"bart_f32", "t5_relu_tied_f32", "t5v11_gated_untied_bf16", "marian_f16"}) {
    INFO("fixture " << name);
    const std::string dir = kFixtures + "/seq2seq/" + name;
    const Seq2SeqConfig config = parse_seq2seq_config(test::read_text(dir + "/config.json"));
    const std::vector<uint8_t> bytes = test::read_bytes(dir + "/model.safetensors");
    const SafeTensors tensors(bytes.data(), bytes.size());
    const Seq2Seq q8(config, load_seq2seq_weights(config, tensors, WeightPrecision::Q8));
    const std::vector<float> h = hidden_rows(config.d_model);
    check_head(q8.logits(h.data(), 3), h, q8.head_input_scale(), q8.unembedding(), q8.weights().final_logits_bias,
               config.d_model, config.vocab_size);
  }
}
