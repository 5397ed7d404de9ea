// relative_position_bucket() in transformers' dtypes: the distance as float32, log in float32,
// divided by log(max_distance / max_exact) rounded to float32, truncated toward zero.
#include "relative_position.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "buffer_size.h"

namespace attnscope {

int relative_position_bucket(int relative, bool bidirectional, int num_buckets, int max_distance) {
  int bucket = 0;
  int distance;
  if (bidirectional) {
    num_buckets /= 2;
    if (relative > 0) bucket += num_buckets;
    distance = std::abs(relative);
  } else {
    distance = -std::min(relative, 0);
  }
  const int max_exact = num_buckets / 2;
  if (distance < max_exact) return bucket + distance;
  const float ratio = static_cast<float>(distance) / static_cast<float>(max_exact);
  const float scale = static_cast<float>(std::log(static_cast<double>(max_distance) / max_exact));
  const float large = std::log(ratio) / scale * static_cast<float>(num_buckets - max_exact);
  return bucket + std::min(max_exact + static_cast<int>(large), num_buckets - 1);
}

std::vector<float> relative_position_bias(const std::vector<float>& table, int H, int keys, bool bidirectional,
                                          int num_buckets, int max_distance) {
  const size_t offsets = 2 * static_cast<size_t>(keys) - 1;
  std::vector<float> bias(buffer_elements({H, 2 * int64_t{keys} - 1}, "the relative position bias"));
  for (size_t o = 0; o < offsets; ++o) {
    const int b = relative_position_bucket(static_cast<int>(o) - (keys - 1), bidirectional, num_buckets, max_distance);
    for (int h = 0; h < H; ++h) bias[static_cast<size_t>(h) * offsets + o] = table[static_cast<size_t>(b) * H + h];
  }
  return bias;
}

}  // namespace attnscope
