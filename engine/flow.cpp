// Information flow (flow.h): each sublayer's shares computed when its output's hook fires, from
// the residual, pattern and values its earlier hooks left.
#include "flow.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "buffer_size.h"
#include "error.h"
#include "parallel.h"

namespace attnscope {

namespace {

// The L1 norms in float, four lanes at a time with the compilers' vector extension (SSE natively,
// wasm's 128-bit SIMD in the browser; neither compiler vectorises the plain float sum, which
// would reorder it, and Eigen has no wasm packets): the redraw-as-you-type budget needs it, each
// (query, key, head) costing one C-wide ‖y − a·u‖₁. A float sum of C terms is good to ~1e-6 of
// ‖y‖, far inside the shares' tolerance.
using Float4 = float __attribute__((vector_size(16)));
using Int4 = int32_t __attribute__((vector_size(16)));

Float4 load4(const float* p) {
  Float4 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// |v| lane by lane: the sign bit cleared.
Float4 abs4(Float4 v) { return reinterpret_cast<Float4>(reinterpret_cast<Int4>(v) & 0x7fffffff); }

// ‖y − a·z‖₁
double l1_distance(const float* y, float a, const float* z, int C) {
  Float4 sum0 = {}, sum1 = {};
  int c = 0;
  for (; c + 8 <= C; c += 8) {
    sum0 += abs4(load4(y + c) - a * load4(z + c));
    sum1 += abs4(load4(y + c + 4) - a * load4(z + c + 4));
  }
  const Float4 sum = sum0 + sum1;
  float total = (sum[0] + sum[1]) + (sum[2] + sum[3]);
  for (; c < C; ++c) total += std::fabs(y[c] - a * z[c]);
  return total;
}

double l1_norm(const float* y, int C) { return l1_distance(y, 0.0f, y, C); }

// z += a·u
void add_scaled(float* z, float a, const float* u, int C) {
  for (int c = 0; c < C; ++c) z[c] += a * u[c];
}

double importance(double y_norm, double distance) { return std::max(0.0, y_norm - distance); }

// Σ imp, or 1 when every importance is 0 (then every share is 0 rather than NaN).
double share_denominator(double sum) { return sum > 0 ? sum : 1; }

// One attention sublayer over every query, as flow.h defines it.
struct AttentionInputs {
  const float* residual;   // (T, C)
  const float* out;        // (T, C): the sublayer's output before the residual
  const float* pattern;    // (H, T, keys)
  const float* values;     // (keys, KV·dh)
  const LinearLayer* o;
  HeadLayout layout;
  const float* head_mask;  // H values, or null (every head 1)
  int T, keys;
};

void attention_flow(AttentionFlow& f, int layer, const AttentionInputs& in) {
  const int H = in.layout.heads, dh = in.layout.head_dim, C = in.o->out, T = in.T, K = in.keys;
  // u[h][j] = v^h_j W_O^h, through the forward pass's own packed W_O (one head's columns at a time).
  std::vector<float> u(buffer_elements({H, K, C}, "flow head outputs (heads × keys × width)"));
  for (int h = 0; h < H; ++h)
    linear_slice_forward(u.data() + static_cast<size_t>(h) * K * C, in.values + in.layout.kv_head_of(h) * dh,
                         in.layout.kv_width(), *in.o, K, h * dh, dh);
  const std::vector<float>& bias = in.o->bias();
  const size_t row0 = static_cast<size_t>(layer) * T;

  parallel_for(T, min_items_for(static_cast<size_t>(2) * H * K * C), [&](size_t i0, size_t i1) {
    std::vector<float> y(C), z(C);
    std::vector<double> token_imp(K), head_imp(static_cast<size_t>(H) * K);
    std::vector<float> weight(H);
    for (size_t i = i0; i < i1; ++i) {
      const float* r = in.residual + i * C;
      const float* o = in.out + i * C;
      for (int c = 0; c < C; ++c) y[c] = r[c] + o[c];
      const double y_norm = l1_norm(y.data(), C);
      const double residual_imp = importance(y_norm, l1_distance(y.data(), 1.0f, r, C));
      const double bias_imp = bias.empty() ? 0.0 : importance(y_norm, l1_distance(y.data(), 1.0f, bias.data(), C));
      double token_sum = residual_imp + bias_imp, head_sum = residual_imp + bias_imp;
      for (int j = 0; j < K; ++j) {
        bool seen = false;
        for (int h = 0; h < H; ++h) {
          weight[h] = (in.head_mask ? in.head_mask[h] : 1.0f) * in.pattern[(static_cast<size_t>(h) * T + i) * K + j];
          seen = seen || weight[h] != 0.0f;
        }
        token_imp[j] = 0;
        for (int h = 0; h < H; ++h) head_imp[static_cast<size_t>(h) * K + j] = 0;
        if (!seen) continue;  // a zero component: importance 0 (a key the query cannot see)
        std::fill(z.begin(), z.end(), 0.0f);
        for (int h = 0; h < H; ++h) {
          if (weight[h] == 0.0f) continue;
          const float* uh = u.data() + (static_cast<size_t>(h) * K + j) * C;
          add_scaled(z.data(), weight[h], uh, C);
          head_imp[static_cast<size_t>(h) * K + j] = importance(y_norm, l1_distance(y.data(), weight[h], uh, C));
          head_sum += head_imp[static_cast<size_t>(h) * K + j];
        }
        token_imp[j] = importance(y_norm, l1_distance(y.data(), 1.0f, z.data(), C));
        token_sum += token_imp[j];
      }
      const double tokens_d = share_denominator(token_sum), heads_d = share_denominator(head_sum);
      f.residual[row0 + i] = static_cast<float>(residual_imp / tokens_d);
      f.bias[row0 + i] = static_cast<float>(bias_imp / tokens_d);
      f.heads_residual[row0 + i] = static_cast<float>(residual_imp / heads_d);
      f.heads_bias[row0 + i] = static_cast<float>(bias_imp / heads_d);
      for (int j = 0; j < K; ++j) f.tokens[(row0 + i) * K + j] = static_cast<float>(token_imp[j] / tokens_d);
      for (int h = 0; h < H; ++h)
        for (int j = 0; j < K; ++j)
          f.heads[((static_cast<size_t>(layer) * H + h) * T + i) * K + j] =
              static_cast<float>(head_imp[static_cast<size_t>(h) * K + j] / heads_d);
    }
  });
}

void size_attention(AttentionFlow& f, int L, int H, int T, int keys) {
  f.keys = keys;
  f.tokens.assign(buffer_elements({L, T, keys}, "flow token shares"), 0.0f);
  f.heads.assign(buffer_elements({L, H, T, keys}, "flow head shares (layers × heads × tokens × keys)"), 0.0f);
  for (auto* v : {&f.residual, &f.bias, &f.heads_residual, &f.heads_bias}) v->assign(static_cast<size_t>(L) * T, 0.0f);
}

const float* layer_mask(const std::vector<float>& mask, int layer, int heads) {
  return mask.empty() ? nullptr : mask.data() + static_cast<size_t>(layer) * heads;
}

}  // namespace

void proportion_shares(float* shares, const float* y, const float* const* components, int count, int C) {
  const double y_norm = l1_norm(y, C);
  std::vector<double> imp(count);
  double sum = 0;
  for (int k = 0; k < count; ++k) sum += imp[k] = importance(y_norm, l1_distance(y, 1.0f, components[k], C));
  for (int k = 0; k < count; ++k) shares[k] = static_cast<float>(imp[k] / share_denominator(sum));
}

FlowRecorder::FlowRecorder(HookStack stack, std::vector<FlowLayer> layers, float eps, std::vector<float> head_mask,
                           std::vector<float> cross_head_mask)
    : stack_(stack), layers_(std::move(layers)), eps_(eps), head_mask_(std::move(head_mask)),
      cross_head_mask_(std::move(cross_head_mask)) {
  flow_.layers = static_cast<int>(layers_.size());
  flow_.heads = layers_.empty() ? 0 : layers_[0].layout.heads;
}

void FlowRecorder::size_for(int T, int layer) {
  if (layer != 0) return;
  flow_.tokens = T;
  size_attention(flow_.self, flow_.layers, flow_.heads, T, T);
  flow_.cross = AttentionFlow{};
  flow_.mlp.assign(static_cast<size_t>(flow_.layers) * T, 0.0f);
  flow_.mlp_residual.assign(static_cast<size_t>(flow_.layers) * T, 0.0f);
}

void FlowRecorder::on_resid_pre(int layer, const HookTensor& t) {
  if (t.first_position != 0)
    throw Error("E_INPUT", "information flow needs a whole pass from the first position (every key's values), not "
                           "positions " + std::to_string(t.first_position) + " onwards of a cached sequence");
  size_for(t.rows, layer);
  residual_.assign(t.data, t.data + static_cast<size_t>(t.rows) * t.width);
}

void FlowRecorder::on_attention_out(int layer, const HookTensor& t, bool cross) {
  const FlowLayer& w = layers_[layer];
  AttentionInputs in;
  in.residual = residual_.data();
  in.out = t.data;
  in.T = t.rows;
  if (cross) {
    if (!cross_values_) throw Error("E_INPUT", "information flow of a cross-attention needs the encoder's values");
    const std::vector<float>& v = (*cross_values_)[layer];
    in.pattern = cross_pattern_.data(), in.values = v.data(), in.o = w.cross_o, in.layout = w.cross_layout;
    in.keys = cross_keys_;
    in.head_mask = layer_mask(cross_head_mask_, layer, w.cross_layout.heads);
    if (layer == 0) size_attention(flow_.cross, flow_.layers, w.cross_layout.heads, t.rows, cross_keys_);
    attention_flow(flow_.cross, layer, in);
  } else {
    in.pattern = pattern_.data(), in.values = values_.data(), in.o = w.o, in.layout = w.layout;
    in.keys = pattern_keys_;
    in.head_mask = layer_mask(head_mask_, layer, w.layout.heads);
    attention_flow(flow_.self, layer, in);
  }
}

void FlowRecorder::on_resid_mid(int layer, const HookTensor& t, bool cross) {
  // The next sublayer's residual: this sum, or (post-norm) its norm, which the pass applies next.
  const LayerNormParams* norm = cross ? layers_[layer].cross_norm : layers_[layer].attention_norm;
  residual_.resize(static_cast<size_t>(t.rows) * t.width);
  if (norm)
    layer_norm_forward(residual_.data(), t.data, *norm, t.rows, t.width, eps_);
  else
    std::copy_n(t.data, residual_.size(), residual_.begin());
}

void FlowRecorder::on_mlp_out(int layer, const HookTensor& t) {
  const int C = t.width;
  std::vector<float> y(C);
  for (int i = 0; i < t.rows; ++i) {
    const float* r = residual_.data() + static_cast<size_t>(i) * C;
    const float* m = t.data + static_cast<size_t>(i) * C;
    for (int c = 0; c < C; ++c) y[c] = r[c] + m[c];
    const float* parts[] = {r, m};
    float shares[2];
    proportion_shares(shares, y.data(), parts, 2, C);
    const size_t at = static_cast<size_t>(layer) * t.rows + i;
    flow_.mlp_residual[at] = shares[0];
    flow_.mlp[at] = shares[1];
  }
}

void FlowRecorder::install(Hooks& hooks) {
  auto copy_into = [](std::vector<float>& to, int& keys) {
    return [&to, &keys](const HookPoint&, HookTensor& t) {
      to.assign(t.data, t.data + static_cast<size_t>(t.rows) * t.width);
      keys = t.width;
    };
  };
  for (int l = 0; l < flow_.layers; ++l) {
    const bool cross = layers_[l].cross_o != nullptr;
    hooks.add({stack_, HookSite::ResidPre, l}, [this](const HookPoint& p, HookTensor& t) { on_resid_pre(p.layer, t); }, false);
    hooks.add({stack_, HookSite::V, l}, [this](const HookPoint&, HookTensor& t) {
      values_.assign(t.data, t.data + static_cast<size_t>(t.rows) * t.width);
    }, false);
    hooks.add({stack_, HookSite::Pattern, l}, copy_into(pattern_, pattern_keys_), false);
    hooks.add({stack_, HookSite::AttnOut, l}, [this](const HookPoint& p, HookTensor& t) { on_attention_out(p.layer, t, false); }, false);
    hooks.add({stack_, HookSite::ResidMid, l}, [this](const HookPoint& p, HookTensor& t) { on_resid_mid(p.layer, t, false); }, false);
    if (cross) {
      hooks.add({stack_, HookSite::CrossPattern, l}, copy_into(cross_pattern_, cross_keys_), false);
      hooks.add({stack_, HookSite::CrossAttnOut, l}, [this](const HookPoint& p, HookTensor& t) { on_attention_out(p.layer, t, true); }, false);
      hooks.add({stack_, HookSite::ResidMidCross, l}, [this](const HookPoint& p, HookTensor& t) { on_resid_mid(p.layer, t, true); }, false);
    }
    hooks.add({stack_, HookSite::MlpOut, l}, [this](const HookPoint& p, HookTensor& t) { on_mlp_out(p.layer, t); }, false);
  }
}

}  // namespace attnscope
