// dot_rows (the language-model head over the row-major embedding matrix) against a naive double
// loop at sizes around its sixteen lanes, f32 and f16 weights (f16 = f32 on the
// widened values, bit for bit), a strided output, outputs pre-filled with NaN, fixed seeds.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "half.h"
#include "kernels/dot_rows.h"
#include "test_engine_support.h"

using namespace attnscope::kernels;

TEST_CASE("dot_rows f32 and f16 equal the naive loop at row-group and lane edges", "[kernels][dot_rows]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int N : {1, 3, 4, 5, 9}) {
    for (int K : {1, 3, 4, 7, 8, 9, 15, 16, 17, 32, 33, 47}) {
      for (int T : {1, 2}) {
        std::mt19937 rng(N * 1000 + K * 10 + T);
        std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
        std::vector<float> x(T * K), w(N * K), bias(N);
        for (float& v : x) v = dist(rng);
        for (float& v : bias) v = dist(rng);
        std::vector<uint16_t> half(N * K);
        for (int i = 0; i < N * K; ++i) {
          half[i] = attnscope::f32_to_f16(dist(rng));
          w[i] = attnscope::f16_to_f32(half[i]);  // the same values in both precisions
        }
        const int ldy = N + 1;
        std::vector<float> y32(T * ldy, nan), y16(T * ldy, nan);
        const float* b = K % 2 ? bias.data() : nullptr;
        dot_rows_f32(y32.data(), ldy, x.data(), w.data(), b, T, N, K);
        dot_rows_f16(y16.data(), ldy, x.data(), half.data(), b, T, N, K);
        for (int t = 0; t < T; ++t) {
          CHECK(std::isnan(y32[t * ldy + N]));  // past N: untouched
          for (int n = 0; n < N; ++n) {
            double ref = b ? b[n] : 0.0, mag = b ? std::fabs(b[n]) : 0.0;
            for (int k = 0; k < K; ++k) {
              ref += static_cast<double>(x[t * K + k]) * w[n * K + k];
              mag += std::fabs(static_cast<double>(x[t * K + k]) * w[n * K + k]);
            }
            INFO("N=" << N << " K=" << K << " T=" << T << " row " << t << " col " << n);
            CHECK(std::fabs(y32[t * ldy + n] - ref) <= (K + 2) * 6e-8 * mag + 1e-30);
            CHECK(std::memcmp(&y16[t * ldy + n], &y32[t * ldy + n], sizeof(float)) == 0);
          }
        }
      }
    }
  }
}
