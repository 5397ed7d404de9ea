// Numerically safe softmax of one row, in place: subtract the row max, exponentiate, normalise.
// −inf entries (masked keys) become exactly 0. A row whose entries are all −inf has no defined
// softmax; we return the uniform distribution 1/n, which is what PyTorch/Hugging Face produce with
// their large-negative additive mask (every score becomes the same huge negative number).
// A row with a NaN score (an overflow upstream) becomes NaN everywhere: a max that skipped the NaN
// would otherwise turn it into a plausible distribution, or a uniform one.
#pragma once

namespace attnscope::kernels {

// One row's softmax as a kernel applied it: the max it subtracted and the factor 1/Σ e^(x − max)
// it multiplied the exponentials by (the factor, not the sum: the naive kernel sums in double, so
// only the factor it computed reproduces its row). A run that computes its attention maps on
// demand keeps these per query row; softmax_row_from_stats_* rebuilds the row from the same scores
// with them, bit for bit. max is NaN for a row with a NaN score and −inf for an all-masked row
// (the two special rows above).
struct SoftmaxStats {
  float max = 0.0f, inverse_sum = 0.0f;
};

void softmax_row_f32_naive(float* row, int n);
void softmax_row_f32_eigen(float* row, int n);
// The same, also writing the row's statistics.
void softmax_row_with_stats_f32_naive(float* row, int n, SoftmaxStats* stats);
void softmax_row_with_stats_f32_eigen(float* row, int n, SoftmaxStats* stats);
// The row of scores `row` (n) turned into what the matching softmax_row_* made of it, from the
// statistics that pass kept: exponentials and factor computed by the same instructions.
void softmax_row_from_stats_f32_naive(float* row, int n, const SoftmaxStats& stats);
void softmax_row_from_stats_f32_eigen(float* row, int n, const SoftmaxStats& stats);

}  // namespace attnscope::kernels
