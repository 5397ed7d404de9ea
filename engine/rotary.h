// Rotary position embeddings (Su et al. 2021) in transformers' layout: each head's dh values are
// two halves (x1, x2) rotated pairwise, x·cos + rotate_half(x)·sin with rotate_half = (−x2, x1),
// angle = position · inv_freq[i] for the pair (i, i + dh/2). The frequencies follow
// modeling_rope_utils for the scalings the engine implements (default, linear, llama3). Not here:
// which positions a run holds (the caller passes the first one).
#pragma once
#include <vector>

#include "config.h"

namespace attnscope {

// inv_freq (dh / 2) for a head of dh dimensions, in double: θ^(−2i/dh), then the config's scaling.
std::vector<double> rope_inverse_frequencies(const RopeConfig& rope, int head_dim);

// cos and sin (rows, dh / 2) of the angles of positions first, first + 1, ..., first + rows − 1,
// computed in double and rounded once.
void rope_angles(std::vector<float>& cos, std::vector<float>& sin, const std::vector<double>& inv_freq, int first,
                 int rows);

// Rotates `heads` heads of dh values in each of `rows` rows of x (row stride `stride`) in place.
void rotary_forward(float* x, int rows, int heads, int head_dim, int stride, const std::vector<float>& cos,
                    const std::vector<float>& sin);

}  // namespace attnscope
