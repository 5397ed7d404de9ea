// The packed-B GEMM for WebAssembly SIMD128. Loop nest (outer to inner): K in blocks of kKC,
// rows in blocks of kMC (that block of A, packed, ≤ 512 KB, stays in L2), panels of 8 columns
// (a panel's K block, ≤ 32 KB, stays in L1 while the row tiles stream past it), tiles of kMR
// rows. Partial tiles (M % kMR rows, N % 8 columns) go through the same micro-kernels: fewer rows
// by template, fewer columns via a stack tile. With f16 weights the panel's K block is widened
// into an L1-sized f32 buffer before the row tiles stream past it. Tile sizes were chosen by measurement in V8 on an
// AMD EPYC (bench/): 4×8 beat 5×8 and 6×8 (those spill: V8 has 15 allocatable xmm registers).
#include "gemm_f32_wasmsimd.h"

#ifdef __wasm_simd128__
#include <wasm_simd128.h>

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "half.h"
#include "math_f32x4_wasmsimd.h"

namespace attnscope::kernels {

namespace {

using simd::multiply_add;

// Overridable with -D for tuning experiments; the defaults are the measured best.
#ifndef ATTNSCOPE_GEMM_MR
#define ATTNSCOPE_GEMM_MR 4
#endif
#ifndef ATTNSCOPE_GEMM_KC
#define ATTNSCOPE_GEMM_KC 1024
#endif
#ifndef ATTNSCOPE_GEMM_MC
#define ATTNSCOPE_GEMM_MC 128
#endif
constexpr int kMR = ATTNSCOPE_GEMM_MR;  // rows per micro-kernel call: 4×8 → 8 accumulators
constexpr int kKC = ATTNSCOPE_GEMM_KC;  // depth of one K block
constexpr int kMC = ATTNSCOPE_GEMM_MC;  // rows of A packed at once (a multiple of kMR)
static_assert(kMC % kMR == 0, "row blocks hold whole tiles");

inline v128_t activate(v128_t x, Activation act) {
  switch (act) {
    case Activation::GeluErf: return simd::gelu_erf_f32x4(x);
    case Activation::GeluTanh: return simd::gelu_tanh_f32x4(x);
    case Activation::Relu: return simd::relu_f32x4(x);
    case Activation::Silu:  // x / (1 + e^−x); e^−x = inf for x < −88 gives −0, as in float
      return wasm_f32x4_div(x, wasm_f32x4_add(wasm_f32x4_splat(1.0f), simd::exp_f32x4(wasm_f32x4_neg(x))));
  }
  return x;
}

// MR rows × 8 columns of C += A[MR, kc] · Bpanel[kc, 8], A packed as kc groups of MR floats,
// so every splat load is at a constant offset from one pointer: V8 emits per k two vmovdqu, MR
// vbroadcastss, 2·MR vmulps + vaddps and three integer ops. The loop is deliberately not
// unrolled: clang then hoists all loads of the unrolled steps to the top and V8 spills.
// `c` holds a full 8-wide tile (the caller redirects partial-width tiles to a stack tile).
// first: start from 0 instead of c; last: apply the epilogue before storing.
template <int MR>
void gemm_f32_mrx8_wasmsimd(int kc, const float* ap, const float* w, float* c, size_t ldc,
                            bool first, bool last, const GemmEpilogue& ep, const float* bias8,
                            const float* residual, size_t ldr) {
  v128_t acc0[MR], acc1[MR];
  for (int r = 0; r < MR; ++r) {
    if (first) {
      acc0[r] = wasm_f32x4_splat(0.0f);
      acc1[r] = wasm_f32x4_splat(0.0f);
    } else {
      acc0[r] = wasm_v128_load(c + r * ldc);
      acc1[r] = wasm_v128_load(c + r * ldc + 4);
    }
  }
  auto step = [&](const float* a, const float* b) {
    const v128_t b0 = wasm_v128_load(b);
    const v128_t b1 = wasm_v128_load(b + 4);
    for (int r = 0; r < MR; ++r) {
      const v128_t x = wasm_v128_load32_splat(a + r);
      acc0[r] = multiply_add(x, b0, acc0[r]);
      acc1[r] = multiply_add(x, b1, acc1[r]);
    }
  };
  const float* const a_end = ap + kc * MR;
#pragma clang loop unroll(disable)
  while (ap != a_end) {
    step(ap, w);
    ap += MR;
    w += 8;
  }
  if (last) {
    const v128_t scale = wasm_f32x4_splat(ep.scale);
    const bool scaled = ep.scale != 1.0f;
    const v128_t bias0 = bias8 ? wasm_v128_load(bias8) : wasm_f32x4_splat(0.0f);
    const v128_t bias1 = bias8 ? wasm_v128_load(bias8 + 4) : wasm_f32x4_splat(0.0f);
    for (int r = 0; r < MR; ++r) {
      if (scaled) {
        acc0[r] = wasm_f32x4_mul(acc0[r], scale);
        acc1[r] = wasm_f32x4_mul(acc1[r], scale);
      }
      acc0[r] = wasm_f32x4_add(acc0[r], bias0);
      acc1[r] = wasm_f32x4_add(acc1[r], bias1);
      if (ep.activate) {
        acc0[r] = activate(acc0[r], ep.activation);
        acc1[r] = activate(acc1[r], ep.activation);
      }
      if (residual) {
        acc0[r] = wasm_f32x4_add(acc0[r], wasm_v128_load(residual + r * ldr));
        acc1[r] = wasm_f32x4_add(acc1[r], wasm_v128_load(residual + r * ldr + 4));
      }
    }
  }
  for (int r = 0; r < MR; ++r) {
    wasm_v128_store(c + r * ldc, acc0[r]);
    wasm_v128_store(c + r * ldc + 4, acc1[r]);
  }
}

// Copies rows [m0, m0+mr) × columns [k0, k0+kc) of A into kc groups of mr floats.
void pack_a_tile(float* out, const float* a, size_t lda, int mr, int kc) {
  for (int r = 0; r < mr; ++r) {
    const float* row = a + r * lda;
    for (int k = 0; k < kc; ++k) out[k * mr + r] = row[k];
  }
}

using MicroKernel = void (*)(int, const float*, const float*, float*, size_t, bool, bool,
                             const GemmEpilogue&, const float*, const float*, size_t);
constexpr MicroKernel kKernels[7] = {nullptr, gemm_f32_mrx8_wasmsimd<1>, gemm_f32_mrx8_wasmsimd<2>,
                                     gemm_f32_mrx8_wasmsimd<3>, gemm_f32_mrx8_wasmsimd<4>,
                                     gemm_f32_mrx8_wasmsimd<5>, gemm_f32_mrx8_wasmsimd<6>};
static_assert(kMR >= 1 && kMR <= 6, "kKernels covers 1..6 rows");

template <typename T>
void pack_b_from_weight(T* out, const T* w, int N, int K, size_t ldw) {
  for (int n0 = 0; n0 < N; n0 += kGemmNR) {
    const int nc = std::min(kGemmNR, N - n0);
    for (int k = 0; k < K; ++k) {
      for (int j = 0; j < kGemmNR; ++j) out[j] = j < nc ? w[(n0 + j) * ldw + k] : T(0);
      out += kGemmNR;
    }
  }
}

// The loop nest for f32 panels (used as they are) and f16 panels (widened per K block).
template <typename T>
void gemm_packed(float* c, size_t ldc, const float* a, size_t lda, const T* packed_b,
                 size_t panel_stride, int M, int N, int K, const GemmEpilogue& ep);

}  // namespace

void pack_b_from_weight_f32_wasmsimd(float* out, const float* w, int N, int K, size_t ldw) {
  pack_b_from_weight(out, w, N, K, ldw);
}

void pack_b_from_weight_f16_wasmsimd(uint16_t* out, const uint16_t* w, int N, int K, size_t ldw) {
  pack_b_from_weight(out, w, N, K, ldw);
}

void pack_b_f32_wasmsimd(float* out, const float* b, int K, int N, size_t ldb) {
  for (int n0 = 0; n0 < N; n0 += kGemmNR) {
    const int nc = std::min(kGemmNR, N - n0);
    for (int k = 0; k < K; ++k) {
      const float* row = b + k * ldb + n0;
      if (nc == kGemmNR) {
        wasm_v128_store(out, wasm_v128_load(row));
        wasm_v128_store(out + 4, wasm_v128_load(row + 4));
      } else {
        for (int j = 0; j < kGemmNR; ++j) out[j] = j < nc ? row[j] : 0.0f;
      }
      out += kGemmNR;
    }
  }
}

void gemm_f32_wasmsimd(float* c, size_t ldc, const float* a, size_t lda, const float* packed_b,
                       int M, int N, int K, const GemmEpilogue& ep) {
  gemm_f32_wasmsimd(c, ldc, a, lda, packed_b, static_cast<size_t>(K) * kGemmNR, M, N, K, ep);
}

void gemm_f32_wasmsimd(float* c, size_t ldc, const float* a, size_t lda, const float* packed_b,
                       size_t panel_stride, int M, int N, int K, const GemmEpilogue& ep) {
  gemm_packed(c, ldc, a, lda, packed_b, panel_stride, M, N, K, ep);
}

void gemm_f16b_wasmsimd(float* c, size_t ldc, const float* a, size_t lda, const uint16_t* packed_b,
                        size_t panel_stride, int M, int N, int K, const GemmEpilogue& ep) {
  gemm_packed(c, ldc, a, lda, packed_b, panel_stride, M, N, K, ep);
}

namespace {

template <typename T>
void gemm_packed(float* c, size_t ldc, const float* a, size_t lda, const T* packed_b,
                 size_t panel_stride, int M, int N, int K, const GemmEpilogue& ep) {
  constexpr bool kHalf = std::is_same_v<T, uint16_t>;
  if (M <= 0 || N <= 0) return;
  alignas(16) thread_local float widened[kHalf ? kKC * kGemmNR : 1];  // one panel's K block as f32
  alignas(16) float tile[kMR * kGemmNR];   // partial-width C tile
  alignas(16) float bias8[kGemmNR];        // partial-width bias
  alignas(16) float resid[kMR * kGemmNR];  // partial-width residual
  // The current (MC, KC) block of A, packed tile by tile; kept between calls (no allocation per
  // GEMM once the largest shape has been seen; at most kMC·kKC floats = 512 KB).
  thread_local std::vector<float> a_packed;  // per thread: column ranges run in parallel
  const int kc_step = std::max(1, std::min(kKC, K));
  a_packed.resize(static_cast<size_t>(std::min(M, kMC)) * kc_step);
  for (int k0 = 0; k0 < std::max(K, 1); k0 += kc_step) {
    const int kc = std::max(0, std::min(kc_step, K - k0));
    const bool first = k0 == 0, last = k0 + kc_step >= K;
    for (int mb = 0; mb < M; mb += kMC) {
      const int mb_end = std::min(M, mb + kMC);
      for (int m0 = mb; m0 < mb_end; m0 += kMR)
        pack_a_tile(a_packed.data() + static_cast<size_t>(m0 - mb) * kc, a + m0 * lda + k0, lda,
                    std::min(kMR, M - m0), kc);
      for (int n0 = 0; n0 < N; n0 += kGemmNR) {
        const int nc = std::min(kGemmNR, N - n0);
        const T* panel = packed_b + (n0 / kGemmNR) * panel_stride + static_cast<size_t>(k0) * kGemmNR;
        const float* w;
        if constexpr (kHalf) {
          f16_to_f32(widened, panel, static_cast<size_t>(kc) * kGemmNR);
          w = widened;
        } else {
          w = panel;
        }
        const float* bias = nullptr;
        if (ep.bias && last) {
          if (nc == kGemmNR) {
            bias = ep.bias + n0;
          } else {
            for (int j = 0; j < kGemmNR; ++j) bias8[j] = j < nc ? ep.bias[n0 + j] : 0.0f;
            bias = bias8;
          }
        }
        for (int m0 = mb; m0 < mb_end; m0 += kMR) {
          const int mr = std::min(kMR, M - m0);
          const float* am = a_packed.data() + static_cast<size_t>(m0 - mb) * kc;
          float* cm = c + m0 * ldc + n0;
          const float* rm = ep.residual && last ? ep.residual + m0 * ep.ldr + n0 : nullptr;
          if (nc == kGemmNR) {
            kKernels[mr](kc, am, w, cm, ldc, first, last, ep, bias, rm, ep.ldr);
            continue;
          }
          // Partial width: run the full 8-wide kernel on a stack tile, copy back nc columns.
          for (int r = 0; r < mr; ++r) {
            for (int j = 0; j < kGemmNR; ++j) {
              tile[r * kGemmNR + j] = (!first && j < nc) ? cm[r * ldc + j] : 0.0f;
              if (rm) resid[r * kGemmNR + j] = j < nc ? rm[r * ep.ldr + j] : 0.0f;
            }
          }
          kKernels[mr](kc, am, w, tile, kGemmNR, first, last, ep, bias, rm ? resid : nullptr,
                       kGemmNR);
          for (int r = 0; r < mr; ++r)
            std::memcpy(cm + r * ldc, tile + r * kGemmNR, nc * sizeof(float));
        }
      }
    }
  }
}

}  // namespace
}  // namespace attnscope::kernels
#endif  // __wasm_simd128__
