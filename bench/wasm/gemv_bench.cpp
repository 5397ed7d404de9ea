// Times one generated token's matrix products alone, on one linear layer's shape (K in, N out):
// the f32 and f16 GEMV over packed panels (gemv_f32_wasmsimd.h), the int8 GEMM at M = 1 and the
// int8 GEMV (gemv_q8_wasmsimd.h), the vocabulary head's dot_rows (dot_rows.h), each beside a plain SIMD128 read of the same bytes (sixteen
// bytes a load into four xor accumulators: what reading the weights costs with no arithmetic), so
// bench/gemv.mjs can print each kernel's time as a share of reading its weights. A model's layers
// are read from memory, not from a cache, one after another: each precision's packed matrix is
// held in as many copies as make at least `megabytes`, and the calls take them in turn.
#include <emscripten/emscripten.h>
#include <wasm_simd128.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "half.h"
#include "kernels/dot_rows.h"
#include "kernels/gemm_f32_wasmsimd.h"
#include "kernels/gemm_q8_wasmsimd.h"
#include "kernels/gemv_f32_wasmsimd.h"
#include "kernels/gemv_q8_wasmsimd.h"
#include "kernels/quantize.h"

using namespace attnscope::kernels;

namespace {
struct GemvCase {
  int N = 0, K = 0, copies = 1, next = 0;  // the weights held `copies` times, used in turn
  std::vector<float> x, y, bias, f32, scale, rows32;  // rows32, rows16: W (N, K) row-major
  std::vector<uint16_t> f16, rows16;
  std::vector<int8_t> q8;
  std::vector<int32_t> colsum;
  Q8Rows rows;
};
GemvCase g_gemv;

// Reads n bytes (a multiple of 64) at p: the weights' access without the arithmetic.
uint32_t read_bytes(const void* p, size_t n) {
  const uint8_t* b = static_cast<const uint8_t*>(p);
  v128_t a0 = wasm_i32x4_splat(0), a1 = a0, a2 = a0, a3 = a0;
  for (size_t i = 0; i + 64 <= n; i += 64) {
    a0 = wasm_v128_xor(a0, wasm_v128_load(b + i));
    a1 = wasm_v128_xor(a1, wasm_v128_load(b + i + 16));
    a2 = wasm_v128_xor(a2, wasm_v128_load(b + i + 32));
    a3 = wasm_v128_xor(a3, wasm_v128_load(b + i + 48));
  }
  return wasm_i32x4_extract_lane(wasm_v128_xor(wasm_v128_xor(a0, a1), wasm_v128_xor(a2, a3)), 0);
}
}  // namespace

// Each copy of v after the first is v again.
template <typename T>
void replicate(std::vector<T>& v, int copies) {
  const size_t n = v.size();
  v.resize(n * copies);
  for (int c = 1; c < copies; ++c) std::copy_n(v.data(), n, v.data() + c * n);
}

extern "C" EMSCRIPTEN_KEEPALIVE void gemv_bench_setup(int N, int K, int megabytes) {
  GemvCase& g = g_gemv;
  g = GemvCase{};
  g.N = N;
  g.K = K;
  const double q8_bytes = static_cast<double>(q8_packed_b_size(K, N));
  g.copies = std::max(1, static_cast<int>(megabytes * 1048576.0 / q8_bytes + 0.999));
  std::vector<float> w(static_cast<size_t>(N) * K);
  unsigned s = 12345;
  auto rnd = [&] { s = s * 1664525u + 1013904223u; return (s >> 8) * (1.0f / 16777216.0f) - 0.5f; };
  for (float& v : w) v = rnd();
  g.x.resize(K);
  for (float& v : g.x) v = rnd();
  g.y.assign(N, 0.0f);
  g.bias.assign(N, 0.25f);
  g.f32.assign(packed_b_size(K, N), 0.0f);
  pack_b_from_weight_f32_wasmsimd(g.f32.data(), w.data(), N, K, K);
  std::vector<uint16_t> h(w.size());
  for (size_t i = 0; i < w.size(); ++i) h[i] = attnscope::f32_to_f16(w[i]);
  g.rows32 = w;
  g.rows16 = h;
  g.f16.assign(packed_b_size(K, N), 0);
  pack_b_from_weight_f16_wasmsimd(g.f16.data(), h.data(), N, K, K);
  std::vector<int8_t> q(w.size());
  g.scale.resize(N);
  quantize_weight_q8(q.data(), g.scale.data(), w.data(), N, K, K);
  g.colsum.assign(N, 0);
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < K; ++k) g.colsum[n] += q[static_cast<size_t>(n) * K + k];
  g.q8.assign(q8_packed_b_size(K, N), 0);
  pack_b_q8_wasmsimd(g.q8.data(), q.data(), N, K, K);
  replicate(g.f32, g.copies);
  replicate(g.f16, g.copies);
  replicate(g.q8, g.copies);
  replicate(g.rows32, g.copies);
  replicate(g.rows16, g.copies);
}

