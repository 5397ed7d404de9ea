// PackedLinear for both builds: the SIMD128 GEMM with packed panels on wasm, Eigen on the
// untouched (out, in) weight natively (where the reference and Eigen kernels stay the tested
// path). The two agree to rounding; the wasm side is tested against naive loops in
// tests/js/kernels-simd.test.js.
#include "packed_linear_wasmsimd.h"

#include <Eigen/Core>
#include <algorithm>
#include <cstdint>
#include <utility>

#include "linear.h"
#ifdef __wasm_simd128__
#include "gemm_f32_wasmsimd.h"
#endif

namespace attnscope::kernels {

PackedLinear pack_linear(std::vector<float>&& weight, std::vector<float>&& bias, int in, int out) {
  PackedLinear p;
  p.in = in;
  p.out = out;
  p.bias = std::move(bias);
#ifdef __wasm_simd128__
  constexpr size_t kAlignFloats = 16;  // 64 bytes
  const size_t panel = static_cast<size_t>(in) * kGemmNR, packed = (out + kGemmNR - 1) / kGemmNR * panel;
  if (out % kGemmNR == 0 && weight.capacity() >= packed + kAlignFloats) {
    // In place, so loading never holds a second copy of a matrix: panel p takes exactly the
    // floats of rows 8p..8p+7, moved up by the alignment offset. Going from the last panel down,
    // each panel's rows are copied out before it is written, and a written panel only spills
    // into rows of the panel above it, which is already done.
    const size_t misalign = reinterpret_cast<uintptr_t>(weight.data()) % 64;
    p.offset = misalign ? (64 - misalign) / sizeof(float) : 0;
    weight.resize(packed + p.offset);  // within capacity: data() does not move
    std::vector<float> rows(panel);
    for (size_t b = packed / panel; b-- > 0;) {
      std::copy_n(weight.data() + b * panel, panel, rows.data());
      pack_b_from_weight_f32_wasmsimd(weight.data() + p.offset + b * panel, rows.data(), kGemmNR, in, in);
    }
    p.weight = std::move(weight);
    return p;
  }
  p.weight.resize(packed + kAlignFloats);
  const size_t misalign = reinterpret_cast<uintptr_t>(p.weight.data()) % 64;  // a multiple of 4
  p.offset = misalign ? (64 - misalign) / sizeof(float) : 0;
  pack_b_from_weight_f32_wasmsimd(p.weight.data() + p.offset, weight.data(), out, in, in);
  std::vector<float>().swap(weight);  // free the (out, in) copy now, not when the caller drops it
#else
  p.weight = std::move(weight);
#endif
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
  gemm_f32_wasmsimd(out, w.out, inp, w.in, w.panels(), T, w.out, w.in, ep);
#else
  linear_f32(out, inp, w.weight.data(), w.bias.empty() ? nullptr : w.bias.data(), T, w.in, w.out);
  const size_t n = static_cast<size_t>(T) * w.out;
  if (epilogue.activate) activation_f32(out, n, epilogue.activation);
  if (epilogue.residual)
    Eigen::Map<Eigen::ArrayXf>(out, n) += Eigen::Map<const Eigen::ArrayXf>(epilogue.residual, n);
#endif
}

void linear_packed_slice_f32(float* out, const float* inp, size_t ld_inp, const PackedLinear& w,
                             int T, int k_begin, int k_count) {
#ifdef __wasm_simd128__
  gemm_f32_wasmsimd(out, w.out, inp, ld_inp, w.panels() + static_cast<size_t>(k_begin) * kGemmNR,
                    static_cast<size_t>(w.in) * kGemmNR, T, w.out, k_count, GemmEpilogue{});
#else
  using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Eigen::Map<const RowMatrix, 0, Eigen::OuterStride<>> x(inp, T, k_count, Eigen::OuterStride<>(ld_inp));
  Eigen::Map<const RowMatrix> W(w.weight.data(), w.out, w.in);
  Eigen::Map<RowMatrix> y(out, T, w.out);
  y.noalias() = x * W.middleCols(k_begin, k_count).transpose();
#endif
}

}  // namespace attnscope::kernels
