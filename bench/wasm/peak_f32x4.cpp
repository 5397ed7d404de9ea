// The SIMD128 arithmetic ceiling of one core, measured rather than assumed: f32x4 multiply then
// add on independent accumulators held in registers (no memory traffic). The benchmark divides
// every GFLOP/s it reports by this number.
#include <emscripten/emscripten.h>
#include <wasm_simd128.h>

// kChains independent chains acc = acc·m + c. Twelve chains cover the mul + add latency
// (≈ 3 + 3 cycles) on two multiply and two add pipes, and still fit the 16 vector registers V8
// has on x86-64, so nothing spills.
extern "C" EMSCRIPTEN_KEEPALIVE float peak_f32x4_mul_add(int iterations, float m, float c) {
  constexpr int kChains = 12;
  v128_t acc[kChains];
  for (int j = 0; j < kChains; ++j) acc[j] = wasm_f32x4_splat(1.0f + 0.001f * j);
  const v128_t vm = wasm_f32x4_splat(m), vc = wasm_f32x4_splat(c);
  for (int i = 0; i < iterations; ++i) {
    for (int j = 0; j < kChains; ++j) acc[j] = wasm_f32x4_add(wasm_f32x4_mul(acc[j], vm), vc);
  }
  v128_t s = acc[0];
  for (int j = 1; j < kChains; ++j) s = wasm_f32x4_add(s, acc[j]);
  return wasm_f32x4_extract_lane(s, 0) + wasm_f32x4_extract_lane(s, 3);
}

// Floating-point operations one call performs (a mul and an add on 4 lanes per chain step).
extern "C" EMSCRIPTEN_KEEPALIVE double peak_f32x4_flops(int iterations) {
  return 12.0 * 8.0 * iterations;
}
