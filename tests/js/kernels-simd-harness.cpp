// Thin C entry points over the SIMD128 kernels for tests/js/kernels-simd.test.js, which fills
// the inputs in JavaScript, calls these, and checks the outputs against naive float64 loops.
// Built by CMakeLists.txt (wasm only) as build/wasm/kernels-simd-harness.{mjs,wasm}.
#include <emscripten/emscripten.h>
#include <wasm_simd128.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <utility>
#include <vector>

#include "half.h"
#include "kernels/attention_f32_wasmsimd.h"
#include "kernels/gemm_f32_wasmsimd.h"
#include "kernels/math_f32x4_wasmsimd.h"
#include "kernels/packed_linear_wasmsimd.h"

using namespace attnscope::kernels;

namespace {
Activation activation_of(int act) {
  return act == 1 ? Activation::GeluTanh : act == 2 ? Activation::Relu : Activation::GeluErf;
}
template <typename F>
void map4(float* out, const float* in, int n, F f) {  // n a multiple of 4
  for (int i = 0; i < n; i += 4) wasm_v128_store(out + i, f(wasm_v128_load(in + i)));
}
}  // namespace

extern "C" {

// C (M, N; row stride ldc) = epilogue(A (M, K; lda) · Wᵀ), W given (N, K) row-major.
// act: −1 none, 0 GELU erf, 1 GELU tanh, 2 ReLU. bias / residual (ldr = N) may be 0.
EMSCRIPTEN_KEEPALIVE void h_gemm_weight(float* c, int ldc, const float* a, int lda, const float* w,
                                        const float* bias, const float* residual, int M, int N,
                                        int K, int act, float scale) {
  std::vector<float> b(packed_b_size(K, N));
  pack_b_from_weight_f32_wasmsimd(b.data(), w, N, K, K);
  GemmEpilogue ep;
  ep.bias = bias;
  ep.residual = residual;
  ep.ldr = N;
  ep.activate = act >= 0;
  ep.activation = activation_of(act);
  ep.scale = scale;
  gemm_f32_wasmsimd(c, ldc, a, lda, b.data(), M, N, K, ep);
}

// C (M, N) = A (M, K) · B, B given (K, N) row-major with stride ldb, no epilogue.
EMSCRIPTEN_KEEPALIVE void h_gemm_matrix(float* c, int ldc, const float* a, int lda, const float* b,
                                        int ldb, int M, int N, int K) {
  std::vector<float> p(packed_b_size(K, N));
  pack_b_f32_wasmsimd(p.data(), b, K, N, ldb);
  gemm_f32_wasmsimd(c, ldc, a, lda, p.data(), M, N, K, GemmEpilogue{});
}

// Through the PackedLinear API: out = act(x Wᵀ + b) + residual, and the k-slice product.
// in_place: give the weight the spare capacity the loaders reserve, so pack_linear packs it in
// its own storage (when outc % 8 == 0) instead of into a new buffer.
EMSCRIPTEN_KEEPALIVE void h_linear_packed(float* out, const float* x, const float* w,
                                          const float* bias, const float* residual, int T, int in,
                                          int outc, int act, int in_place) {
  std::vector<float> weight;
  if (in_place) weight.reserve(static_cast<size_t>(outc) * in + kWeightSlackFloats);
  weight.assign(w, w + static_cast<size_t>(outc) * in);
  const float* storage = weight.data();
  PackedLinear p = pack_linear(std::move(weight), std::vector<float>(bias, bias + outc), in, outc);
  if (in_place && outc % 8 == 0 && p.weight.data() != storage) abort();  // the in-place path was not taken
  LinearEpilogue ep;
  ep.activate = act >= 0;
  ep.activation = activation_of(act);
  ep.residual = residual;
  linear_packed_f32(out, x, p, T, ep);
}
EMSCRIPTEN_KEEPALIVE void h_linear_slice(float* out, const float* x, int ldx, const float* w, int T,
                                         int in, int outc, int k_begin, int k_count) {
  PackedLinear p = pack_linear(std::vector<float>(w, w + static_cast<size_t>(outc) * in),
                               std::vector<float>(outc, 0.0f), in, outc);
  linear_packed_slice_f32(out, x, ldx, p, T, k_begin, k_count);
}

// The same two with the weight given as f16 bits (a model loaded with weightPrecision 'f16').
EMSCRIPTEN_KEEPALIVE void h_linear_packed_f16(float* out, const float* x, const uint16_t* w,
                                              const float* bias, const float* residual, int T, int in,
                                              int outc, int act, int in_place) {
  std::vector<uint16_t> weight;
  if (in_place) weight.reserve(static_cast<size_t>(outc) * in + kWeightSlackHalves);
  weight.assign(w, w + static_cast<size_t>(outc) * in);
  const uint16_t* storage = weight.data();
  PackedLinear p = pack_linear(std::move(weight), std::vector<float>(bias, bias + outc), in, outc);
  if (!p.is_f16() || !p.weight.empty()) abort();
  if (in_place && outc % 8 == 0 && p.weight_f16.data() != storage) abort();
  if (reinterpret_cast<uintptr_t>(p.panels_f16()) % 64 != 0) abort();
  LinearEpilogue ep;
  ep.activate = act >= 0;
  ep.activation = activation_of(act);
  ep.residual = residual;
  linear_packed_f32(out, x, p, T, ep);
}
EMSCRIPTEN_KEEPALIVE void h_linear_slice_f16(float* out, const float* x, int ldx, const uint16_t* w, int T,
                                             int in, int outc, int k_begin, int k_count) {
  PackedLinear p = pack_linear(std::vector<uint16_t>(w, w + static_cast<size_t>(outc) * in),
                               std::vector<float>(outc, 0.0f), in, outc);
  linear_packed_slice_f32(out, x, ldx, p, T, k_begin, k_count);
}
// attnscope::f16_to_f32 over many values: eight at a time in SIMD128, then a scalar tail.
EMSCRIPTEN_KEEPALIVE void h_widen_f16(float* out, const uint16_t* in, int n) { attnscope::f16_to_f32(out, in, n); }

// queries: the last `queries` of `keys` positions (q points at the first of them); causal 0/1.
EMSCRIPTEN_KEEPALIVE void h_attention(float* probs, float* context, const float* q, const float* k,
                                      const float* v, const float* key_bias, int queries, int keys, int dh,
                                      int stride, int causal) {
  AttentionShape shape;
  shape.queries = queries;
  shape.keys = keys;
  shape.head_dim = dh;
  shape.stride = stride;
  shape.causal = causal != 0;
  attention_head_f32_wasmsimd(probs, context, q, k, v, key_bias, shape);
}
EMSCRIPTEN_KEEPALIVE void h_softmax(float* row, int n) { softmax_row_f32_wasmsimd(row, n); }

// Maps on demand: the head run eagerly (probs kept, statistics too) and as a run keeping its maps
// on demand (probs null: only the statistics and the context), then the map rebuilt from q, k and
// those statistics (attention_map_f32_wasmsimd). relative_bias: (2·keys − 1) or null.
EMSCRIPTEN_KEEPALIVE void h_attention_on_demand(float* probs, float* map, float* context, float* context_on_demand,
                                                const float* q, const float* k, const float* v, const float* key_bias,
                                                const float* relative_bias, int queries, int keys, int dh, int stride,
                                                int causal) {
  AttentionShape shape;
  shape.queries = queries;
  shape.keys = keys;
  shape.head_dim = dh;
  shape.stride = stride;
  shape.causal = causal != 0;
  shape.relative_bias = relative_bias;
  std::vector<SoftmaxStats> eager_stats(queries), stats(queries);
  attention_head_f32_wasmsimd(probs, context, q, k, v, key_bias, shape, eager_stats.data());
  attention_head_f32_wasmsimd(nullptr, context_on_demand, q, k, v, key_bias, shape, stats.data());
  attention_map_f32_wasmsimd(map, q, k, key_bias, shape, stats.data());
}

EMSCRIPTEN_KEEPALIVE void h_exp(float* out, const float* in, int n) { map4(out, in, n, simd::exp_f32x4); }
EMSCRIPTEN_KEEPALIVE void h_erf(float* out, const float* in, int n) { map4(out, in, n, simd::erf_f32x4); }
EMSCRIPTEN_KEEPALIVE void h_gelu_erf(float* out, const float* in, int n) { map4(out, in, n, simd::gelu_erf_f32x4); }
EMSCRIPTEN_KEEPALIVE void h_gelu_tanh(float* out, const float* in, int n) { map4(out, in, n, simd::gelu_tanh_f32x4); }
// JavaScript has no erf: the tests take libc's double-precision one as the reference.
EMSCRIPTEN_KEEPALIVE double h_erf_reference(double x) { return std::erf(x); }

}  // extern "C"
