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
#include <cstdlib>
#include <utility>

#include "build_features.h"
#include "half.h"
#include "layer_panels.h"
#include "linear.h"
#include "parallel.h"
#ifdef __wasm_simd128__
#include "gemm_f32_wasmsimd.h"
#include "gemv_f32_wasmsimd.h"
#endif

namespace attnscope::kernels {

namespace {

// Splitting a GEMM: whole 8-column panels per thread (the SIMD kernel's packing unit; the native
// Eigen path splits on the same boundaries), at least kMinWorkPerThread multiply-adds or
// kMinBytesPerThread bytes of weights each (one row: the bytes decide).
constexpr int kPanel = 8;

#ifdef __wasm_simd128__
static_assert(kPanel == kGemmNR, "threads split on packed panel boundaries");
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

namespace {

// Output panels [p0, p1) of out (T, w.out) = epilogue(inp · Wᵀ + b): a thread's share of a layer.
// Natively `weight` is the (out, in) f32 weight (widened from f16 by the caller, before the split).
void linear_panels_f32(float* out, const float* inp, const PackedLinear& w, const float* weight, int T,
                       const LinearEpilogue& epilogue, size_t p0, size_t p1) {
#ifdef __wasm_simd128__
  (void)weight;
  const size_t panel_stride = static_cast<size_t>(w.in) * kGemmNR;
  const int n0 = static_cast<int>(p0) * kGemmNR, n = std::min(w.out, static_cast<int>(p1) * kGemmNR) - n0;
  GemmEpilogue ep;
  ep.bias = w.bias.empty() ? nullptr : w.bias.data() + n0;
  ep.activate = epilogue.activate;
  ep.activation = epilogue.activation;
  ep.residual = epilogue.residual ? epilogue.residual + n0 : nullptr;
  ep.ldr = static_cast<size_t>(w.out);
  // One row (a generated token's step) streams the panels through the GEMV: the GEMM's
  // results bit for bit, without its blocking and packing of A. The encoder build generates
  // nothing: a one-token text takes the GEMM.
  const bool one_row = kBuildHasDecoders && T == 1;
  if (one_row && w.is_f16())
    gemv_f16b_wasmsimd(out + n0, inp, w.panels_f16() + p0 * panel_stride, panel_stride, n, w.in, ep);
  else if (one_row)
    gemv_f32_wasmsimd(out + n0, inp, w.panels() + p0 * panel_stride, panel_stride, n, w.in, ep);
  else if (w.is_f16())
    gemm_f16b_wasmsimd(out + n0, w.out, inp, w.in, w.panels_f16() + p0 * panel_stride, panel_stride, T, n, w.in, ep);
  else
    gemm_f32_wasmsimd(out + n0, w.out, inp, w.in, w.panels() + p0 * panel_stride, panel_stride, T, n, w.in, ep);
#else
  using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using RowVector = Eigen::Matrix<float, 1, Eigen::Dynamic>;
  const int n0 = static_cast<int>(p0) * kPanel, n = std::min(w.out, static_cast<int>(p1) * kPanel) - n0;
  Eigen::Map<const RowMatrix> x(inp, T, w.in);
  Eigen::Map<const RowMatrix> W(weight + static_cast<size_t>(n0) * w.in, n, w.in);
  Eigen::Map<RowMatrix, 0, Eigen::OuterStride<>> y(out + n0, T, n, Eigen::OuterStride<>(w.out));
  y.noalias() = x * W.transpose();
  if (!w.bias.empty()) y.rowwise() += Eigen::Map<const RowVector>(w.bias.data() + n0, n);
  for (int t = 0; t < T; ++t) {
    float* row = out + static_cast<size_t>(t) * w.out + n0;
    if (epilogue.activate) activation_f32(row, n, epilogue.activation);
    if (epilogue.residual)
      Eigen::Map<Eigen::ArrayXf>(row, n) +=
          Eigen::Map<const Eigen::ArrayXf>(epilogue.residual + static_cast<size_t>(t) * w.out + n0, n);
  }
#endif
}

// Panels per thread for a layer of `in` inputs over T rows.
size_t min_panels_for(const PackedLinear& w, int T) {
  const size_t panel_weights = static_cast<size_t>(w.in) * kPanel;
  return min_items_for(T * panel_weights, panel_weights * (w.is_f16() ? sizeof(uint16_t) : sizeof(float)));
}

size_t panel_count(const PackedLinear& w) { return (static_cast<size_t>(w.out) + kPanel - 1) / kPanel; }

}  // namespace

void linear_packed_f32(float* out, const float* inp, const PackedLinear& w, int T,
                       const LinearEpilogue& epilogue) {
#ifdef __wasm_simd128__
  const float* weight = nullptr;
#else
  const float* weight = widened(w);  // on this thread, before the split
#endif
  // Threads take contiguous ranges of output columns (whole 8-column panels): each output element
  // is the same dot product, in the same order, whichever thread computes it.
  parallel_for(panel_count(w), min_panels_for(w, T),
               [&](size_t p0, size_t p1) { linear_panels_f32(out, inp, w, weight, T, epilogue, p0, p1); });
}

void linear_packed_f32_same_input(const F32Output* outputs, int count, const float* inp, int T) {
#ifndef __wasm_simd128__
  for (int i = 0; i < count; ++i) linear_packed_f32(outputs[i].out, inp, *outputs[i].w, T);
#else
  if (count < 1 || count > kMaxSameInputLayers) std::abort();
  size_t panels[kMaxSameInputLayers];
  size_t min_panels = min_panels_for(*outputs[0].w, T);
  for (int i = 0; i < count; ++i) {
    if (outputs[i].w->in != outputs[0].w->in) std::abort();
    panels[i] = panel_count(*outputs[i].w);
    min_panels = std::min(min_panels, min_panels_for(*outputs[i].w, T));
  }
  parallel_for_layer_panels(panels, count, min_panels, [&](int i, size_t p0, size_t p1) {
    linear_panels_f32(outputs[i].out, inp, *outputs[i].w, nullptr, T, LinearEpilogue{}, p0, p1);
  });
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
