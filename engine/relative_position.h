// T5's relative position bias buckets (transformers' T5Attention._relative_position_bucket): exact
// buckets for small distances, logarithmic ones up to max_distance, the last bucket beyond; the
// encoder's are bidirectional (half the buckets for keys after the query), the decoder's look back
// only; and the per-head bias they index in the learned (buckets, heads) table.
#pragma once
#include <vector>

namespace attnscope {

// The bucket of key position `key` seen from query position `query` (relative = key − query),
// computed as transformers does, the logarithm in float32.
int relative_position_bucket(int relative, bool bidirectional, int num_buckets, int max_distance);

// The bias of every key offset for `keys` keys, per head (H, 2·keys − 1: offset o is key − query
// + keys − 1; see AttentionMask), from the (num_buckets, H) table.
std::vector<float> relative_position_bias(const std::vector<float>& table, int H, int keys, bool bidirectional,
                                          int num_buckets, int max_distance);

}  // namespace attnscope
