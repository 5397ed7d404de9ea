// The two passes a softmax over one row of vocabulary logits needs before any probability can be
// read: the row's max, and Σ exp(x − max). For the next-token choice (engine/sampling.h), where
// the row is 32k–150k long and only a few probabilities are ever read, so nothing is written
// back. Not the attention softmax (softmax.h: short rows, normalised in place).
#pragma once

namespace attnscope::kernels {

struct LogitRowStats {
  float max;     // the largest logit (−inf for an empty row); NaN entries are skipped
  bool has_nan;  // whether any entry is NaN
};

LogitRowStats logit_row_stats(const float* x, int n);

// Σ exp(x[i] − max) in double. The naive loop takes each difference and exponential in double
// (what js/analysis/mlm.js's softmax computes); the SIMD128 form takes both in float32 (exp_f32x4, ~1 ulp)
// and adds in double, so the two agree within a few float32 ulps of the sum (the difference's
// rounding, |x − max|·2⁻²⁴, weighs e^(x − max), at most 2.2e-8 of the sum per unit of mass).
double sum_exp_f32_naive(const float* x, int n, float max);
#ifdef __wasm_simd128__
double sum_exp_f32_wasmsimd(const float* x, int n, float max);
#endif
// The fast form the build has.
double sum_exp_f32(const float* x, int n, float max);

}  // namespace attnscope::kernels
