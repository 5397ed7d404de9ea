// The int8 packed-B GEMM for WebAssembly SIMD128. The loop nest is gemm_f32_wasmsimd's: K in
// blocks of kKC, rows in blocks of kMC, panels of 8 columns, tiles of kMR rows; partial tiles go
// through the same micro-kernels (fewer rows by template, fewer columns via a stack tile). A is
// quantized and packed once for the whole call (per-row parameters need the whole row), so the
// blocks only index into it. Between K blocks the int32 partial sums are kept in C's memory
// (their bits; C is float storage of the same size), and the last block applies the epilogue.
//
// Relaxed build: the dot products of q8_dot_wasmsimd.h.
//
// The fused form, i32x4.relaxed_dot_i8x16_i7x16_add_s, is a second micro-kernel. Where the CPU
// has AVX-VNNI, newer V8 (Chromium 156)
// lowers it to one vpdpbusd instead of pmaddubsw + pmaddwd + paddd: twice the kernel's
// throughput there (measured on this project's Xeon). Node 20's V8 (11.3) computes it wrong on
// x64 (twice the dot product, the addend ignored). So the module decides at run time: when it
// starts it runs both micro-kernels on a small random GEMM and takes the fused one only if it
// gives the pairwise one's result bit for bit (the sums are exact integers either way).
#include "gemm_q8_wasmsimd.h"

#ifdef __wasm_simd128__
#include <wasm_simd128.h>

#include <algorithm>
#include <atomic>
#include <cstring>

#include "math_f32x4_wasmsimd.h"
#include "q8_dot_wasmsimd.h"
#include "quantize.h"

