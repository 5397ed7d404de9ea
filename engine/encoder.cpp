// The BERT / DistilBERT forward pass on plain (T, C) row-major arrays, written as the paper reads:
// embeddings → per layer { multi-head self-attention → residual + LayerNorm → FFN → residual +
// LayerNorm }. The attention probabilities are written straight into the result (no copy); the
// optional outputs (Q/K/V, hidden states, value norms) are filled only when asked for.
#include "encoder.h"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <limits>

#include "error.h"
#include "half.h"
#include "kernels/activation.h"
#include "kernels/attention.h"
#include "kernels/layer_norm.h"
#include "kernels/linear.h"
#include "kernels/packed_linear_wasmsimd.h"

namespace attnscope {

namespace {

using kernels::Activation;
using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

Activation activation_for(const std::string& name) {
  if (name == "relu") return Activation::Relu;
  if (name == "gelu_new" || name == "gelu_pytorch_tanh" || name == "gelu_fast") return Activation::GeluTanh;
  return Activation::GeluErf;  // "gelu", "gelu_python"; parse_config rejected everything else
}

[[noreturn]] void bad_input(const std::string& message) { throw Error("E_INPUT", message); }

template <typename Values>  // std::vector<float> or WeightMatrix
void check_size(const Values& v, size_t expected, const std::string& what) {
  if (v.size() != expected)
    throw Error("E_WEIGHTS", what + " has " + std::to_string(v.size()) + " values, expected " +
                                 std::to_string(expected));
}

kernels::PackedLinear pack(WeightMatrix& w, std::vector<float>& bias, int in, int out) {
  return w.is_f16() ? kernels::pack_linear(std::move(w.f16), std::move(bias), in, out)
                    : kernels::pack_linear(std::move(w.f32), std::move(bias), in, out);
}

// Row `row` of a (rows, C) matrix as f32: a pointer into it, or (f16) widened into `scratch`.
const float* matrix_row(const WeightMatrix& m, size_t row, int C, std::vector<float>& scratch) {
  const size_t at = row * static_cast<size_t>(C);
  if (!m.is_f16()) return m.f32.data() + at;
  scratch.resize(C);
  f16_to_f32(scratch.data(), m.f16.data() + at, C);
  return scratch.data();
}

}  // namespace

Encoder::Encoder(ModelConfig config, ModelWeights weights)
    : config_(std::move(config)), weights_(std::move(weights)) {
  // Weights normally come from load_weights(), which already checked every shape; this guards the
  // forward pass against hand-built or mismatched ModelWeights (it indexes them without checks).
  const size_t C = config_.hidden_size, F = config_.intermediate_size, V = config_.vocab_size;
  check_size(weights_.word_emb, V * C, "word embeddings");
  check_size(weights_.pos_emb, static_cast<size_t>(config_.max_position_embeddings) * C, "position embeddings");
  check_size(weights_.type_emb, static_cast<size_t>(config_.type_vocab_size) * C, "token type embeddings");
  check_size(weights_.ln_emb_g, C, "embedding LayerNorm weight");
  check_size(weights_.ln_emb_b, C, "embedding LayerNorm bias");
  if (weights_.layers.size() != static_cast<size_t>(config_.num_layers))
    throw Error("E_WEIGHTS", "weights have " + std::to_string(weights_.layers.size()) +
                                 " layers, config says " + std::to_string(config_.num_layers));
  for (size_t l = 0; l < weights_.layers.size(); ++l) {
    const LayerWeights& L = weights_.layers[l];
    const std::string p = "layer " + std::to_string(l) + " ";
    for (auto* m : {&L.q_w, &L.k_w, &L.v_w, &L.o_w}) check_size(*m, C * C, p + "attention weight");
    for (auto* b : {&L.q_b, &L.k_b, &L.v_b, &L.o_b, &L.ln_attn_g, &L.ln_attn_b, &L.ff_o_b, &L.ln_out_g,
                    &L.ln_out_b})
      check_size(*b, C, p + "bias / LayerNorm vector");
    check_size(L.ff_i_w, F * C, p + "FFN input weight");
    check_size(L.ff_i_b, F, p + "FFN input bias");
    check_size(L.ff_o_w, C * F, p + "FFN output weight");
  }
  if (weights_.has_mlm_head) {
    const MlmHeadWeights& m = weights_.mlm;
    check_size(m.dense_w, C * C, "MLM transform weight");
    for (auto* b : {&m.dense_b, &m.ln_g, &m.ln_b}) check_size(*b, C, "MLM transform vector");
    if (!m.decoder_w.empty()) check_size(m.decoder_w, V * C, "MLM decoder weight");  // empty: tied
    check_size(m.bias, V, "MLM decoder bias");
  }

  // Pack each layer's linear weights once for the GEMM; pack_linear consumes the vectors.
  const int Ci = static_cast<int>(C), Fi = static_cast<int>(F);
  packed_.reserve(weights_.layers.size());
  for (LayerWeights& L : weights_.layers) {
    PackedLayer p;
    p.q = pack(L.q_w, L.q_b, Ci, Ci);
    p.k = pack(L.k_w, L.k_b, Ci, Ci);
    p.v = pack(L.v_w, L.v_b, Ci, Ci);
    p.o = pack(L.o_w, L.o_b, Ci, Ci);
    p.ff_i = pack(L.ff_i_w, L.ff_i_b, Ci, Fi);
    p.ff_o = pack(L.ff_o_w, L.ff_o_b, Fi, Ci);
    packed_.push_back(std::move(p));
  }
}

ForwardResult Encoder::forward(const std::vector<int32_t>& ids, const std::vector<int32_t>& token_types,
                               const std::vector<int32_t>& attention_mask,
                               const ForwardOptions& options) const {
  ForwardResult result;
  ForwardWorkspace workspace;
  forward(ids, token_types, attention_mask, options, result, workspace);
  return result;
}

void Encoder::forward(const std::vector<int32_t>& ids, const std::vector<int32_t>& token_types,
                      const std::vector<int32_t>& attention_mask, const ForwardOptions& options,
                      ForwardResult& res, ForwardWorkspace& ws) const {
  const ModelConfig& cfg = config_;
  const bool distil = cfg.family == Family::DistilBert;

  // ---- input validation (E_INPUT) -------------------------------------------------------------
  if (ids.empty()) bad_input("no tokens: a forward pass needs at least one token id");
  if (ids.size() > static_cast<size_t>(cfg.max_position_embeddings))
    bad_input(std::to_string(ids.size()) + " tokens is more than max_position_embeddings = " +
              std::to_string(cfg.max_position_embeddings));
  const int T = static_cast<int>(ids.size());
  if (!token_types.empty() && token_types.size() != ids.size())
    bad_input("token_types has " + std::to_string(token_types.size()) + " entries for " +
              std::to_string(T) + " token ids");
  if (!attention_mask.empty() && attention_mask.size() != ids.size())
    bad_input("attention_mask has " + std::to_string(attention_mask.size()) + " entries for " +
              std::to_string(T) + " token ids");
  for (int t = 0; t < T; ++t) {
    if (ids[t] < 0 || ids[t] >= cfg.vocab_size)
      bad_input("token id " + std::to_string(ids[t]) + " at position " + std::to_string(t) +
                " is out of vocab range [0, " + std::to_string(cfg.vocab_size) + ")");
    if (!token_types.empty()) {
      const int32_t tt = token_types[t];
      if (distil && tt != 0)
        bad_input("token type " + std::to_string(tt) + " at position " + std::to_string(t) +
                  ": DistilBERT has no token types (all must be 0)");
      if (!distil && (tt < 0 || tt >= cfg.type_vocab_size))
        bad_input("token type " + std::to_string(tt) + " at position " + std::to_string(t) +
                  " is out of range [0, " + std::to_string(cfg.type_vocab_size) + ")");
    }
    if (!attention_mask.empty() && attention_mask[t] != 0 && attention_mask[t] != 1)
      bad_input("attention_mask value " + std::to_string(attention_mask[t]) + " at position " +
                std::to_string(t) + " is not 0 or 1");
  }

  const int C = cfg.hidden_size, H = cfg.num_heads, dh = cfg.head_dim(), F = cfg.intermediate_size;
  const int L = cfg.num_layers;
  const size_t TC = static_cast<size_t>(T) * C, TT = static_cast<size_t>(T) * T;
  const Activation act = activation_for(cfg.hidden_act);
  const float eps = static_cast<float>(cfg.layer_norm_eps);

  // Buffers are resized, never reallocated smaller (resize keeps capacity), and every element
  // is overwritten below, so a reused result needs no clearing.
  res.layers = L;
  res.heads = H;
  res.tokens = T;
  res.hidden = C;
  res.head_dim = dh;
  const size_t qkv_size = static_cast<size_t>(L) * TC;  // (L, H, T, dh) has L·T·C values
  res.attentions.resize(options.attentions ? static_cast<size_t>(L) * H * TT : 0);
  res.hidden_states.resize(options.hidden_states ? static_cast<size_t>(L + 1) * TC : 0);
  res.q.resize(options.qkv ? qkv_size : 0);
  res.k.resize(options.qkv ? qkv_size : 0);
  res.v.resize(options.qkv ? qkv_size : 0);
  res.value_norms.resize(options.value_norms ? static_cast<size_t>(L) * H * T : 0);

  // Padding mask as an additive key bias: −inf removes the key from every query's softmax.
  std::vector<float> key_bias;
  if (std::find(attention_mask.begin(), attention_mask.end(), 0) != attention_mask.end()) {
    key_bias.resize(T);
    for (int t = 0; t < T; ++t)
      key_bias[t] = attention_mask[t] ? 0.0f : -std::numeric_limits<float>::infinity();
  }

  // ---- embeddings: word + position (+ token type), then LayerNorm ----------------------------
  const ModelWeights& w = weights_;
  std::vector<float>& x = res.hidden_out;  // the running hidden state ends as the output
  x.resize(TC);
  std::vector<float> row;
  for (int t = 0; t < T; ++t) {
    float* xt = x.data() + static_cast<size_t>(t) * C;
    const float* we = matrix_row(w.word_emb, static_cast<size_t>(ids[t]), C, row);
    const float* pe = w.pos_emb.data() + static_cast<size_t>(t) * C;
    for (int c = 0; c < C; ++c) xt[c] = we[c] + pe[c];
    if (!distil) {
      const float* te = w.type_emb.data() + static_cast<size_t>(token_types.empty() ? 0 : token_types[t]) * C;
      for (int c = 0; c < C; ++c) xt[c] += te[c];
    }
  }
  kernels::layer_norm_f32(x.data(), x.data(), w.ln_emb_g.data(), w.ln_emb_b.data(), T, C, eps);
  if (options.hidden_states) std::copy(x.begin(), x.end(), res.hidden_states.begin());

  // ---- layers -------------------------------------------------------------------------------
  for (auto* buffer : {&ws.q, &ws.k, &ws.v, &ws.ctx, &ws.tmp}) buffer->resize(TC);
  ws.ff.resize(static_cast<size_t>(T) * F);
  ws.scratch_probs.resize(options.attentions ? 0 : TT);
  ws.head_out.resize(options.value_norms ? TC : 0);
  std::vector<float>&q = ws.q, &k = ws.k, &v = ws.v, &ctx = ws.ctx, &tmp = ws.tmp, &ff = ws.ff;
  std::vector<float>&scratch_probs = ws.scratch_probs, &head_out = ws.head_out;
  for (int l = 0; l < L; ++l) {
    const LayerWeights& lw = w.layers[l];
    const PackedLayer& pl = packed_[l];
    kernels::linear_packed_f32(q.data(), x.data(), pl.q, T);
    kernels::linear_packed_f32(k.data(), x.data(), pl.k, T);
    kernels::linear_packed_f32(v.data(), x.data(), pl.v, T);

    for (int h = 0; h < H; ++h) {
      const size_t lh = static_cast<size_t>(l) * H + h;
      float* probs = options.attentions ? res.attentions.data() + lh * TT : scratch_probs.data();
      const size_t col = static_cast<size_t>(h) * dh;
      kernels::attention_head_f32(probs, ctx.data() + col, q.data() + col, k.data() + col,
                                  v.data() + col, key_bias.empty() ? nullptr : key_bias.data(), T, dh, C);

      if (options.qkv) {  // (T, C) head columns → (T, dh) block at [l][h]
        for (int t = 0; t < T; ++t) {
          const size_t src = static_cast<size_t>(t) * C + col, dst = (lh * T + t) * dh;
          std::copy_n(q.data() + src, dh, res.q.data() + dst);
          std::copy_n(k.data() + src, dh, res.k.data() + dst);
          std::copy_n(v.data() + src, dh, res.v.data() + dst);
        }
      }
      if (options.value_norms) {
        // f_h(x_j) = v_j,h W_O[:, h-slice]ᵀ: what head h adds to the output for key j, before
        // the attention weight and without the output bias (Kobayashi et al. 2020, eq. 6).
        kernels::linear_packed_slice_f32(head_out.data(), v.data() + col, C, pl.o, T,
                                         static_cast<int>(col), dh);  // (T, C)
        Eigen::Map<const RowMatrix> fx(head_out.data(), T, C);
        for (int t = 0; t < T; ++t) res.value_norms[lh * T + t] = fx.row(t).norm();
      }
    }

    // attention output projection, residual, LayerNorm
    kernels::LinearEpilogue plus_residual;
    plus_residual.residual = x.data();
    kernels::linear_packed_f32(tmp.data(), ctx.data(), pl.o, T, plus_residual);
    kernels::layer_norm_f32(x.data(), tmp.data(), lw.ln_attn_g.data(), lw.ln_attn_b.data(), T, C, eps);

    // feed-forward, residual, LayerNorm
    kernels::LinearEpilogue activated;
    activated.activate = true;
    activated.activation = act;
    kernels::linear_packed_f32(ff.data(), x.data(), pl.ff_i, T, activated);
    kernels::linear_packed_f32(tmp.data(), ff.data(), pl.ff_o, T, plus_residual);
    kernels::layer_norm_f32(x.data(), tmp.data(), lw.ln_out_g.data(), lw.ln_out_b.data(), T, C, eps);

    if (options.hidden_states)
      std::copy(x.begin(), x.end(), res.hidden_states.begin() + static_cast<size_t>(l + 1) * TC);
  }
}

std::vector<float> Encoder::mlm_logits(const std::vector<float>& hidden_out, int tokens) const {
  if (!weights_.has_mlm_head)
    throw Error("E_WEIGHTS", "this checkpoint has no masked-LM head (cls.predictions.* / vocab_transform.*)");
  const int C = config_.hidden_size, V = config_.vocab_size;
  if (tokens <= 0 || hidden_out.size() != static_cast<size_t>(tokens) * C)
    throw Error("E_INPUT", "mlm_logits: hidden state has " + std::to_string(hidden_out.size()) +
                               " values, expected tokens × hidden = " + std::to_string(tokens) + " × " +
                               std::to_string(C));
  const MlmHeadWeights& m = weights_.mlm;
  std::vector<float> h(hidden_out.size());
  kernels::linear_f32(h.data(), hidden_out.data(), m.dense_w.data(), m.dense_b.data(), tokens, C, C);
  kernels::activation_f32(h.data(), h.size(), activation_for(config_.hidden_act));
  const float eps = static_cast<float>(config_.layer_norm_eps);
  kernels::layer_norm_f32(h.data(), h.data(), m.ln_g.data(), m.ln_b.data(), tokens, C, eps);
  std::vector<float> logits(static_cast<size_t>(tokens) * V);
  if (!m.decoder_w.empty() || !weights_.word_emb.is_f16()) {
    const float* decoder = m.decoder_w.empty() ? weights_.word_emb.f32.data() : m.decoder_w.data();  // tied
    kernels::linear_f32(logits.data(), h.data(), decoder, m.bias.data(), tokens, C, V);
    return logits;
  }
  // Tied to f16 word embeddings: widen a block of vocabulary rows at a time (never the whole
  // matrix, which is what f16 saves) and fill that block of columns.
  constexpr int kRows = 1024;
  std::vector<float> block(static_cast<size_t>(kRows) * C), block_logits(static_cast<size_t>(tokens) * kRows);
  for (int v0 = 0; v0 < V; v0 += kRows) {
    const int n = std::min(kRows, V - v0);
    f16_to_f32(block.data(), weights_.word_emb.f16.data() + static_cast<size_t>(v0) * C, static_cast<size_t>(n) * C);
    kernels::linear_f32(block_logits.data(), h.data(), block.data(), m.bias.data() + v0, tokens, C, n);
    for (int t = 0; t < tokens; ++t)
      std::copy_n(block_logits.data() + static_cast<size_t>(t) * n, n, logits.data() + static_cast<size_t>(t) * V + v0);
  }
  return logits;
}

}  // namespace attnscope
