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
// jobs (a small model's layers over a few tokens) stay on the caller.
constexpr size_t kMinWorkPerThread = size_t{1} << 20;

// The least memory read worth a thread of its own, in bytes. A job that does one multiply-add
// per weight it reads (one row through a matrix: a generated token's step) is bound by reading,
// not by arithmetic: kMinWorkPerThread multiply-adds of such a job read 4 MB of f32 weights
// (~0.3 ms), far above what handing a part to a worker costs (the workers of a step are still
// spinning from the job before: a few µs; a worker late for a job loses nothing, the caller runs
// its parts). 256 KiB (~20 µs of reading) splits most matrices of a gpt2-small, SmolLM2-135M or
// t5-small step (f32 or int8) and gpt2-small's attention over a 128-token cache; gpt2-small f32
// steps at 2 threads with 64 KiB to 1 MiB were within this shared machine's noise of each other.
constexpr size_t kMinBytesPerThread = size_t{1} << 18;

// Items per part so that each part holds at least kMinWorkPerThread, given each item's work.
inline size_t min_items_for(size_t work_per_item) {
  work_per_item = work_per_item ? work_per_item : 1;
  return (kMinWorkPerThread + work_per_item - 1) / work_per_item;
}

// Items per part for items that each do work_per_item multiply-adds over bytes_per_item bytes they
// alone read (a matrix's panels or rows, a head's keys and values): a part is worth a thread once
// it holds either kMinWorkPerThread multiply-adds or kMinBytesPerThread bytes.
inline size_t min_items_for(size_t work_per_item, size_t bytes_per_item) {
  bytes_per_item = bytes_per_item ? bytes_per_item : 1;
  const size_t by_bytes = (kMinBytesPerThread + bytes_per_item - 1) / bytes_per_item;
  return by_bytes < min_items_for(work_per_item) ? by_bytes : min_items_for(work_per_item);
}

// How many parallel_for calls so far ran on more than one thread (tests check that work was split).
size_t split_jobs();

// Runs fn(begin, end) over contiguous parts of [0, count) covering it exactly once, in parallel,
// and returns when all are done. At most count / min_items threads (min_items >= 1 keeps tiny
// jobs on one thread), each taking a few parts in turn (the caller too: it takes what a worker
// that has no core yet would have run). An exception thrown by fn is rethrown here.
void parallel_for(size_t count, size_t min_items, const std::function<void(size_t, size_t)>& fn);

}  // namespace attnscope
