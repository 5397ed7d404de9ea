// IEEE 754 binary16 ("half", what fp16 safetensors store) ↔ binary32. The engine can keep its big
// weight matrices as f16 bits in memory (WeightPrecision::F16, half the RAM) and widen them to f32
// as the kernels read them; all arithmetic stays f32.
#pragma once
#include <cstddef>
#include <cstdint>

namespace attnscope {

// Exact: every f16 value, subnormals, infinities and NaN included, is an f32 value.
float f16_to_f32(uint16_t h);
// Rounds to nearest, ties to even (as the F16C instruction and PyTorch's .half() do); values past
// the f16 range become ±infinity, NaN stays NaN.
uint16_t f32_to_f16(float f);
void f32_to_f16(uint16_t* out, const float* in, size_t n);
void f16_to_f32(float* out, const uint16_t* in, size_t n);

}  // namespace attnscope
