// PackedLinearQ8 for both builds: the SIMD128 int8 GEMM on packed panels on wasm, the reference
// loops natively (the native build is for tests and tools; they define the numbers the wasm
// kernels are tested against).
#include "packed_linear_q8.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <utility>

#include "half.h"
#include "layer_panels.h"
#include "parallel.h"
#include "quantize.h"
#ifdef __wasm_simd128__
#include "gemm_q8_wasmsimd.h"
#include "gemv_q8_wasmsimd.h"
#endif

namespace attnscope::kernels {

namespace {

constexpr int kPanel = 8;  // threads split on 8-column panels (the packing unit)
#ifdef __wasm_simd128__
static_assert(kPanel == kQ8NR, "threads split on packed panel boundaries");
#endif

// q (out, in) and the per-channel scales and column sums into p; the panels (wasm) from q.
void finish(PackedLinearQ8& p, std::vector<int8_t>&& q) {
  p.colsum.assign(p.out, 0);
  for (int n = 0; n < p.out; ++n) {
    int32_t s = 0;
    const int8_t* row = q.data() + static_cast<size_t>(n) * p.in;
    for (int k = 0; k < p.in; ++k) s += row[k];
    p.colsum[n] = s;
  }
#ifdef __wasm_simd128__
  std::vector<int8_t> panels(q8_packed_b_size(p.in, p.out) + 64);
  const size_t misalign = reinterpret_cast<uintptr_t>(panels.data()) % 64;
  p.offset = misalign ? 64 - misalign : 0;
  pack_b_q8_wasmsimd(panels.data() + p.offset, q.data(), p.out, p.in, p.in);
  std::vector<int8_t>().swap(q);
  p.weight = std::move(panels);
#else
  p.offset = 0;
  p.weight = std::move(q);
#endif
}

#ifdef __wasm_simd128__
// C (a.M, N) through the GEMM, or for one row (a generated token) the GEMV: the same bits.
void q8_product(float* c, size_t ldc, const Q8Rows& a, const int8_t* packed_b, size_t panel_stride,
                const float* w_scale, const int32_t* colsum, int N, const GemmQ8Epilogue& ep) {
  if (a.M == 1)
    gemv_q8_wasmsimd(c, a, packed_b, panel_stride, w_scale, colsum, N, ep);
  else
    gemm_q8_wasmsimd(c, ldc, a, packed_b, panel_stride, w_scale, colsum, N, ep);
}
#endif

}  // namespace

int q8_activation_max() {
#ifdef __wasm_simd128__
  return kQ8ActivationMax;
#else
  return 255;
#endif
}

PackedLinearQ8 pack_linear_q8(std::vector<float>&& weight, std::vector<float>&& bias, int in, int out) {
  PackedLinearQ8 p;
  p.in = in;
  p.out = out;
  p.bias = std::move(bias);
  p.scale.resize(out);
  std::vector<int8_t> q(static_cast<size_t>(out) * in);
  quantize_weight_q8(q.data(), p.scale.data(), weight.data(), out, in, in);
  std::vector<float>().swap(weight);
  finish(p, std::move(q));
  return p;
}

PackedLinearQ8 pack_linear_q8(std::vector<uint16_t>&& weight_f16, std::vector<float>&& bias, int in, int out) {
  PackedLinearQ8 p;
  p.in = in;
  p.out = out;
  p.bias = std::move(bias);
  p.scale.resize(out);
  std::vector<int8_t> q(static_cast<size_t>(out) * in);
  std::vector<float> row(in);
  for (int n = 0; n < out; ++n) {  // one row widened at a time: no f32 copy of the matrix
    f16_to_f32(row.data(), weight_f16.data() + static_cast<size_t>(n) * in, in);
    quantize_weight_q8(q.data() + static_cast<size_t>(n) * in, p.scale.data() + n, row.data(), 1, in, in);
  }
  std::vector<uint16_t>().swap(weight_f16);
  finish(p, std::move(q));
  return p;
}

void gemm_q8_reference(float* c, size_t ldc, const float* a, size_t lda, const int8_t* qw,
                       const float* w_scale, const float* bias, int M, int N, int K, int qmax,
                       const LinearEpilogue& ep, size_t ldr) {
  std::vector<uint8_t> qa(K);
  for (int m = 0; m < M; ++m) {
    const RowQuant p = quantize_row_u8(qa.data(), a + m * lda, K, qmax);
    float* row = c + m * ldc;
    for (int n = 0; n < N; ++n) {
      const int8_t* wn = qw + static_cast<size_t>(n) * K;
      int64_t acc = 0;
      for (int k = 0; k < K; ++k) acc += (static_cast<int32_t>(qa[k]) - p.zero) * wn[k];
      const float s = p.scale * w_scale[n];
      float y = static_cast<float>(acc) * s;
      if (bias) y += bias[n];
      row[n] = y;
    }
    if (ep.activate) activation_f32(row, N, ep.activation);
    if (ep.residual)
      for (int n = 0; n < N; ++n) row[n] += ep.residual[m * ldr + n];
  }
}

void linear_packed_q8(float* out, const float* inp, const PackedLinearQ8& w, int T,
                      const LinearEpilogue& epilogue) {
  const size_t panels = (static_cast<size_t>(w.out) + kPanel - 1) / kPanel;
  const size_t panel_bytes = static_cast<size_t>(w.in) * kPanel;  // int8 weights
  const size_t min_panels = min_items_for(T * panel_bytes, panel_bytes);
  const float* bias = w.bias.empty() ? nullptr : w.bias.data();
#ifdef __wasm_simd128__
  // A is quantized and packed once, on this thread; the threads only read it.
  // (A reference to this thread's buffer: inside the lambda a thread_local name would be the
  // worker's own, empty one.)
  thread_local Q8Rows rows;
  const Q8Rows& a = rows;
  quantize_pack_a_q8_wasmsimd(rows, inp, w.in, T, w.in);
  const size_t panel_stride = static_cast<size_t>(q8_padded_k(w.in)) * kQ8NR;
  parallel_for(panels, min_panels, [&](size_t p0, size_t p1) {
    const int n0 = static_cast<int>(p0) * kPanel, n = std::min(w.out, static_cast<int>(p1) * kPanel) - n0;
    GemmQ8Epilogue ep;
    ep.bias = bias ? bias + n0 : nullptr;
    ep.activate = epilogue.activate;
    ep.activation = epilogue.activation;
    ep.residual = epilogue.residual ? epilogue.residual + n0 : nullptr;
    ep.ldr = static_cast<size_t>(w.out);
    q8_product(out + n0, w.out, a, w.panels() + p0 * panel_stride, panel_stride, w.scale.data() + n0,
               w.colsum.data() + n0, n, ep);
  });
#else
  parallel_for(panels, min_panels, [&](size_t p0, size_t p1) {
    const int n0 = static_cast<int>(p0) * kPanel, n = std::min(w.out, static_cast<int>(p1) * kPanel) - n0;
    LinearEpilogue ep = epilogue;
    if (ep.residual) ep.residual += n0;
    gemm_q8_reference(out + n0, w.out, inp, w.in, w.panels() + static_cast<size_t>(n0) * w.in,
                      w.scale.data() + n0, bias ? bias + n0 : nullptr, T, n, w.in, 255, ep, w.out);
  });
#endif
}

void linear_packed_q8_same_input(const Q8Output* outputs, int count, const float* inp, int T) {
  if (count < 1 || count > kMaxSameInputLayers) std::abort();
  const int in = outputs[0].w->in;
  for (int i = 1; i < count; ++i)
    if (outputs[i].w->in != in) std::abort();
#ifdef __wasm_simd128__
  size_t panels[kMaxSameInputLayers];
  for (int i = 0; i < count; ++i) panels[i] = (static_cast<size_t>(outputs[i].w->out) + kPanel - 1) / kPanel;
  thread_local Q8Rows rows;  // as linear_packed_q8: quantized here, read by the threads
  const Q8Rows& a = rows;
  quantize_pack_a_q8_wasmsimd(rows, inp, in, T, in);
  const size_t panel_stride = static_cast<size_t>(q8_padded_k(in)) * kQ8NR;
  const size_t panel_bytes = static_cast<size_t>(in) * kPanel;
  const size_t min_panels = min_items_for(static_cast<size_t>(T) * panel_bytes, panel_bytes);
  parallel_for_layer_panels(panels, count, min_panels, [&](int i, size_t q0, size_t q1) {
    const PackedLinearQ8& w = *outputs[i].w;
    const int n0 = static_cast<int>(q0) * kPanel, n = std::min(w.out, static_cast<int>(q1) * kPanel) - n0;
    GemmQ8Epilogue ep;
    ep.bias = w.bias.empty() ? nullptr : w.bias.data() + n0;
    q8_product(outputs[i].out + n0, w.out, a, w.panels() + q0 * panel_stride, panel_stride, w.scale.data() + n0,
               w.colsum.data() + n0, n, ep);
  });
#else
  for (int i = 0; i < count; ++i) linear_packed_q8(outputs[i].out, inp, *outputs[i].w, T);
#endif
}

void linear_packed_slice_q8(float* out, const float* inp, size_t ld_inp, const PackedLinearQ8& w,
                            int T, int k_begin, int k_count) {
  if (k_begin % 4 != 0 || k_begin < 0 || k_count < 0 || k_begin + k_count > w.in) std::abort();
#ifdef __wasm_simd128__
  Q8Rows a;
  quantize_pack_a_q8_wasmsimd(a, inp, ld_inp, T, k_count);
  // Column sums over the slice, read from the panels: group g of panel p holds column j's kG
  // consecutive k at p · stride + g · 8 · kG + j · kG.
  const size_t panel_stride = static_cast<size_t>(q8_padded_k(w.in)) * kQ8NR;
  std::vector<int32_t> colsum(w.out, 0);
  for (int n = 0; n < w.out; ++n) {
    const int8_t* panel = w.panels() + (n / kQ8NR) * panel_stride;
    const int j = n % kQ8NR;
    int32_t s = 0;
    for (int k = k_begin; k < k_begin + k_count; ++k) s += panel[(k / kQ8KGroup) * kQ8NR * kQ8KGroup + j * kQ8KGroup + k % kQ8KGroup];
    colsum[n] = s;
  }
  gemm_q8_wasmsimd(out, w.out, a, w.panels() + static_cast<size_t>(k_begin) * kQ8NR, panel_stride,
                   w.scale.data(), colsum.data(), w.out, GemmQ8Epilogue{});
#else
  std::vector<uint8_t> qa(k_count);
  for (int t = 0; t < T; ++t) {
    const RowQuant p = quantize_row_u8(qa.data(), inp + t * ld_inp, k_count, 255);
    for (int n = 0; n < w.out; ++n) {
      const int8_t* wn = w.panels() + static_cast<size_t>(n) * w.in + k_begin;
      int64_t acc = 0;
      for (int k = 0; k < k_count; ++k) acc += (static_cast<int32_t>(qa[k]) - p.zero) * wn[k];
      out[static_cast<size_t>(t) * w.out + n] = static_cast<float>(acc) * (p.scale * w.scale[n]) + 0.0f;
    }
  }
#endif
}

}  // namespace attnscope::kernels
