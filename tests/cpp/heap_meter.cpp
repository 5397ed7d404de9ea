// HeapMeter (heap_meter.h): the replaced global operator new/delete, counting usable sizes
// (malloc_usable_size, so a delete need not know the size) while a meter lives.
#include "heap_meter.h"

#include <malloc.h>

#include <atomic>
#include <cstdlib>
#include <new>

namespace {

std::atomic<bool> counting{false};
std::atomic<int64_t> live{0};
std::atomic<int64_t> peak{0};

void count(void* p, int64_t sign) {
  if (!p || !counting.load(std::memory_order_relaxed)) return;
  const int64_t bytes = sign * static_cast<int64_t>(malloc_usable_size(p));
  const int64_t now = live.fetch_add(bytes) + bytes;
  int64_t seen = peak.load();
  while (now > seen && !peak.compare_exchange_weak(seen, now)) {
  }
}

}  // namespace

void* operator new(std::size_t n) {
  void* p = std::malloc(n == 0 ? 1 : n);
  if (!p) throw std::bad_alloc();
  count(p, 1);
  return p;
}

void operator delete(void* p) noexcept {
  count(p, -1);
  std::free(p);
}

void operator delete(void* p, std::size_t) noexcept { operator delete(p); }

// Every other form too, so no allocation pairs a sanitizer's operator new with this delete (ASan's
// alloc-dealloc-mismatch: Catch2 allocates with the nothrow new).
void* operator new[](std::size_t n) { return operator new(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  void* p = std::malloc(n == 0 ? 1 : n);
  count(p, 1);
  return p;
}
void* operator new[](std::size_t n, const std::nothrow_t& tag) noexcept { return operator new(n, tag); }
void operator delete[](void* p) noexcept { operator delete(p); }
void operator delete[](void* p, std::size_t) noexcept { operator delete(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { operator delete(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { operator delete(p); }

namespace attnscope::test {

HeapMeter::HeapMeter() {
  live = 0;
  peak = 0;
  counting = true;
}

HeapMeter::~HeapMeter() { counting = false; }

int64_t HeapMeter::peak_bytes() const { return peak.load(); }

}  // namespace attnscope::test
