#include "buffer_size.h"

#include <cstdio>
#include <string>

#include "error.h"

namespace attnscope {

namespace {

std::string describe(std::initializer_list<int64_t> dims) {
  std::string out;
  for (int64_t d : dims) out += (out.empty() ? "" : " × ") + std::to_string(d);
  return out;
}

std::string gigabytes(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GB", bytes / 1e9);
  return text;
}

}  // namespace

size_t buffer_elements(std::initializer_list<int64_t> dims, const char* what, size_t element_bytes) {
  // The product in double as well: a 64-bit product of four 2^30 values would itself wrap.
  uint64_t elements = 1;
  double exact = 1.0;
  for (int64_t d : dims) {
    if (d < 0) throw Error("E_INTERNAL", std::string(what) + ": negative dimension in " + describe(dims));
    exact *= static_cast<double>(d);
    if (exact * element_bytes <= static_cast<double>(kMaxBufferBytes)) elements *= static_cast<uint64_t>(d);
  }
  if (exact * element_bytes > static_cast<double>(kMaxBufferBytes))
    throw Error("E_TOO_LARGE", std::string(what) + " (" + describe(dims) + " values) would take " +
                                   gigabytes(exact * element_bytes) +
                                   "; one WebAssembly (wasm32) buffer holds at most 4.3 GB: use fewer tokens");
  return static_cast<size_t>(elements);
}

}  // namespace attnscope
