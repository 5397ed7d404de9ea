// SIMD128 attention for one head. K and V of the head are packed once per call into the GEMM's
// panel layout (Kᵀ as B for the scores, V as B for the context); query rows are processed in
// blocks of kRows so a block of P (kRows × T) is still in L1/L2 when it is normalised and
// multiplied by V.
#include "attention_f32_wasmsimd.h"

#ifdef __wasm_simd128__
#include <wasm_simd128.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "attention_row_f32_wasmsimd.h"
#include "gemm_f32_wasmsimd.h"
#include "math_f32x4_wasmsimd.h"

namespace attnscope::kernels {

namespace {
constexpr int kRows = 16;  // query rows per block: 16 × 512 × 4 B = 32 KB of P at T = 512

float horizontal_max(v128_t v) {
  v = wasm_f32x4_pmax(v, wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
  v = wasm_f32x4_pmax(v, wasm_i32x4_shuffle(v, v, 1, 0, 3, 2));
  return wasm_f32x4_extract_lane(v, 0);
}
float horizontal_sum(v128_t v) {
  v = wasm_f32x4_add(v, wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
  v = wasm_f32x4_add(v, wasm_i32x4_shuffle(v, v, 1, 0, 3, 2));
  return wasm_f32x4_extract_lane(v, 0);
}
}  // namespace

void add_relative_bias_f32_wasmsimd(float* row, const float* bias, int n) {
  const int n4 = n & ~3;
  for (int j = 0; j < n4; j += 4)
    wasm_v128_store(row + j, wasm_f32x4_add(wasm_v128_load(row + j), wasm_v128_load(bias + j)));
  for (int j = n4; j < n; ++j) row[j] += bias[j];
}

namespace {
// The special rows of softmax.h; true when the row was one (and has been filled).
bool special_row(float* row, int n, bool nan, float m, SoftmaxStats* stats) {
  if (nan) {  // a NaN score (an overflow upstream): NaN everywhere, never a plausible row (softmax.h)
    std::fill(row, row + n, std::numeric_limits<float>::quiet_NaN());
  } else if (m == -std::numeric_limits<float>::infinity()) {  // every key masked: uniform (softmax.h)
    std::fill(row, row + n, 1.0f / static_cast<float>(n));
  } else {
    return false;
  }
  if (stats) *stats = {nan ? std::numeric_limits<float>::quiet_NaN() : m, 0.0f};
  return true;
}

// row[j] ← e^(row[j] − m), four at a time, the tail through the same vector exp; returns their sum
// when `sum` is asked for (the order: four lane sums, then across, then the tail).
float exp_shifted(float* row, int n, float m, bool sum_them) {
  const float neg_inf = -std::numeric_limits<float>::infinity();
  const int n4 = n & ~3;
  const v128_t vm = wasm_f32x4_splat(m);
  v128_t vsum = wasm_f32x4_splat(0.0f);
  for (int j = 0; j < n4; j += 4) {
    const v128_t e = simd::exp_f32x4(wasm_f32x4_sub(wasm_v128_load(row + j), vm));
    wasm_v128_store(row + j, e);
    if (sum_them) vsum = wasm_f32x4_add(vsum, e);
  }
  float sum = sum_them ? horizontal_sum(vsum) : 0.0f;
  if (n4 < n) {
    alignas(16) float tail[4] = {neg_inf, neg_inf, neg_inf, neg_inf};
    for (int j = n4; j < n; ++j) tail[j - n4] = row[j] - m;
    wasm_v128_store(tail, simd::exp_f32x4(wasm_v128_load(tail)));
    for (int j = n4; j < n; ++j) {
      row[j] = tail[j - n4];
      sum += row[j];
    }
  }
  return sum;
}

void scale_row(float* row, int n, float inv) {
  const int n4 = n & ~3;
  const v128_t vinv = wasm_f32x4_splat(inv);
  for (int j = 0; j < n4; j += 4) wasm_v128_store(row + j, wasm_f32x4_mul(wasm_v128_load(row + j), vinv));
  for (int j = n4; j < n; ++j) row[j] *= inv;
}
}  // namespace

void softmax_row_with_stats_f32_wasmsimd(float* row, int n, SoftmaxStats* stats) {
  const float neg_inf = -std::numeric_limits<float>::infinity();
  const int n4 = n & ~3;
  // pass 1: max
  v128_t vmax = wasm_f32x4_splat(neg_inf), vnan = wasm_i32x4_splat(0);
  for (int j = 0; j < n4; j += 4) {
    const v128_t x = wasm_v128_load(row + j);
    vmax = wasm_f32x4_pmax(vmax, x);  // pmax skips NaN: counted apart
    vnan = wasm_v128_or(vnan, wasm_f32x4_ne(x, x));
  }
  float m = horizontal_max(vmax);
  bool nan = wasm_v128_any_true(vnan);
  for (int j = n4; j < n; ++j) {
    m = std::max(m, row[j]);
    nan |= row[j] != row[j];
  }
  if (special_row(row, n, nan, m, stats)) return;
  // pass 2: e^(x − max) and their sum; pass 3: normalise (sum ≥ 1: the max entry contributes e^0)
  const float inv = 1.0f / exp_shifted(row, n, m, true);
  scale_row(row, n, inv);
  if (stats) *stats = {m, inv};
}

void softmax_row_f32_wasmsimd(float* row, int n) { softmax_row_with_stats_f32_wasmsimd(row, n, nullptr); }

void softmax_row_from_stats_f32_wasmsimd(float* row, int n, const SoftmaxStats& stats) {
  if (special_row(row, n, stats.max != stats.max, stats.max, nullptr)) return;
  exp_shifted(row, n, stats.max, false);
  scale_row(row, n, stats.inverse_sum);
}

namespace {
// Kᵀ (dh × Tk) packed as the GEMM's B for the scores, in this thread's scratch (heads run in parallel).
const float* packed_keys(const float* k, const AttentionShape& s) {
  thread_local std::vector<float> k_packed;
  const size_t panels_t = (s.keys + kGemmNR - 1) / kGemmNR;
  k_packed.resize(panels_t * s.head_dim * kGemmNR);
  pack_b_from_weight_f32_wasmsimd(k_packed.data(), k, s.keys, s.head_dim, static_cast<size_t>(s.key_stride()));
  return k_packed.data();
}

// The scores of query rows i0 … i0 + rows − 1 by the packed GEMM (scale and key mask in its
// epilogue) over the keys any of them sees, written to p (rows × Tk), then each row's relative
// bias: what the softmax reads, the same blocks whether the pass or a map on demand asks.
void block_scores(float* p, int i0, int rows, const float* q, const float* k_packed, const float* key_bias,
                  const AttentionShape& s) {
  GemmEpilogue scores;
  scores.scale = s.score_scale();
  scores.bias = key_bias;  // 0 or −inf per key: the padding mask
  const int block_keys = s.visible_keys(i0 + rows - 1);
  gemm_f32_wasmsimd(p, s.keys, q + static_cast<size_t>(i0) * s.stride, s.stride, k_packed, rows, block_keys,
                    s.head_dim, scores);
  if (s.relative_bias)
    for (int r = 0; r < rows; ++r)
      add_relative_bias_f32_wasmsimd(p + static_cast<size_t>(r) * s.keys, s.relative_bias_row(i0 + r),
                                     s.visible_keys(i0 + r));
}
}  // namespace

void attention_head_f32_wasmsimd(float* probs, float* context, const float* q, const float* k,
                                 const float* v, const float* key_bias, const AttentionShape& s,
                                 SoftmaxStats* stats) {
  // One query (a generation step): K and V read in place, not packed (the same bits).
  if (attention_row_applies(s)) return attention_row_f32_wasmsimd(probs, context, q, k, v, key_bias, s, stats);
  const int Tq = s.queries, Tk = s.keys, dh = s.head_dim;
  const size_t stride = static_cast<size_t>(s.stride), kv_stride = static_cast<size_t>(s.key_stride());
  // Per-head scratch, kept between calls: packed V (Tk × dh); a block of P when the run keeps its
  // maps on demand (probs null).
  thread_local std::vector<float> v_packed, block;  // per thread: heads run in parallel
  const size_t panels_d = (dh + kGemmNR - 1) / kGemmNR;
  const float* k_packed = packed_keys(k, s);
  v_packed.resize(panels_d * Tk * kGemmNR);
  pack_b_f32_wasmsimd(v_packed.data(), v, Tk, dh, kv_stride);  // B = V: (Tk, dh)
  if (!probs) block.resize(static_cast<size_t>(kRows) * Tk);

  const GemmEpilogue plain;
  for (int i0 = 0; i0 < Tq; i0 += kRows) {
    const int rows = std::min(kRows, Tq - i0);
    // Keys any row of this block can see: the scores and P·V stop there (causal heads skip the
    // hidden upper triangle; the panels of Kᵀ are by key, V's rows are the GEMM's K).
    const int block_keys = s.visible_keys(i0 + rows - 1);
    float* p = probs ? probs + static_cast<size_t>(i0) * Tk : block.data();
    block_scores(p, i0, rows, q, k_packed, key_bias, s);
    for (int r = 0; r < rows; ++r) {
      float* row = p + static_cast<size_t>(r) * Tk;
      const int visible = s.visible_keys(i0 + r);
      softmax_row_with_stats_f32_wasmsimd(row, visible, stats ? stats + i0 + r : nullptr);
      std::fill(row + visible, row + Tk, 0.0f);
    }
    gemm_f32_wasmsimd(context + static_cast<size_t>(i0) * stride, stride, p, Tk, v_packed.data(),
                      static_cast<size_t>(Tk) * kGemmNR, rows, dh, block_keys, plain);
  }
}

void attention_map_f32_wasmsimd(float* probs, const float* q, const float* k, const float* key_bias,
                                const AttentionShape& s, const SoftmaxStats* stats) {
  const int Tk = s.keys;
  if (attention_row_applies(s)) {  // the pass took the one-query kernel: its scores
    attention_row_scores_f32_wasmsimd(probs, q, k, key_bias, s);
    softmax_row_from_stats_f32_wasmsimd(probs, s.visible_keys(0), stats[0]);
    std::fill(probs + s.visible_keys(0), probs + Tk, 0.0f);
    return;
  }
  const float* k_packed = packed_keys(k, s);
  for (int i0 = 0; i0 < s.queries; i0 += kRows) {
    const int rows = std::min(kRows, s.queries - i0);
    float* p = probs + static_cast<size_t>(i0) * Tk;
    block_scores(p, i0, rows, q, k_packed, key_bias, s);
    for (int r = 0; r < rows; ++r) {
      float* row = p + static_cast<size_t>(r) * Tk;
      const int visible = s.visible_keys(i0 + r);
      softmax_row_from_stats_f32_wasmsimd(row, visible, stats[i0 + r]);
      std::fill(row + visible, row + Tk, 0.0f);
    }
  }
}

}  // namespace attnscope::kernels
#endif  // __wasm_simd128__
