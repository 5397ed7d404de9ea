// PackedLinear for both builds: the SIMD128 GEMM with packed panels on wasm, Eigen on the
// untouched (out, in) weight natively (where the reference and Eigen kernels stay the tested
// path). The two agree to rounding; the wasm side is tested against naive loops in
// tests/js/kernels-simd.test.js. f16 weights are widened per K block by the wasm GEMM, and
// natively into a scratch f32 matrix per call (the native build is for tests and tools, where
// f16 is about memory, not speed).
#include "packed_linear_wasmsimd.h"

#include <Eigen/Core>
#include <algorithm>
#include <cstdint>
#include <utility>

#include "half.h"
#include "linear.h"
#ifdef __wasm_simd128__
#include "gemm_f32_wasmsimd.h"
#endif

namespace attnscope::kernels {

namespace {

#ifdef __wasm_simd128__
void pack_panels(float* out, const float* w, int N, int K) { pack_b_from_weight_f32_wasmsimd(out, w, N, K, K); }
void pack_panels(uint16_t* out, const uint16_t* w, int N, int K) {
  pack_b_from_weight_f16_wasmsimd(out, w, N, K, K);
}
#endif

// Packs `weight` (out, in) of f32 or f16 elements into 64-byte-aligned panels, returning the
// buffer and setting `offset`.
template <typename T>
std::vector<T> pack_weight(std::vector<T>&& weight, int in, int out, size_t& offset) {
  offset = 0;
#ifdef __wasm_simd128__
  constexpr size_t kAlign = 64 / sizeof(T);  // elements in 64 bytes
  const size_t panel = static_cast<size_t>(in) * kGemmNR, packed = (out + kGemmNR - 1) / kGemmNR * panel;
  if (out % kGemmNR == 0 && weight.capacity() >= packed + kAlign) {
    // In place, so loading never holds a second copy of a matrix: panel p takes exactly the
    // elements of rows 8p..8p+7, moved up by the alignment offset. Going from the last panel
    // down, each panel's rows are copied out before it is written, and a written panel only
    // spills into rows of the panel above it, which is already done.
    const size_t misalign = reinterpret_cast<uintptr_t>(weight.data()) % 64;
    offset = misalign ? (64 - misalign) / sizeof(T) : 0;
    weight.resize(packed + offset);  // within capacity: data() does not move
    std::vector<T> rows(panel);
    for (size_t b = packed / panel; b-- > 0;) {
      std::copy_n(weight.data() + b * panel, panel, rows.data());
      pack_panels(weight.data() + offset + b * panel, rows.data(), kGemmNR, in);
    }
    return std::move(weight);
  }
  std::vector<T> packed_weight(packed + kAlign);
  const size_t misalign = reinterpret_cast<uintptr_t>(packed_weight.data()) % 64;  // a multiple of the element size
  offset = misalign ? (64 - misalign) / sizeof(T) : 0;
  pack_panels(packed_weight.data() + offset, weight.data(), out, in);
  std::vector<T>().swap(weight);  // free the (out, in) copy now, not when the caller drops it
  return packed_weight;
#else
  (void)in;
  (void)out;
  return std::move(weight);
#endif
}

#ifndef __wasm_simd128__
// Native f16: the (out, in) weight widened for one Eigen call.
const float* widened(const PackedLinear& w) {
  static thread_local std::vector<float> scratch;
  if (!w.is_f16()) return w.weight.data();
  scratch.resize(w.weight_f16.size());
  f16_to_f32(scratch.data(), w.weight_f16.data(), scratch.size());
  return scratch.data();
}
#endif

}  // namespace

PackedLinear pack_linear(std::vector<float>&& weight, std::vector<float>&& bias, int in, int out) {
  PackedLinear p;
  p.in = in;
  p.out = out;
  p.bias = std::move(bias);
  p.weight = pack_weight(std::move(weight), in, out, p.offset);
  return p;
}

PackedLinear pack_linear(std::vector<uint16_t>&& weight, std::vector<float>&& bias, int in, int out) {
  PackedLinear p;
  p.in = in;
  p.out = out;
  p.bias = std::move(bias);
  p.weight_f16 = pack_weight(std::move(weight), in, out, p.offset);
  return p;
}

void linear_packed_f32(float* out, const float* inp, const PackedLinear& w, int T,
                       const LinearEpilogue& epilogue) {
#ifdef __wasm_simd128__
  GemmEpilogue ep;
  ep.bias = w.bias.empty() ? nullptr : w.bias.data();
  ep.activate = epilogue.activate;
  ep.activation = epilogue.activation;
  ep.residual = epilogue.residual;
  ep.ldr = static_cast<size_t>(w.out);
  const size_t panel_stride = static_cast<size_t>(w.in) * kGemmNR;
  if (w.is_f16())
    gemm_f16b_wasmsimd(out, w.out, inp, w.in, w.panels_f16(), panel_stride, T, w.out, w.in, ep);
  else
    gemm_f32_wasmsimd(out, w.out, inp, w.in, w.panels(), panel_stride, T, w.out, w.in, ep);
#else
  linear_f32(out, inp, widened(w), w.bias.empty() ? nullptr : w.bias.data(), T, w.in, w.out);
  const size_t n = static_cast<size_t>(T) * w.out;
  if (epilogue.activate) activation_f32(out, n, epilogue.activation);
  if (epilogue.residual)
    Eigen::Map<Eigen::ArrayXf>(out, n) += Eigen::Map<const Eigen::ArrayXf>(epilogue.residual, n);
#endif
}

void linear_packed_slice_f32(float* out, const float* inp, size_t ld_inp, const PackedLinear& w,
                             int T, int k_begin, int k_count) {
#ifdef __wasm_simd128__
  const size_t panel_stride = static_cast<size_t>(w.in) * kGemmNR, k_offset = static_cast<size_t>(k_begin) * kGemmNR;
  if (w.is_f16())
    gemm_f16b_wasmsimd(out, w.out, inp, ld_inp, w.panels_f16() + k_offset, panel_stride, T, w.out, k_count,
                       GemmEpilogue{});
  else
    gemm_f32_wasmsimd(out, w.out, inp, ld_inp, w.panels() + k_offset, panel_stride, T, w.out, k_count,
                      GemmEpilogue{});
#else
  using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Eigen::Map<const RowMatrix, 0, Eigen::OuterStride<>> x(inp, T, k_count, Eigen::OuterStride<>(ld_inp));
  Eigen::Map<const RowMatrix> W(widened(w), w.out, w.in);
  Eigen::Map<RowMatrix> y(out, T, w.out);
  y.noalias() = x * W.middleCols(k_begin, k_count).transpose();
#endif
}

}  // namespace attnscope::kernels
