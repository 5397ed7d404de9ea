// relative_position_bucket() in transformers' dtypes: the distance as float32, log in float32,
// divided by log(max_distance / max_exact) rounded to float32, truncated toward zero.
#include "relative_position.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

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

}  // namespace attnscope
