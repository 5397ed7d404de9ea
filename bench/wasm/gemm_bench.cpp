// Times the packed SIMD128 GEMM alone on a linear layer's shape (M tokens, K in, N out), the
// number the acceptance asks for ("the GEMM kernel alone"), with the weights packed once outside.
#include <emscripten/emscripten.h>

#include <cstdlib>
#include <vector>

#include "kernels/gemm_f32_wasmsimd.h"

using namespace attnscope::kernels;

namespace {
struct Case {
  int M = 0, N = 0, K = 0;
  std::vector<float> a, bias, c;
  std::vector<float> b;  // W packed for the GEMM (packed_b_size(K, N))
};
Case g_case;
}  // namespace

extern "C" EMSCRIPTEN_KEEPALIVE void gemm_bench_setup(int M, int N, int K) {
  g_case.M = M; g_case.N = N; g_case.K = K;
  std::vector<float> w(static_cast<size_t>(N) * K);
  unsigned s = 12345;
  auto rnd = [&] { s = s * 1664525u + 1013904223u; return (s >> 8) * (1.0f / 16777216.0f) - 0.5f; };
  for (float& x : w) x = rnd();
  g_case.a.resize(static_cast<size_t>(M) * K);
  for (float& x : g_case.a) x = rnd();
  g_case.bias.assign(N, 0.25f);
  g_case.c.assign(static_cast<size_t>(M) * N, 0.0f);
  g_case.b.assign(packed_b_size(K, N), 0.0f);
  pack_b_from_weight_f32_wasmsimd(g_case.b.data(), w.data(), N, K, K);
}

// act: 0 none, 1 GELU (erf) fused in the epilogue.
extern "C" EMSCRIPTEN_KEEPALIVE float gemm_bench_run(int reps, int act) {
  GemmEpilogue ep;
  ep.bias = g_case.bias.data();
  ep.activate = act != 0;
  for (int r = 0; r < reps; ++r)
    gemm_f32_wasmsimd(g_case.c.data(), g_case.N, g_case.a.data(), g_case.K, g_case.b.data(),
                      g_case.M, g_case.N, g_case.K, ep);
  return g_case.c[0];
}
