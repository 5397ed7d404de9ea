// buffer_size.h: every run's buffer sizes are computed in 64 bits and refused past what one wasm32
// buffer can hold, at the exact wrap point of a 32-bit size_t.
#include <catch2/catch.hpp>

#include "buffer_size.h"
#include "test_engine_support.h"

using namespace attnscope;
using attnscope::test::expect_error;

TEST_CASE("buffer sizes: exact below wasm32's limit, E_TOO_LARGE at and past it", "[engine][sizes]") {
  // 32,768 × 32,767 floats is 4,294,836,224 bytes: the largest square-ish map that still fits.
  CHECK(buffer_elements({1, 1, 32768, 32767}, "the attention maps") == size_t{32768} * 32767);
  // 32,768² floats is 2^32 bytes: in a 32-bit size_t the byte count wraps to 0.
  expect_error([] { buffer_elements({1, 1, 32768, 32768}, "the attention maps"); }, "E_TOO_LARGE",
               "the attention maps (1 × 1 × 32768 × 32768 values) would take 4.3 GB");
  // The bundled T5's encoder over 33,000 source tokens (3 layers × 4 heads): the trap of before.
  expect_error([] { buffer_elements({3, 4, 33001, 33001}, "the encoder's attention maps"); }, "E_TOO_LARGE",
               "would take 52.3 GB");
  // A product that overflows 64 bits is still refused, not wrapped.
  expect_error([] { buffer_elements({int64_t{1} << 40, int64_t{1} << 40}, "x"); }, "E_TOO_LARGE", "x (");
  CHECK(buffer_elements({0, 1 << 30}, "empty") == 0);
  CHECK(buffer_elements({1 << 30}, "bytes", 1) == size_t{1} << 30);
  expect_error([] { buffer_elements({-1, 4}, "negative"); }, "E_INTERNAL", "negative dimension");
}
