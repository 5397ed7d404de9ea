// 8-bit quantization for the q8 linear layers: weights once at load, symmetric, one
// scale per output channel (row of an nn.Linear weight); activations per row (per token) on the
// fly, asymmetric unsigned with a zero point. The same arithmetic in every build (scalar here,
// SIMD128 in the wasm GEMM's packer, bit for bit equal), so the native path is the reference the
// wasm kernels are tested against.
//
// Why asymmetric activations: the relaxed-SIMD dot product (i16x8.relaxed_dot_i8x16_i7x16_s) is
// only deterministic when one operand's bytes are in [0, 127]; activations quantized to unsigned
// [0, qmax] with a per-row zero point meet that with qmax = 127 and lose nothing to a fixed offset
// (symmetric [−63, 63] + 64 would be this with the zero point pinned at 64). In the plain build
// (qmax = 255, as onnxruntime's DynamicQuantizeLinear) asymmetric also doubles the resolution of
// one-sided rows such as the GELU outputs feeding the second feed-forward matrix. The zero point
// costs one integer multiply-add per output: Σ (q − z)·w = Σ q·w − z·Σ w, with Σ w per channel
// computed at load.
#pragma once
#include <cstddef>
#include <cstdint>

namespace attnscope::kernels {

constexpr int kQ8WeightMax = 127;  // weights in [−127, 127] (symmetric: −128 unused)

// Per-row activation quantization: x ≈ scale · (q − zero), q in [0, qmax].
struct RowQuant {
  float scale = 1.0f;
  float inv = 1.0f;  // 1 / scale, what q is computed with
  int32_t zero = 0;
};

// The parameters for a row whose values lie in [lo, hi]: the range is widened to hold 0 (so 0
// is exact), scale = (hi − lo) / qmax, zero = round(−lo / scale). A row of zeros gets scale 1.
RowQuant row_quant_params(float lo, float hi, int qmax);

// q[k] = clamp(round_half_even(x[k] · inv) + zero, 0, qmax) for one row of K values. Rows holding
// NaN or ±inf get unspecified bytes (the SIMD and scalar loops may differ there), not NaN outputs.
RowQuant quantize_row_u8(uint8_t* q, const float* x, int K, int qmax);
void dequantize_row_u8(float* x, const uint8_t* q, int K, const RowQuant& p);

// Weight W (N, K), row stride ldw: scale[n] = max_k |W[n, k]| / 127, q = clamp(round_half_even(
// W / scale), −127, 127) (q = 0, scale = 0 for an all-zero row). Returns nothing; writes q (N, K)
// row-major and scale (N).
void quantize_weight_q8(int8_t* q, float* scale, const float* w, int N, int K, size_t ldw);

}  // namespace attnscope::kernels
