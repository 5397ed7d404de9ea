// The rotary frequencies and the rotation. The llama3 scaling is transformers'
// _compute_llama3_parameters: wavelengths longer than original_max / low_freq_factor are slowed by
// `factor`, shorter than original_max / high_freq_factor kept, and the band between blended by
// smooth = (original_max / wavelength − low) / (high − low).
#include "rotary.h"

#include <cmath>

namespace attnscope {

std::vector<double> rope_inverse_frequencies(const RopeConfig& rope, int head_dim) {
  const int half = head_dim / 2;
  std::vector<double> inv_freq(half);
  for (int i = 0; i < half; ++i) inv_freq[i] = 1.0 / std::pow(rope.theta, 2.0 * i / head_dim);
  if (rope.scaling == RopeConfig::Scaling::Linear) {
    for (double& f : inv_freq) f /= rope.factor;
  } else if (rope.scaling == RopeConfig::Scaling::Llama3) {
    const double old_context = rope.original_max_position_embeddings;
    const double low_wavelength = old_context / rope.low_freq_factor;
    const double high_wavelength = old_context / rope.high_freq_factor;
    for (double& f : inv_freq) {
      const double wavelength = 2.0 * M_PI / f;
      if (wavelength > low_wavelength) {
        f /= rope.factor;
      } else if (wavelength >= high_wavelength) {  // the medium band: neither < high nor > low
        const double smooth =
            (old_context / wavelength - rope.low_freq_factor) / (rope.high_freq_factor - rope.low_freq_factor);
        f = (1.0 - smooth) * f / rope.factor + smooth * f;
      }
    }
  }
  return inv_freq;
}

void rope_angles(std::vector<float>& cos, std::vector<float>& sin, const std::vector<double>& inv_freq, int first,
                 int rows) {
  const size_t half = inv_freq.size();
  cos.resize(static_cast<size_t>(rows) * half);
  sin.resize(cos.size());
  for (int t = 0; t < rows; ++t)
    for (size_t i = 0; i < half; ++i) {
      const double angle = static_cast<double>(first + t) * inv_freq[i];
      cos[t * half + i] = static_cast<float>(std::cos(angle));
      sin[t * half + i] = static_cast<float>(std::sin(angle));
    }
}

void rotary_forward(float* x, int rows, int heads, int head_dim, int stride, const std::vector<float>& cos,
                    const std::vector<float>& sin) {
  const int half = head_dim / 2;
  for (int t = 0; t < rows; ++t) {
    const float* c = cos.data() + static_cast<size_t>(t) * half;
    const float* s = sin.data() + static_cast<size_t>(t) * half;
    for (int h = 0; h < heads; ++h) {
      float* x1 = x + static_cast<size_t>(t) * stride + static_cast<size_t>(h) * head_dim;
      float* x2 = x1 + half;
      for (int i = 0; i < half; ++i) {
        const float a = x1[i], b = x2[i];
        x1[i] = a * c[i] - b * s[i];
        x2[i] = b * c[i] + a * s[i];
      }
    }
  }
}

}  // namespace attnscope
