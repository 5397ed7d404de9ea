// Buffer sizes computed in 64 bits and checked before anything is allocated. WebAssembly's size_t
// is 32 bits: a product such as layers · heads · tokens · keys wraps around there and a buffer far
// too small is written past its end (a trap, or worse). Every run sizes its buffers through here,
// against wasm32's limit in every build, so native tests see the same errors the browser would.
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>

namespace attnscope {

// What one buffer may hold: wasm32's whole 4 GiB address space, less one byte (size_t's maximum).
inline constexpr uint64_t kMaxBufferBytes = (uint64_t{1} << 32) - 1;

// The number of elements of a buffer dims[0] × dims[1] × … of `element_bytes` each, or
// Error("E_TOO_LARGE") naming `what`, the dimensions and the bytes needed when it exceeds
// kMaxBufferBytes (or a dimension is negative: a caller's bug, E_INTERNAL).
size_t buffer_elements(std::initializer_list<int64_t> dims, const char* what, size_t element_bytes = sizeof(float));

}  // namespace attnscope
