// One query over a head's K and V in place (attention_row_f32_wasmsimd.h). Scores in groups of
// four keys: a 4 × 4 block of K rows is transposed so that one vector holds dimension d of four
// keys, and each lane accumulates q_d · k_jd over d in order, as the GEMM's lanes do over its
// packed Kᵀ; four groups at once, so four independent chains (one chain alone is bound by the
// multiply-add latency: slower than packing). Context: lanes over the head's dimensions,
// accumulating p_j · v_jd over the keys in order, up to eight chains of 4 dimensions.
// Standalone, dh = 64 with grouped K/V rows (SIMD128, AMD EPYC, loaded machine): 3.3 µs a head at
// 128 keys, 22 µs at 512 and ~150 µs at 4,096; the packed path took ~45 and ~160 at 128 and 512.
#include "attention_row_f32_wasmsimd.h"

#ifdef __wasm_simd128__
#include <wasm_simd128.h>

#include <algorithm>
#include <vector>

#include "attention_f32_wasmsimd.h"
#include "math_f32x4_wasmsimd.h"

namespace attnscope::kernels {

namespace {

using simd::multiply_add;

// One group of four keys: its 4 × 4 block of K rows at dimensions d..d+3, transposed, so that
// column i holds dimension d + i of the four keys.
struct KeyGroup {
  const float* rows[4];
  void columns(int d, v128_t col[4]) const {
    const v128_t r0 = wasm_v128_load(rows[0] + d), r1 = wasm_v128_load(rows[1] + d);
    const v128_t r2 = wasm_v128_load(rows[2] + d), r3 = wasm_v128_load(rows[3] + d);
    const v128_t t0 = wasm_i32x4_shuffle(r0, r1, 0, 4, 1, 5), t1 = wasm_i32x4_shuffle(r0, r1, 2, 6, 3, 7);
    const v128_t t2 = wasm_i32x4_shuffle(r2, r3, 0, 4, 1, 5), t3 = wasm_i32x4_shuffle(r2, r3, 2, 6, 3, 7);
    col[0] = wasm_i32x4_shuffle(t0, t2, 0, 1, 4, 5);
    col[1] = wasm_i32x4_shuffle(t0, t2, 2, 3, 6, 7);
    col[2] = wasm_i32x4_shuffle(t1, t3, 0, 1, 4, 5);
    col[3] = wasm_i32x4_shuffle(t1, t3, 2, 3, 6, 7);
  }
};

// The scores of G groups of four keys: each lane Σ_d q_d · k_jd in order of d, then the GEMM's
// epilogue (× scale where it is not 1, + bias). G independent accumulator chains, so the
// multiply-add latency is hidden as the GEMM's eight chains hide it.
template <int G>
void group_scores(v128_t out[G], const float* q, const KeyGroup* groups, int dh, float scale, const v128_t* bias) {
  v128_t acc[G];
  for (int g = 0; g < G; ++g) acc[g] = wasm_f32x4_splat(0.0f);
  for (int d = 0; d < dh; d += 4) {
    const v128_t q0 = wasm_v128_load32_splat(q + d), q1 = wasm_v128_load32_splat(q + d + 1);
    const v128_t q2 = wasm_v128_load32_splat(q + d + 2), q3 = wasm_v128_load32_splat(q + d + 3);
    for (int g = 0; g < G; ++g) {
      v128_t col[4];
      groups[g].columns(d, col);
      acc[g] = multiply_add(q0, col[0], acc[g]);
      acc[g] = multiply_add(q1, col[1], acc[g]);
      acc[g] = multiply_add(q2, col[2], acc[g]);
      acc[g] = multiply_add(q3, col[3], acc[g]);
    }
  }
  for (int g = 0; g < G; ++g) {
    if (scale != 1.0f) acc[g] = wasm_f32x4_mul(acc[g], wasm_f32x4_splat(scale));
    out[g] = wasm_f32x4_add(acc[g], bias[g]);
  }
}

// Dimensions d0 … d0 + 4·N − 1 of the context: Σ_j p_j · v_jd over the visible keys in order of j,
// one accumulator per four dimensions, plus the GEMM epilogue's zero bias (which turns a −0 into
// +0, as there). N is a compile-time count so the accumulators live in registers: with a run-time
// count they were kept in memory, and this pass took ~0.5 GMAC/s (most of a step's attention).
// Returns the dimensions written.
template <int N>
int context_columns(float* context, const float* probs, const float* v, size_t kv_stride, int visible, int d0) {
  const v128_t zero = wasm_f32x4_splat(0.0f);
  v128_t acc[N];
  for (int a = 0; a < N; ++a) acc[a] = zero;
  const float* row = v + d0;
  for (int j = 0; j < visible; ++j, row += kv_stride) {
    const v128_t p = wasm_v128_load32_splat(probs + j);
    for (int a = 0; a < N; ++a) acc[a] = multiply_add(p, wasm_v128_load(row + 4 * a), acc[a]);
  }
  for (int a = 0; a < N; ++a) wasm_v128_store(context + d0 + 4 * a, wasm_f32x4_add(acc[a], zero));
  return 4 * N;
}

}  // namespace

bool attention_row_applies(const AttentionShape& s) { return s.queries == 1 && s.head_dim % 4 == 0; }

void attention_row_scores_f32_wasmsimd(float* probs, const float* q, const float* k, const float* key_bias,
                                       const AttentionShape& s) {
  const int dh = s.head_dim, visible = s.visible_keys(0);
  const size_t kv_stride = static_cast<size_t>(s.key_stride());
  const float scale = s.score_scale();
  // Pass 1: the scores of the visible keys, sixteen at a time (four groups of four), then the
  // last groups one by one; a last partial group reads the first key again in its missing lanes
  // and keeps only its own.
  constexpr int kGroups = 4;
  for (int j0 = 0; j0 < visible;) {
    const int groups = visible - j0 >= 4 * kGroups ? kGroups : 1;
    KeyGroup group[kGroups];
    alignas(16) float bias[kGroups][4] = {};
    v128_t bias_v[kGroups], scores[kGroups];
    for (int g = 0; g < groups; ++g) {
      for (int i = 0; i < 4; ++i) {
        const int j = j0 + 4 * g + i;
        group[g].rows[i] = k + (j < visible ? static_cast<size_t>(j) : 0) * kv_stride;
        if (key_bias && j < visible) bias[g][i] = key_bias[j];
      }
      bias_v[g] = wasm_v128_load(bias[g]);
    }
    if (groups == kGroups) group_scores<kGroups>(scores, q, group, dh, scale, bias_v);
    else group_scores<1>(scores, q, group, dh, scale, bias_v);
    for (int g = 0; g < groups; ++g, j0 += 4) {
      const int n = std::min(4, visible - j0);
      if (n == 4) {
        wasm_v128_store(probs + j0, scores[g]);
      } else {
        alignas(16) float out[4];
        wasm_v128_store(out, scores[g]);
        std::copy(out, out + n, probs + j0);
      }
    }
  }
  if (s.relative_bias) add_relative_bias_f32_wasmsimd(probs, s.relative_bias_row(0), visible);
}

void attention_row_f32_wasmsimd(float* probs, float* context, const float* q, const float* k,
                                const float* v, const float* key_bias, const AttentionShape& s,
                                SoftmaxStats* stats) {
  const int Tk = s.keys, dh = s.head_dim, visible = s.visible_keys(0);
  const size_t kv_stride = static_cast<size_t>(s.key_stride());
  thread_local std::vector<float> scratch;  // the row of a run keeping its maps on demand
  if (!probs) {
    scratch.resize(static_cast<size_t>(Tk));
    probs = scratch.data();
  }
  attention_row_scores_f32_wasmsimd(probs, q, k, key_bias, s);
  // Pass 2: softmax over the visible keys (after the relative position bias), exact zeros after them.
  softmax_row_with_stats_f32_wasmsimd(probs, visible, stats);
  std::fill(probs + visible, probs + Tk, 0.0f);
  // Pass 3: context = Σ_j p_j v_j in order of j, then the GEMM epilogue's zero bias.
  for (int d0 = 0; d0 < dh;) {
    const int vectors = (dh - d0) / 4;  // dh is a multiple of 4
    if (vectors >= 8) d0 += context_columns<8>(context, probs, v, kv_stride, visible, d0);
    else if (vectors >= 4) d0 += context_columns<4>(context, probs, v, kv_stride, visible, d0);
    else if (vectors >= 2) d0 += context_columns<2>(context, probs, v, kv_stride, visible, d0);
    else d0 += context_columns<1>(context, probs, v, kv_stride, visible, d0);
  }
}

}  // namespace attnscope::kernels
#endif  // __wasm_simd128__
