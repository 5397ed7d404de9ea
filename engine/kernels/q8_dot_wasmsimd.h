// The relaxed-SIMD int8 dot products the q8 kernels (gemm_q8_wasmsimd, gemv_q8_wasmsimd) sum with.
// clang 14 has no builtin for them: each is written as a pre-standard relaxed instruction nothing
// else in the engine uses, with the operands in the dot product's order, and
// scripts/relaxed-simd-opcodes.mjs rewrites that opcode to the standard one:
//  - i16x8.relaxed_dot_i8x16_i7x16_s(w, x) as i8x16.relaxed_swizzle (0xfd 0xa2 0x01 → 0xfd 0x92
//    0x02): lane i = w[2i]·x[2i] + w[2i+1]·x[2i+1], w signed, x in [0, 127];
//  - i32x4.relaxed_dot_i8x16_i7x16_add_s(w, x, acc) as i32x4.laneselect (0xfd 0xd2 0x01 → 0xfd
//    0x93 0x02): lane i = acc[i] + Σ_{j<4} w[4i+j]·x[4i+j].
// static: only the relaxed build's files define them (each keeps its own copy, as multiply_add).
#pragma once
#if defined(__wasm_simd128__) && defined(ATTNSCOPE_RELAXED_SIMD)
#include <wasm_simd128.h>

namespace attnscope::kernels::simd {

static inline v128_t relaxed_dot_i16(v128_t w, v128_t x) {
  return (v128_t)__builtin_wasm_relaxed_swizzle_i8x16((__i8x16)w, (__i8x16)x);
}
static inline v128_t relaxed_dot_add(v128_t w, v128_t x, v128_t acc) {
  return (v128_t)__builtin_wasm_laneselect_i32x4((__i32x4)w, (__i32x4)x, (__i32x4)acc);
}

}  // namespace attnscope::kernels::simd
#endif