// Bytes of weights `kind` reads per call.
extern "C" EMSCRIPTEN_KEEPALIVE double gemv_bench_bytes(int kind) {
  const GemvCase& g = g_gemv;
  switch (kind) {
    case 0: case 1: return static_cast<double>(g.f32.size()) * 4 / g.copies;
    case 2: case 3: return static_cast<double>(g.f16.size()) * 2 / g.copies;
    case 7: return static_cast<double>(g.rows32.size()) * 4 / g.copies;
    case 8: return static_cast<double>(g.rows16.size()) * 2 / g.copies;
    default: return static_cast<double>(g.q8.size()) / g.copies;
  }
}

// kind: 0 read the f32 panels, 1 gemv_f32, 2 read the f16 panels, 3 gemv_f16b, 4 read the int8
// panels, 5 the int8 GEMM at M = 1, 6 gemv_q8 (5 and 6 quantize x in every call, as a step does),
// 7 dot_rows_f32 and 8 dot_rows_f16 over W row-major (the vocabulary head of an f32 / f16 model).
extern "C" EMSCRIPTEN_KEEPALIVE float gemv_bench_run(int kind, int reps) {
  GemvCase& g = g_gemv;
  GemmEpilogue ep;
  ep.bias = g.bias.data();
  GemmQ8Epilogue q8ep;
  q8ep.bias = g.bias.data();
  uint32_t sink = 0;
  const size_t n32 = g.f32.size() / g.copies, n16 = g.f16.size() / g.copies, n8 = g.q8.size() / g.copies;
  const size_t stride = static_cast<size_t>(g.K) * kGemmNR;
  for (int r = 0; r < reps; ++r) {
    const size_t c = static_cast<size_t>(g.next++ % g.copies);
    const float* f32 = g.f32.data() + c * n32;
    const uint16_t* f16 = g.f16.data() + c * n16;
    const int8_t* q8 = g.q8.data() + c * n8;
    switch (kind) {
      case 0: sink += read_bytes(f32, n32 * 4); break;
      case 1: gemv_f32_wasmsimd(g.y.data(), g.x.data(), f32, stride, g.N, g.K, ep); break;
      case 2: sink += read_bytes(f16, n16 * 2); break;
      case 3: gemv_f16b_wasmsimd(g.y.data(), g.x.data(), f16, stride, g.N, g.K, ep); break;
      case 4: sink += read_bytes(q8, n8); break;
      case 5:
        quantize_pack_a_q8_wasmsimd(g.rows, g.x.data(), g.K, 1, g.K);
        gemm_q8_wasmsimd(g.y.data(), g.N, g.rows, q8, g.scale.data(), g.colsum.data(), g.N, q8ep);
        break;
      case 7: dot_rows_f32(g.y.data(), g.N, g.x.data(), g.rows32.data() + c * (g.rows32.size() / g.copies), nullptr, 1, g.N, g.K); break;
      case 8: dot_rows_f16(g.y.data(), g.N, g.x.data(), g.rows16.data() + c * (g.rows16.size() / g.copies), nullptr, 1, g.N, g.K); break;
      case 6:
        quantize_pack_a_q8_wasmsimd(g.rows, g.x.data(), g.K, 1, g.K);
        gemv_q8_wasmsimd(g.y.data(), g.rows, q8, static_cast<size_t>(g.rows.kpad) * kQ8NR, g.scale.data(),
                         g.colsum.data(), g.N, q8ep);
        break;
    }
  }
  return g.y[0] + g.y[g.N - 1] + static_cast<float>(sink & 1);
}
