// T5's relative position bias buckets (transformers' T5Attention._relative_position_bucket): exact
// buckets for small distances, logarithmic ones up to max_distance, the last bucket beyond; the
// encoder's are bidirectional (half the buckets for keys after the query), the decoder's look back
// only. Not here: the learned (buckets, heads) table the bucket indexes.
#pragma once

namespace attnscope {

// The bucket of key position `key` seen from query position `query` (relative = key − query),
// computed as transformers does, the logarithm in float32.
int relative_position_bucket(int relative, bool bidirectional, int num_buckets, int max_distance);

}  // namespace attnscope
