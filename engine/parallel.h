// Splitting one forward pass over threads. The kernels ask for a range of independent work items
// (output column panels of a GEMM, attention heads) to be cut into contiguous parts, one per
// thread; every item is computed by the same code whatever thread runs it, so results are bit for
// bit those of one thread (the work is split, never a sum).
//
// One pool serves the whole process (in the browser: one wasm instance): its workers are started
// once and then wait between jobs, spinning briefly before sleeping, since a forward pass hands
// out a job every few hundred microseconds. How many threads a call uses is set per calling
// scope (ThreadScope), so two models with different `threads` settings can share the pool.
// Builds without threads (the wasm module for pages that are not cross-origin isolated) run
// everything on the caller.
#pragma once
#include <cstddef>
#include <functional>

namespace attnscope {

// The most threads this build can run a job on (1 without thread support); the pool starts
// workers on first use up to set_max_threads().
int max_threads();
// Caps the pool (the wasm build is told how many pthread workers its loader pre-started: asking
// for more would block forever waiting for a worker that is never created). n >= 1.
void set_max_threads(int n);

// Within its lifetime, parallel_for on this thread uses min(threads, max_threads()) threads.
class ThreadScope {
 public:
  explicit ThreadScope(int threads);
  ~ThreadScope();
  ThreadScope(const ThreadScope&) = delete;
  ThreadScope& operator=(const ThreadScope&) = delete;

 private:
  int previous_;
};

// Threads parallel_for would use now on this thread.
int active_threads();

// The least work worth a thread of its own, in multiply-adds (~0.1 ms here): waking a sleeping
// worker and waiting for it costs tens of µs, far more when the other cores are busy, so smaller
// jobs (a small model's layers, a generation step over a narrow matrix) stay on the caller.
constexpr size_t kMinWorkPerThread = size_t{1} << 20;

// Items per part so that each part holds at least kMinWorkPerThread, given each item's work.
inline size_t min_items_for(size_t work_per_item) {
  work_per_item = work_per_item ? work_per_item : 1;
  return (kMinWorkPerThread + work_per_item - 1) / work_per_item;
}

// How many parallel_for calls so far ran on more than one thread (tests check that work was split).
size_t split_jobs();

// Runs fn(begin, end) over contiguous parts of [0, count) covering it exactly once, in parallel,
// and returns when all are done. At most count / min_items parts (min_items >= 1 keeps tiny jobs
// on one thread). The caller runs the first part. An exception thrown by fn is rethrown here.
void parallel_for(size_t count, size_t min_items, const std::function<void(size_t, size_t)>& fn);

}  // namespace attnscope
