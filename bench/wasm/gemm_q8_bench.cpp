// Times the int8 GEMM (engine/kernels/gemm_q8_wasmsimd.h) on a linear layer's shape (M tokens, K
// in, N out) beside gemm_bench.cpp's f32 one, on the same random weights: the weight quantized
// and packed once outside, the activations quantized per call inside the timing (as a forward
// pass does), bias in the epilogue. bench/gemm-q8.mjs drives both.
#include <emscripten/emscripten.h>

#include <vector>

#include "kernels/gemm_q8_wasmsimd.h"
#include "kernels/quantize.h"

using namespace attnscope::kernels;

namespace {
struct Q8Case {
  int M = 0, N = 0, K = 0;
  std::vector<float> a, bias, c, scale;
  std::vector<int8_t> b;  // packed panels
  std::vector<int32_t> colsum;
  Q8Rows rows;
};
Q8Case g_q8;
}  // namespace

// The same generator and order as gemm_bench_setup: W first, then A.
extern "C" EMSCRIPTEN_KEEPALIVE void gemm_q8_bench_setup(int M, int N, int K) {
  g_q8.M = M; g_q8.N = N; g_q8.K = K;
  std::vector<float> w(static_cast<size_t>(N) * K);
  unsigned s = 12345;
  auto rnd = [&] { s = s * 1664525u + 1013904223u; return (s >> 8) * (1.0f / 16777216.0f) - 0.5f; };
  for (float& x : w) x = rnd();
  g_q8.a.resize(static_cast<size_t>(M) * K);
  for (float& x : g_q8.a) x = rnd();
  g_q8.bias.assign(N, 0.25f);
  g_q8.c.assign(static_cast<size_t>(M) * N, 0.0f);
  std::vector<int8_t> q(w.size());
  g_q8.scale.resize(N);
  quantize_weight_q8(q.data(), g_q8.scale.data(), w.data(), N, K, K);
  g_q8.colsum.assign(N, 0);
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < K; ++k) g_q8.colsum[n] += q[static_cast<size_t>(n) * K + k];
  g_q8.b.assign(q8_packed_b_size(K, N), 0);
  pack_b_q8_wasmsimd(g_q8.b.data(), q.data(), N, K, K);
}

// quantize: 1 quantizes A inside each repetition (the forward pass's cost), 0 times the GEMM alone.
extern "C" EMSCRIPTEN_KEEPALIVE float gemm_q8_bench_run(int reps, int quantize) {
  GemmQ8Epilogue ep;
  ep.bias = g_q8.bias.data();
  if (!quantize) quantize_pack_a_q8_wasmsimd(g_q8.rows, g_q8.a.data(), g_q8.K, g_q8.M, g_q8.K);
  for (int r = 0; r < reps; ++r) {
    if (quantize) quantize_pack_a_q8_wasmsimd(g_q8.rows, g_q8.a.data(), g_q8.K, g_q8.M, g_q8.K);
    gemm_q8_wasmsimd(g_q8.c.data(), g_q8.N, g_q8.rows, g_q8.b.data(), g_q8.scale.data(),
                     g_q8.colsum.data(), g_q8.N, ep);
  }
  return g_q8.c[0];
}
