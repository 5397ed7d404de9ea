// The building blocks of blocks.h on the build's kernels.
#include "blocks.h"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <string>

#include "error.h"
#include "half.h"
#include "kernels/attention.h"
#include "kernels/dot_rows.h"
#include "kernels/layer_norm.h"
#include "kernels/rms_norm.h"
#include "parallel.h"

namespace attnscope {

kernels::Activation activation_for(const std::string& name) {
  using kernels::Activation;
  if (name == "relu") return Activation::Relu;
  if (name == "silu" || name == "swish") return Activation::Silu;
  if (name == "gelu_new" || name == "gelu_pytorch_tanh" || name == "gelu_fast") return Activation::GeluTanh;
  return Activation::GeluErf;  // "gelu", "gelu_python"; parse_config rejected everything else
}

void check_layer_output(const float* x, int T, int C, const char* stack, int layer) {
  const size_t n = static_cast<size_t>(T) * C;
  bool finite = true;
  for (size_t i = 0; i < n; ++i) finite &= std::isfinite(x[i]);
  if (finite) return;
  size_t at = 0;
  while (std::isfinite(x[at])) ++at;
  throw Error("E_WEIGHTS", std::string(stack) + " " + std::to_string(layer) + "'s output at position " +
                               std::to_string(at / C) + " is not a finite number: the activations overflow float32 " +
                               "with these weights");
}

Layer pack_layer(LayerWeights&& w, const ModelConfig& c, WeightPrecision precision) {
  const int C = c.hidden_size, F = c.intermediate_size, Q = c.q_width(), KV = c.kv_width();
  Layer layer;
  AttentionWeights& a = layer.self;
  a.q = pack_linear_layer(w.q_w, w.q_b, C, Q, precision);
  a.k = pack_linear_layer(w.k_w, w.k_b, C, KV, precision);
  a.v = pack_linear_layer(w.v_w, w.v_b, C, KV, precision);
  a.o = pack_linear_layer(w.o_w, w.o_b, Q, C, precision);
  a.norm = {std::move(w.ln_attn_g), std::move(w.ln_attn_b)};
  a.q_norm.gamma = std::move(w.q_norm_g);
  a.k_norm.gamma = std::move(w.k_norm_g);
  a.layout = {c.num_heads, c.kv_heads(), c.head_dim()};
  FeedForwardWeights& f = layer.ffn;
  f.in = pack_linear_layer(w.ff_i_w, w.ff_i_b, C, F, precision);
  f.out = pack_linear_layer(w.ff_o_w, w.ff_o_b, F, C, precision);
  if (w.ff_g_w.size()) f.gate = pack_linear_layer(w.ff_g_w, w.ff_g_b, C, F, precision);
  f.norm = {std::move(w.ln_out_g), std::move(w.ln_out_b)};
  return layer;
}

void embeddings_forward(float* x, const ModelWeights& w, const int32_t* ids, const int32_t* positions,
                        const int32_t* token_types, int T, int C) {
  std::vector<float> widened;  // a word-embedding row kept as f16, widened
  for (int t = 0; t < T; ++t) {
    float* xt = x + static_cast<size_t>(t) * C;
    const size_t word = static_cast<size_t>(ids[t]) * C;
    const float* we;
    if (w.word_emb.is_f16()) {
      widened.resize(C);
      f16_to_f32(widened.data(), w.word_emb.f16.data() + word, C);
      we = widened.data();
    } else {
      we = w.word_emb.f32.data() + word;
    }
    if (w.pos_emb.empty()) {  // rotary models: positions enter in the attention
      std::copy_n(we, C, xt);
      continue;
    }
    const float* pe = w.pos_emb.data() + static_cast<size_t>(positions[t]) * C;
    for (int c = 0; c < C; ++c) xt[c] = we[c] + pe[c];
    if (!w.type_emb.empty()) {
      const float* te = w.type_emb.data() + static_cast<size_t>(token_types ? token_types[t] : 0) * C;
      for (int c = 0; c < C; ++c) xt[c] += te[c];
    }
  }
}

void layer_norm_forward(float* out, const float* inp, const LayerNormParams& ln, int T, int C, float eps) {
  kernels::layer_norm_f32(out, inp, ln.gamma.data(), ln.beta.data(), T, C, eps);
}

void rms_norm_forward(float* out, const float* inp, const LayerNormParams& ln, int T, int C, float eps) {
  kernels::rms_norm_f32(out, inp, ln.gamma.data(), T, C, eps);
}

void qkv_projection_forward(float* q, float* k, float* v, const float* x, const AttentionWeights& attention,
                            int queries) {
  float* const outs[] = {q, k, v};
  const LinearLayer* const layers[] = {&attention.q, &attention.k, &attention.v};
  linear_forward_same_input(outs, layers, 3, x, queries);
}

void head_rms_norm_forward(float* x, const std::vector<float>& gamma, int rows, int heads, int head_dim, float eps) {
  // (rows, heads · dh) is (rows · heads, dh): one RMSNorm per head's slice.
  kernels::rms_norm_f32(x, x, gamma.data(), rows * heads, head_dim, eps);
}

void attention_heads_forward(float* ctx, float* probs, const float* q, const float* k, const float* v,
                             const HeadLayout& layout, const AttentionMask& mask, int queries, int keys,
                             kernels::SoftmaxStats* stats) {
  const int heads = layout.heads, dh = layout.head_dim, group = heads / layout.kv_heads;
  const int C = layout.q_width();
  kernels::AttentionShape shape;
  shape.queries = queries;
  shape.keys = keys;
  shape.head_dim = dh;
  shape.stride = C;
  shape.kv_stride = layout.kv_width();
  shape.causal = mask.causal;
  shape.scale = mask.scale;
  const size_t head_probs = static_cast<size_t>(queries) * keys, head_bias = 2 * static_cast<size_t>(keys) - 1;
  // Heads are column slices of the (rows, C) projections, independent of each other: threads
  // take whole heads (Q·Kᵀ and P·V: 2 · queries · keys · dh multiply-adds each, over its keys and
  // values: 2 · keys · dh floats, which each query head of a group reads again).
  const size_t head_work = 2 * static_cast<size_t>(queries) * keys * dh;
  const size_t head_bytes = 2 * static_cast<size_t>(keys) * dh * sizeof(float);
  parallel_for(heads, min_items_for(head_work, head_bytes), [&](size_t h0, size_t h1) {
    kernels::AttentionShape head_shape = shape;
    for (size_t h = h0; h < h1; ++h) {
      const size_t col = h * dh, kv_col = (h / group) * dh;
      if (mask.relative_bias) head_shape.relative_bias = mask.relative_bias + h * head_bias;
      kernels::attention_head_f32(probs ? probs + h * head_probs : nullptr, ctx + col, q + col, k + kv_col,
                                  v + kv_col, mask.key_bias, head_shape, stats ? stats + h * queries : nullptr);
      if (mask.head_mask && mask.head_mask[h] != 1.0f) {
        const float m = mask.head_mask[h];
        for (int t = 0; t < queries; ++t)
          for (int d = 0; d < dh; ++d) ctx[static_cast<size_t>(t) * C + col + d] *= m;
      }
    }
  });
}

namespace {

// out = x W + b + residual, fused; or, keeping x W + b in sublayer_out, the same sum in two steps.
void linear_plus_residual(float* out, const float* x, const LinearLayer& w, const float* residual, int T,
                          float* sublayer_out, const SublayerEdit& edit) {
  if (!sublayer_out) {
    kernels::LinearEpilogue add;
    add.residual = residual;
    return linear_forward(out, x, w, T, add);
  }
  linear_forward(sublayer_out, x, w, T);
  if (edit) edit(sublayer_out);
  const size_t n = static_cast<size_t>(T) * w.out;
  for (size_t i = 0; i < n; ++i) out[i] = sublayer_out[i] + residual[i];
}

}  // namespace

void attention_output_forward(float* out, const float* ctx, const LinearLayer& o, const float* residual, int T,
                              float* sublayer_out, const SublayerEdit& edit) {
  linear_plus_residual(out, ctx, o, residual, T, sublayer_out, edit);
}

void attention_context_forward(float* ctx, const float* probs, const float* v, const HeadLayout& layout,
                               const float* head_mask, int queries, int keys) {
  using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using Strided = Eigen::OuterStride<>;
  const int dh = layout.head_dim, W = layout.q_width(), KV = layout.kv_width();
  for (int h = 0; h < layout.heads; ++h) {
    Eigen::Map<const RowMatrix> p(probs + static_cast<size_t>(h) * queries * keys, queries, keys);
    Eigen::Map<const RowMatrix, 0, Strided> vh(v + layout.kv_head_of(h) * dh, keys, dh, Strided(KV));
    Eigen::Map<RowMatrix, 0, Strided> out(ctx + h * dh, queries, dh, Strided(W));
    out.noalias() = p * vh;
    if (head_mask && head_mask[h] != 1.0f) out *= head_mask[h];
  }
}

void ffn_forward(float* out, float* hidden, const float* x, const FeedForwardWeights& ffn, kernels::Activation act,
                 const float* residual, int T, float* sublayer_out, float* pre_activation, const SublayerEdit& edit) {
  if (pre_activation) linear_forward(pre_activation, x, ffn.in, T);
  kernels::LinearEpilogue activated;
  activated.activate = true;
  activated.activation = act;
  linear_forward(hidden, x, ffn.in, T, activated);
  linear_plus_residual(out, hidden, ffn.out, residual, T, sublayer_out, edit);
}

void gated_ffn_forward(float* out, float* hidden, float* gate, const float* x, const FeedForwardWeights& ffn,
                       kernels::Activation act, const float* residual, int T, float* sublayer_out,
                       const GatedFfnTrace& trace, const SublayerEdit& edit) {
  const size_t TF = static_cast<size_t>(T) * ffn.in.out;
  // The gate before its activation: the same GEMM again without the epilogue (as ffn_forward's
  // pre_activation), so `gate` below is exactly what it is untraced.
  if (trace.gate) linear_forward(trace.gate, x, ffn.gate, T);
  kernels::LinearEpilogue activated;  // act(gate) in the GEMM's store: SIMD on wasm, no extra pass
  activated.activate = true;
  activated.activation = act;
  linear_forward(gate, x, ffn.gate, T, activated);
  if (trace.gate_activated) std::copy_n(gate, TF, trace.gate_activated);
  linear_forward(hidden, x, ffn.in, T);
  if (trace.up) std::copy_n(hidden, TF, trace.up);
  kernels::multiply_f32(hidden, gate, TF);
  linear_plus_residual(out, hidden, ffn.out, residual, T, sublayer_out, edit);
}

void embedding_parts(float* word, float* position, float* token_type, const ModelWeights& w, const int32_t* ids,
                     const int32_t* positions, const int32_t* token_types, int T, int C) {
  for (int t = 0; t < T; ++t) {
    const size_t row = static_cast<size_t>(t) * C, id = static_cast<size_t>(ids[t]) * C;
    if (w.word_emb.is_f16())
      f16_to_f32(word + row, w.word_emb.f16.data() + id, C);
    else
      std::copy_n(w.word_emb.f32.data() + id, C, word + row);
    if (position) std::copy_n(w.pos_emb.data() + static_cast<size_t>(positions[t]) * C, C, position + row);
    if (token_type)
      std::copy_n(w.type_emb.data() + static_cast<size_t>(token_types ? token_types[t] : 0) * C, C, token_type + row);
  }
}

void value_norms_forward(float* norms, float* head_out, const float* v, const AttentionWeights& attention, int T) {
  using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const HeadLayout& layout = attention.layout;
  const int C = attention.o.out, heads = layout.heads, dh = layout.head_dim;
  for (int h = 0; h < heads; ++h) {
    const int col = h * dh;  // head h's columns of W_O; its values are its key/value head's
    linear_slice_forward(head_out, v + layout.kv_head_of(h) * dh, attention.v.out, attention.o, T, col, dh);  // (T, C)
    Eigen::Map<const RowMatrix> fx(head_out, T, C);
    for (int t = 0; t < T; ++t) norms[static_cast<size_t>(h) * T + t] = fx.row(t).norm();
  }
}

// logits (rows, V) = hidden (rows, C) · Wᵀ (+ bias) for a vocabulary matrix W (V, C), a block of
// kRows vocabulary rows at a time: a matrix kept as f16 is widened one block at a time, never whole
// (which is what f16 saves), and threads take whole blocks (the same arithmetic on any thread).
void vocabulary_logits(float* logits, const float* hidden, const WeightMatrix& w, const float* bias, int rows,
                       int C, int V) {
  // Threads take blocks of vocabulary rows; each logit is one dot_rows product, the same bits
  // whichever thread, block or number of hidden rows computes it.
  constexpr int kRows = 256;
  const size_t blocks = (static_cast<size_t>(V) + kRows - 1) / kRows;
  const size_t block_bytes = static_cast<size_t>(kRows) * C * (w.is_f16() ? sizeof(uint16_t) : sizeof(float));
  parallel_for(blocks, min_items_for(static_cast<size_t>(rows) * kRows * C, block_bytes), [&](size_t b0, size_t b1) {
    const int v0 = static_cast<int>(b0) * kRows, n = std::min(V, static_cast<int>(b1) * kRows) - v0;
    const float* b = bias ? bias + v0 : nullptr;
    if (w.is_f16())
      kernels::dot_rows_f16(logits + v0, V, hidden, w.f16.data() + static_cast<size_t>(v0) * C, b, rows, n, C);
    else
      kernels::dot_rows_f32(logits + v0, V, hidden, w.f32.data() + static_cast<size_t>(v0) * C, b, rows, n, C);
  });
}

}  // namespace attnscope