namespace attnscope::kernels {

namespace {

#ifndef ATTNSCOPE_Q8_MR
#define ATTNSCOPE_Q8_MR 4
#endif
#ifndef ATTNSCOPE_Q8_KC
#define ATTNSCOPE_Q8_KC 2048
#endif
#ifndef ATTNSCOPE_Q8_MC
#define ATTNSCOPE_Q8_MC 128
#endif
constexpr int kMR = ATTNSCOPE_Q8_MR;  // rows per micro-kernel call: 4 × 8 → 8 i32x4 accumulators
constexpr int kKC = ATTNSCOPE_Q8_KC;  // depth of one K block (a multiple of 4)
constexpr int kMC = ATTNSCOPE_Q8_MC;  // rows per row block (a multiple of kMR)
static_assert(kMC % kMR == 0 && kKC % 4 == 0, "blocks hold whole tiles and whole k groups");
constexpr int kG = kQ8KGroup;

#ifdef ATTNSCOPE_RELAXED_SIMD
using simd::relaxed_dot_add;
using simd::relaxed_dot_i16;
#endif

inline v128_t activate(v128_t x, Activation act) {
  switch (act) {
    case Activation::GeluErf: return simd::gelu_erf_f32x4(x);
    case Activation::GeluTanh: return simd::gelu_tanh_f32x4(x);
    case Activation::Relu: return simd::relu_f32x4(x);
    case Activation::Silu:  // x / (1 + e^−x), as the f32 GEMM's epilogue (Llama's SwiGLU gate)
      return wasm_f32x4_div(x, wasm_f32x4_add(wasm_f32x4_splat(1.0f), simd::exp_f32x4(wasm_f32x4_neg(x))));
  }
  return x;
}

struct TileArgs {
  const float* bias8 = nullptr;       // 8 values or nullptr
  const int32_t* colsum8 = nullptr;   // 8
  const float* wscale8 = nullptr;     // 8
  const float* row_scale = nullptr;   // MR, this tile's rows
  const int32_t* row_zero = nullptr;  // MR
  const float* residual = nullptr;    // 8-wide rows with stride ldr, or nullptr
  size_t ldr = 0;
};

// MR rows × 8 columns: acc += A[MR, groups·G] · Bpanel[groups·G, 8]; A packed as `groups`
// groups of MR × 4 bytes, B as groups of 8 · G bytes. first: start from 0 instead of C's int32
// partial sums; last: dequantize and apply the epilogue (else store the partial sums).
// Fused (relaxed build only): the dot product and its accumulation in one instruction.
template <int MR, bool Fused>
void gemm_q8_mrx8_wasmsimd(int groups, const uint8_t* ap, const int8_t* w, float* c, size_t ldc,
                           bool first, bool last, const GemmQ8Epilogue& ep, const TileArgs& t) {
  v128_t acc0[MR], acc1[MR];
  for (int r = 0; r < MR; ++r) {
    if (first) {
      acc0[r] = wasm_i32x4_splat(0);
      acc1[r] = wasm_i32x4_splat(0);
    } else {
      acc0[r] = wasm_v128_load(c + r * ldc);
      acc1[r] = wasm_v128_load(c + r * ldc + 4);
    }
  }
  const uint8_t* const a_end = ap + static_cast<size_t>(groups) * MR * 4;
#ifdef ATTNSCOPE_RELAXED_SIMD
  const v128_t ones = wasm_i16x8_splat(1);  // pairs of i16 lanes summed into i32 (pmaddwd)
  (void)ones;
#else
  static_assert(!Fused, "the fused dot product is a relaxed-SIMD instruction");
#endif
#pragma clang loop unroll(disable)
  while (ap != a_end) {
#ifdef ATTNSCOPE_RELAXED_SIMD
    const v128_t w0 = wasm_v128_load(w), w1 = wasm_v128_load(w + 16);  // columns 0-3, 4-7 × 4 k
    for (int r = 0; r < MR; ++r) {
      const v128_t x = wasm_v128_load32_splat(ap + 4 * r);
      if constexpr (Fused) {
        acc0[r] = relaxed_dot_add(w0, x, acc0[r]);
        acc1[r] = relaxed_dot_add(w1, x, acc1[r]);
      } else {
        acc0[r] = wasm_i32x4_add(acc0[r], wasm_i32x4_dot_i16x8(relaxed_dot_i16(w0, x), ones));
        acc1[r] = wasm_i32x4_add(acc1[r], wasm_i32x4_dot_i16x8(relaxed_dot_i16(w1, x), ones));
      }
    }
    w += 32;
#else
    const v128_t wv = wasm_v128_load(w);  // 8 columns × 2 k
    const v128_t w0 = wasm_i16x8_extend_low_i8x16(wv), w1 = wasm_i16x8_extend_high_i8x16(wv);
    for (int r = 0; r < MR; ++r) {
      const v128_t x = wasm_v128_load32_splat(ap + 4 * r);  // two k as int16
      acc0[r] = wasm_i32x4_add(acc0[r], wasm_i32x4_dot_i16x8(x, w0));
      acc1[r] = wasm_i32x4_add(acc1[r], wasm_i32x4_dot_i16x8(x, w1));
    }
    w += 16;
#endif
    ap += MR * 4;
  }
  if (!last) {
    for (int r = 0; r < MR; ++r) {
      wasm_v128_store(c + r * ldc, acc0[r]);
      wasm_v128_store(c + r * ldc + 4, acc1[r]);
    }
    return;
  }
  const v128_t colsum0 = wasm_v128_load(t.colsum8), colsum1 = wasm_v128_load(t.colsum8 + 4);
  const v128_t ws0 = wasm_v128_load(t.wscale8), ws1 = wasm_v128_load(t.wscale8 + 4);
  const v128_t bias0 = t.bias8 ? wasm_v128_load(t.bias8) : wasm_f32x4_splat(0.0f);
  const v128_t bias1 = t.bias8 ? wasm_v128_load(t.bias8 + 4) : wasm_f32x4_splat(0.0f);
  for (int r = 0; r < MR; ++r) {
    const v128_t z = wasm_i32x4_splat(t.row_zero[r]), s = wasm_f32x4_splat(t.row_scale[r]);
    v128_t y0 = wasm_f32x4_convert_i32x4(wasm_i32x4_sub(acc0[r], wasm_i32x4_mul(z, colsum0)));
    v128_t y1 = wasm_f32x4_convert_i32x4(wasm_i32x4_sub(acc1[r], wasm_i32x4_mul(z, colsum1)));
    y0 = wasm_f32x4_add(wasm_f32x4_mul(y0, wasm_f32x4_mul(s, ws0)), bias0);
    y1 = wasm_f32x4_add(wasm_f32x4_mul(y1, wasm_f32x4_mul(s, ws1)), bias1);
    if (ep.activate) {
      y0 = activate(y0, ep.activation);
      y1 = activate(y1, ep.activation);
    }
    if (t.residual) {
      y0 = wasm_f32x4_add(y0, wasm_v128_load(t.residual + r * t.ldr));
      y1 = wasm_f32x4_add(y1, wasm_v128_load(t.residual + r * t.ldr + 4));
    }
    wasm_v128_store(c + r * ldc, y0);
    wasm_v128_store(c + r * ldc + 4, y1);
  }
}

using MicroKernel = void (*)(int, const uint8_t*, const int8_t*, float*, size_t, bool, bool,
                             const GemmQ8Epilogue&, const TileArgs&);
#ifdef ATTNSCOPE_RELAXED_SIMD
constexpr bool kFusedBuild = true;
#else
constexpr bool kFusedBuild = false;
#endif
// Both builds hold both tables, the probe below and its buffers, with the same sizes: the
// threaded builds' JavaScript glue embeds addresses of the module's data (and names its imports
// in order of use), and the plain and relaxed threaded builds must share that glue byte for byte
// (scripts/build.sh checks). In the plain build the "fused" table is the pairwise kernels again.
constexpr MicroKernel kPairwiseKernels[7] = {
    nullptr, gemm_q8_mrx8_wasmsimd<1, false>, gemm_q8_mrx8_wasmsimd<2, false>, gemm_q8_mrx8_wasmsimd<3, false>,
    gemm_q8_mrx8_wasmsimd<4, false>, gemm_q8_mrx8_wasmsimd<5, false>, gemm_q8_mrx8_wasmsimd<6, false>};
constexpr MicroKernel kFusedKernels[7] = {
    nullptr, gemm_q8_mrx8_wasmsimd<1, kFusedBuild>, gemm_q8_mrx8_wasmsimd<2, kFusedBuild>,
    gemm_q8_mrx8_wasmsimd<3, kFusedBuild>, gemm_q8_mrx8_wasmsimd<4, kFusedBuild>,
    gemm_q8_mrx8_wasmsimd<5, kFusedBuild>, gemm_q8_mrx8_wasmsimd<6, kFusedBuild>};
static_assert(kMR >= 1 && kMR <= 6, "the tables cover 1..6 rows");

void gemm_q8_blocks(float* c, size_t ldc, const Q8Rows& a, const int8_t* packed_b, size_t panel_stride,
                    const float* w_scale, const int32_t* colsum, int N, const GemmQ8Epilogue& ep,
                    const MicroKernel* kernels);

std::atomic<int> dot_form{static_cast<int>(Q8DotForm::Auto)};

// Whether this engine computes the fused micro-kernel exactly: a 5 × 12 GEMM over K = 72 (two row
// tiles, a partial one; a full and a partial panel; odd k groups) from a fixed seed, through
// both tables, compared bit for bit. Runs once, when the module starts (kFusedDotExact below:
// static initialization, on the main thread before any worker exists), so its buffers can be
// static: nothing in its frame has a destructor and nothing waits on a guard (no extra invoke_*
// shims in the threaded builds, whose exceptions are JavaScript's).
Q8Rows probe_rows;
bool fused_dot_exact() {
  constexpr int M = 5, N = 12, K = 72, kPackedB = 2 * K * kQ8NR;  // two panels, K a multiple of 4
  static_assert(kPackedB == static_cast<int>((N + kQ8NR - 1) / kQ8NR) * K * kQ8NR, "K is already padded");
  alignas(16) static float a[M * K], scale[N], bias[N], c0[M * N], c1[M * N];
  alignas(16) static int8_t w[N * K], packed[kPackedB];
  alignas(16) static int32_t colsum[N];
  uint32_t s = 12345;
  auto next = [&] { return (s = s * 1103515245u + 12345u) >> 8; };
  for (float& x : a) x = static_cast<float>(next() % 2001) / 1000.0f - 1.0f;
  for (int n = 0; n < N; ++n) {
    scale[n] = 1.0f / 127.0f;
    bias[n] = static_cast<float>(n);
    colsum[n] = 0;
    for (int k = 0; k < K; ++k) colsum[n] += w[n * K + k] = static_cast<int8_t>(static_cast<int>(next() % 255) - 127);
  }
  pack_b_q8_wasmsimd(packed, w, N, K, K);
  quantize_pack_a_q8_wasmsimd(probe_rows, a, K, M, K);
  GemmQ8Epilogue ep;
  ep.bias = bias;
  const size_t stride = static_cast<size_t>(probe_rows.kpad) * kQ8NR;
  gemm_q8_blocks(c0, N, probe_rows, packed, stride, scale, colsum, N, ep, kPairwiseKernels);
  gemm_q8_blocks(c1, N, probe_rows, packed, stride, scale, colsum, N, ep, kFusedKernels);
  return std::memcmp(c0, c1, sizeof c0) == 0;
}
const bool kFusedDotExact = fused_dot_exact();

bool use_fused() {
  const auto form = static_cast<Q8DotForm>(dot_form.load(std::memory_order_relaxed));
  return form == Q8DotForm::Fused || (form == Q8DotForm::Auto && kFusedDotExact);
}

const MicroKernel* micro_kernels() { return use_fused() ? kFusedKernels : kPairwiseKernels; }

}  // namespace

const char* const kQ8KernelNames[3] = {"i32x4.dot_i16x8_s", "i16x8.relaxed_dot_i8x16_i7x16_s",
                                       "i32x4.relaxed_dot_i8x16_i7x16_add_s"};

void set_q8_dot_form(Q8DotForm form) { dot_form.store(static_cast<int>(form), std::memory_order_relaxed); }

bool q8_fused_dot() { return kFusedBuild && use_fused(); }

int q8_kernel_kind() { return kFusedBuild ? (use_fused() ? 2 : 1) : 0; }

void pack_b_q8_wasmsimd(int8_t* out, const int8_t* w, int N, int K, size_t ldw) {
  const int kpad = q8_padded_k(K);
  for (int n0 = 0; n0 < N; n0 += kQ8NR) {
    const int nc = std::min(kQ8NR, N - n0);
    for (int k0 = 0; k0 < kpad; k0 += kG) {
      for (int j = 0; j < kQ8NR; ++j)
        for (int i = 0; i < kG; ++i)
          out[j * kG + i] = (j < nc && k0 + i < K) ? w[(n0 + j) * ldw + k0 + i] : int8_t{0};
      out += kQ8NR * kG;
    }
  }
}

void quantize_pack_a_q8_wasmsimd(Q8Rows& out, const float* a, size_t lda, int M, int K) {
  out.M = M;
  out.K = K;
  out.kpad = q8_padded_k(K);
  const int groups = out.kpad / kG;
  const size_t tile_bytes = static_cast<size_t>(kMR) * groups * 4;
  out.data.resize(static_cast<size_t>((M + kMR - 1) / kMR) * tile_bytes);
  out.scale.resize(M);
  out.zero.resize(M);
  // One quantized row, zero padded to a multiple of 16 bytes for the SIMD scatter.
  thread_local std::vector<uint8_t> row;
  const size_t row_len = (static_cast<size_t>(K) + 15) / 16 * 16;
  row.assign(row_len, 0);
  for (int m = 0; m < M; ++m) {
    const RowQuant p = quantize_row_u8(row.data(), a + m * lda, K, kQ8ActivationMax);
    out.scale[m] = p.scale;
    out.zero[m] = p.zero;
    const int tile = m / kMR, r = m % kMR, mr = std::min(kMR, M - tile * kMR);
    uint8_t* base = out.data.data() + tile * tile_bytes + r * 4;
    const size_t step = static_cast<size_t>(mr) * 4;  // bytes between a row's consecutive groups
    // Group g of this row goes to base + g · step: 4 bytes (relaxed: 4 k as bytes; plain: 2 k as
    // int16). The row's bytes past K are 0 (assign above; quantize only writes [0, K)).
    int g = 0;
    for (size_t k = 0; k < row_len && g < groups; k += 16) {
      const v128_t v = wasm_v128_load(row.data() + k);
#ifdef ATTNSCOPE_RELAXED_SIMD
      if (g + 4 <= groups) {
        wasm_v128_store32_lane(base + (g + 0) * step, v, 0);
        wasm_v128_store32_lane(base + (g + 1) * step, v, 1);
        wasm_v128_store32_lane(base + (g + 2) * step, v, 2);
        wasm_v128_store32_lane(base + (g + 3) * step, v, 3);
        g += 4;
      } else {
        for (int i = 0; g < groups; ++i, ++g) std::memcpy(base + g * step, row.data() + k + 4 * i, 4);
      }
#else
      const v128_t halves[2] = {wasm_u16x8_extend_low_u8x16(v), wasm_u16x8_extend_high_u8x16(v)};
      for (const v128_t h : halves) {
        if (g + 4 <= groups) {
          wasm_v128_store32_lane(base + (g + 0) * step, h, 0);
          wasm_v128_store32_lane(base + (g + 1) * step, h, 1);
          wasm_v128_store32_lane(base + (g + 2) * step, h, 2);
          wasm_v128_store32_lane(base + (g + 3) * step, h, 3);
          g += 4;
        } else {
          alignas(16) uint8_t tmp[16];
          wasm_v128_store(tmp, h);
          for (int i = 0; g < groups && i < 4; ++i, ++g) std::memcpy(base + g * step, tmp + 4 * i, 4);
        }
      }
#endif
    }
  }
}

void gemm_q8_wasmsimd(float* c, size_t ldc, const Q8Rows& a, const int8_t* packed_b,
                      const float* w_scale, const int32_t* colsum, int N, const GemmQ8Epilogue& ep) {
  gemm_q8_wasmsimd(c, ldc, a, packed_b, static_cast<size_t>(a.kpad) * kQ8NR, w_scale, colsum, N, ep);
}

void gemm_q8_wasmsimd(float* c, size_t ldc, const Q8Rows& a, const int8_t* packed_b,
                      size_t panel_stride, const float* w_scale, const int32_t* colsum, int N,
                      const GemmQ8Epilogue& ep) {
  gemm_q8_blocks(c, ldc, a, packed_b, panel_stride, w_scale, colsum, N, ep, micro_kernels());
}

namespace {

void gemm_q8_blocks(float* c, size_t ldc, const Q8Rows& a, const int8_t* packed_b, size_t panel_stride,
                    const float* w_scale, const int32_t* colsum, int N, const GemmQ8Epilogue& ep,
                    const MicroKernel* kernels) {
  const int M = a.M;
  if (M <= 0 || N <= 0) return;
  const int groups_total = a.kpad / kG;
  const size_t tile_bytes = static_cast<size_t>(kMR) * groups_total * 4;
  constexpr int kc_groups = kKC / kG;
  alignas(16) float tile[kMR * kQ8NR];   // partial-width C tile
  alignas(16) float resid[kMR * kQ8NR];  // partial-width residual
  alignas(16) float bias8[kQ8NR], wscale8[kQ8NR];
  alignas(16) int32_t colsum8[kQ8NR];
  for (int g0 = 0; g0 < std::max(groups_total, 1); g0 += kc_groups) {
    const int gc = std::max(0, std::min(kc_groups, groups_total - g0));
    const bool first = g0 == 0, last = g0 + kc_groups >= groups_total;
    for (int mb = 0; mb < M; mb += kMC) {
      const int mb_end = std::min(M, mb + kMC);
      for (int n0 = 0; n0 < N; n0 += kQ8NR) {
        const int nc = std::min(kQ8NR, N - n0);
        const int8_t* w = packed_b + (n0 / kQ8NR) * panel_stride + static_cast<size_t>(g0) * kG * kQ8NR;
        TileArgs t;
        if (last) {
          if (nc == kQ8NR) {
            t.bias8 = ep.bias ? ep.bias + n0 : nullptr;
            t.colsum8 = colsum + n0;
            t.wscale8 = w_scale + n0;
          } else {
            for (int j = 0; j < kQ8NR; ++j) {
              bias8[j] = j < nc && ep.bias ? ep.bias[n0 + j] : 0.0f;
              wscale8[j] = j < nc ? w_scale[n0 + j] : 0.0f;
              colsum8[j] = j < nc ? colsum[n0 + j] : 0;
            }
            t.bias8 = ep.bias ? bias8 : nullptr;
            t.colsum8 = colsum8;
            t.wscale8 = wscale8;
          }
        }
        for (int m0 = mb; m0 < mb_end; m0 += kMR) {
          const int mr = std::min(kMR, M - m0);
          const uint8_t* ap = a.data.data() + (m0 / kMR) * tile_bytes + static_cast<size_t>(g0) * mr * 4;
          float* cm = c + m0 * ldc + n0;
          const float* rm = ep.residual && last ? ep.residual + m0 * ep.ldr + n0 : nullptr;
          t.row_scale = a.scale.data() + m0;
          t.row_zero = a.zero.data() + m0;
          if (nc == kQ8NR) {
            t.residual = rm;
            t.ldr = ep.ldr;
            kernels[mr](gc, ap, w, cm, ldc, first, last, ep, t);
            continue;
          }
          // Partial width: the 8-wide kernel on a stack tile (int32 partial sums copied as bits).
          for (int r = 0; r < mr; ++r) {
            for (int j = 0; j < kQ8NR; ++j) {
              if (!first && j < nc) std::memcpy(&tile[r * kQ8NR + j], &cm[r * ldc + j], sizeof(float));
              else tile[r * kQ8NR + j] = 0.0f;
              if (rm) resid[r * kQ8NR + j] = j < nc ? rm[r * ep.ldr + j] : 0.0f;
            }
          }
          t.residual = rm ? resid : nullptr;
          t.ldr = kQ8NR;
          kernels[mr](gc, ap, w, tile, kQ8NR, first, last, ep, t);
          for (int r = 0; r < mr; ++r) std::memcpy(cm + r * ldc, tile + r * kQ8NR, nc * sizeof(float));
        }
      }
    }
  }
}

}  // namespace

}  // namespace attnscope::kernels
#endif  // __wasm_simd128__
