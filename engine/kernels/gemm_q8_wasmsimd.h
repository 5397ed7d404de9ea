// SIMD128 int8 matrix multiply for WebAssembly: C = epilogue(dequant(Aq · Bq)) with
// B an int8 weight (symmetric, one scale per output column) packed into panels of 8 columns, A
// quantized per row to unsigned 8 bits with a zero point (quantize.h) and packed once per call,
// int32 accumulation, and the f32 epilogue of gemm_f32_wasmsimd: scale, bias, activation,
// residual. Only built for wasm32 with -msimd128.
//
//   plain build:   i32x4.dot_i16x8_s on operands widened to 16 bits; A in [0, 255].
//   relaxed build: i16x8.relaxed_dot_i8x16_i7x16_s on the bytes, its i16 pairs summed into i32 by
//                  i32x4.dot_i16x8_s with ones (measured faster in V8 11.3 than extadd_pairwise);
//                  A in [0, 127] so the 7-bit operand's top bit is clear (the instruction is then
//                  deterministic: x86 reads that operand unsigned, Arm signed, and both agree).
//                  Pairs of products stay below 2·127·127 < 2^15: no i16 saturation. Or, where
//                  the engine computes it exactly (checked at run time, see the .cpp), the fused
//                  i32x4.relaxed_dot_i8x16_i7x16_add_s: one vpdpbusd on CPUs with AVX-VNNI.
#pragma once
#ifdef __wasm_simd128__
#include <cstddef>
#include <cstdint>
#include <vector>

#include "activation.h"

namespace attnscope::kernels {

constexpr int kQ8NR = 8;  // columns per packed panel
// Consecutive k that one lane of the dot product sums (the packing unit along K).
#ifdef ATTNSCOPE_RELAXED_SIMD
constexpr int kQ8KGroup = 4;
constexpr int kQ8ActivationMax = 127;
#else
constexpr int kQ8KGroup = 2;
constexpr int kQ8ActivationMax = 255;
#endif

// K rounded up to a multiple of 4 (both builds: the packed size does not depend on the build).
inline int q8_padded_k(int K) { return (K + 3) & ~3; }
// Bytes of a packed (K, N) int8 B: ceil(N/8) panels of padded_k · 8 bytes.
inline size_t q8_packed_b_size(int K, int N) {
  return static_cast<size_t>((N + kQ8NR - 1) / kQ8NR) * static_cast<size_t>(q8_padded_k(K)) * kQ8NR;
}
// Packs an int8 weight W (N, K), row stride ldw (B = Wᵀ): panel p holds columns [8p, 8p + 8) as
// padded_k / G groups of 8 · G bytes, column j's G consecutive k at j · G. Zero padded in N and K.
void pack_b_q8_wasmsimd(int8_t* out, const int8_t* w, int N, int K, size_t ldw);

// A (M, K) quantized per row and packed in tiles of the micro-kernel's rows, 4 bytes per row per
// k group (plain: two k as int16; relaxed: four k as bytes). Reused between calls (no allocation
// once the largest shape has been seen).
struct Q8Rows {
  int M = 0, K = 0, kpad = 0;
  std::vector<uint8_t> data;
  std::vector<float> scale;     // (M)
  std::vector<int32_t> zero;    // (M)
};
void quantize_pack_a_q8_wasmsimd(Q8Rows& out, const float* a, size_t lda, int M, int K);

struct GemmQ8Epilogue {
  const float* bias = nullptr;      // (N) or nullptr
  bool activate = false;
  Activation activation = Activation::GeluErf;
  const float* residual = nullptr;  // (M, N), row stride ldr, added last, or nullptr
  size_t ldr = 0;
};

// C (M, N) = epilogue(float(Σ_k (qa − za)·qb) · (sa · sb[n])), with Σ (qa − za)·qb computed as
// Σ qa·qb − za · colsum[n] in int32. packed_b: the first panel of the N columns wanted (panels
// are padded_k · 8 bytes apart); w_scale, colsum: (N) for those columns. C must not alias the
// inputs. K must be a's K (padded the same).
void gemm_q8_wasmsimd(float* c, size_t ldc, const Q8Rows& a, const int8_t* packed_b,
                      const float* w_scale, const int32_t* colsum, int N, const GemmQ8Epilogue& ep);
// The same over a K slice of a B packed with more rows: packed_b = the slice's first group (start
// + k_begin · 8 bytes, k_begin a multiple of 4), panel_stride = (padded K B was packed with) · 8,
// colsum over the slice's k only; a holds the slice's columns of A (used for one head's
// contribution through W_O).
void gemm_q8_wasmsimd(float* c, size_t ldc, const Q8Rows& a, const int8_t* packed_b,
                      size_t panel_stride, const float* w_scale, const int32_t* colsum, int N,
                      const GemmQ8Epilogue& ep);

// Which relaxed dot product the relaxed build's micro-kernel uses: Auto (the fused one where this
// engine computes it exactly, checked once, when the module starts, on a small GEMM), or one forced (kernel tests).
// The plain build always uses i32x4.dot_i16x8_s.
enum class Q8DotForm { Auto = 0, Pairwise = 1, Fused = 2 };
void set_q8_dot_form(Q8DotForm form);
// Whether gemm_q8_wasmsimd runs the fused micro-kernel now.
bool q8_fused_dot();
// The instruction the micro-kernel now sums its products with: kQ8KernelNames[q8_kernel_kind()]
// (0 i32x4.dot_i16x8_s, the plain build; 1 the relaxed pairwise dot; 2 the fused dot-add). One
// table in every build: the builds' data must have the same layout (see the .cpp).
extern const char* const kQ8KernelNames[3];
int q8_kernel_kind();

}  // namespace attnscope::kernels
#endif  // __wasm_simd128__
