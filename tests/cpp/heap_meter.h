// The most heap a stretch of code held at once, for tests that bound memory: while a HeapMeter
// lives, every operator new and delete in the process is counted (heap_meter.cpp replaces them
// for the whole test binary; counting costs one relaxed load when no meter lives).
#pragma once
#include <cstdint>

namespace attnscope::test {

class HeapMeter {
 public:
  HeapMeter();
  ~HeapMeter();
  HeapMeter(const HeapMeter&) = delete;
  HeapMeter& operator=(const HeapMeter&) = delete;
  // The largest growth of the live heap since this meter started, in bytes (frees of memory
  // allocated earlier may bring the live count below the start; they do not count).
  int64_t peak_bytes() const;
};

}  // namespace attnscope::test
