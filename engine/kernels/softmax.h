// Numerically safe softmax of one row, in place: subtract the row max, exponentiate, normalise.
// −inf entries (masked keys) become exactly 0. A row whose entries are all −inf has no defined
// softmax; we return the uniform distribution 1/n, which is what PyTorch/Hugging Face produce with
// their large-negative additive mask (every score becomes the same huge negative number).
// A row with a NaN score (an overflow upstream) becomes NaN everywhere: a max that skipped the NaN
// would otherwise turn it into a plausible distribution, or a uniform one.
#pragma once

namespace attnscope::kernels {

void softmax_row_f32_naive(float* row, int n);
void softmax_row_f32_eigen(float* row, int n);

}  // namespace attnscope::kernels
