#include "parallel.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
#define ATTNSCOPE_NO_THREADS 1
#endif

namespace attnscope {

namespace {

thread_local int scope_threads = 1;
std::atomic<size_t> split_job_count{0};

#ifdef ATTNSCOPE_NO_THREADS

int pool_max() { return 1; }

#else

// Waiting between jobs: a forward pass hands out a job every 0.1–5 ms, so a worker that has just
// finished one spins this long for the next before it sleeps (a futex wake costs tens of µs).
constexpr auto kWorkerSpin = std::chrono::microseconds(300);
constexpr auto kCallerSpin = std::chrono::microseconds(2000);

bool still_spinning(std::chrono::steady_clock::time_point until, unsigned& polls) {
  // Reading the clock is a call out of wasm; look at it every 256 polls only.
  return (++polls & 255) != 0 || std::chrono::steady_clock::now() < until;
}

class Pool {
 public:
  static Pool& shared() {
    static Pool* pool = new Pool();  // never destroyed: workers may outlive static destruction
    return *pool;
  }

  int max_threads() const { return max_threads_.load(std::memory_order_relaxed); }
  void set_max_threads(int n) { max_threads_.store(std::max(1, n), std::memory_order_relaxed); }

  void run(size_t count, int parts, const std::function<void(size_t, size_t)>& fn) {
    std::lock_guard<std::mutex> one_job_at_a_time(run_mutex_);
    start_workers(parts - 1);
    fn_ = &fn;
    count_ = count;
    error_ = nullptr;
    pending_.store(parts - 1, std::memory_order_relaxed);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      const uint64_t next = (job_.load(std::memory_order_relaxed) >> kPartsBits) + 1;
      job_.store((next << kPartsBits) | static_cast<uint64_t>(parts), std::memory_order_release);
    }
    wake_.notify_all();

    std::exception_ptr caller_error;
    try {
      fn(0, count / parts);
    } catch (...) {
      caller_error = std::current_exception();
    }
    wait_for_workers();
    fn_ = nullptr;
    if (caller_error) std::rethrow_exception(caller_error);
    if (error_) std::rethrow_exception(error_);
  }

 private:
  Pool() : max_threads_(default_max_threads()) {}

  static int default_max_threads() {
#ifdef __EMSCRIPTEN__
    return 1;  // the loader says how many workers it pre-started (set_max_threads)
#else
    return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
#endif
  }

  void start_workers(int wanted) {
    while (static_cast<int>(workers_.size()) < wanted) {
      const int index = static_cast<int>(workers_.size()) + 1;  // part 0 is the caller's
      workers_.emplace_back([this, index] { work(index); });
      workers_.back().detach();
    }
  }

  void work(int index) {
    uint64_t seen = 0;
    for (;;) {
      const auto until = std::chrono::steady_clock::now() + kWorkerSpin;
      unsigned polls = 0;
      while (job_.load(std::memory_order_acquire) == seen && still_spinning(until, polls)) {
      }
      if (job_.load(std::memory_order_acquire) == seen) {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return job_.load(std::memory_order_acquire) != seen; });
      }
      seen = job_.load(std::memory_order_acquire);
      // The part count comes with the job number it belongs to. A worker not in this job may see
      // a later job straight away (this one does not wait for it); one in it cannot, as the next
      // job starts only after this one's pending count reached zero.
      const int parts = static_cast<int>(seen & kPartsMask);
      if (index >= parts) continue;
      try {
        (*fn_)(count_ * index / parts, count_ * (index + 1) / parts);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!error_) error_ = std::current_exception();
      }
      if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard<std::mutex> lock(mutex_);
        done_.notify_one();
      }
    }
  }

  void wait_for_workers() {
    const auto until = std::chrono::steady_clock::now() + kCallerSpin;
    unsigned polls = 0;
    while (pending_.load(std::memory_order_acquire) != 0 && still_spinning(until, polls)) {
    }
    if (pending_.load(std::memory_order_acquire) != 0) {
      std::unique_lock<std::mutex> lock(mutex_);
      done_.wait(lock, [&] { return pending_.load(std::memory_order_acquire) == 0; });
    }
  }

  std::atomic<int> max_threads_;
  std::mutex run_mutex_;  // one job at a time (two callers on two threads take turns)
  std::mutex mutex_;      // guards the sleeps and error_
  std::condition_variable wake_, done_;
  std::vector<std::thread> workers_;
  // The job number and its part count in one word (number << kPartsBits | parts), read at once.
  // With the count in a field of its own, a worker sitting out a short job could be paused
  // between reading the number and the count, read the next job's count, run its part of that
  // job and then run it again on seeing the next number: the pending count went below zero, so
  // the caller could sleep for ever (the model's worker hangs) or return before a part was done.
  static constexpr int kPartsBits = 16;  // parts <= threads <= 256
  static constexpr uint64_t kPartsMask = (uint64_t{1} << kPartsBits) - 1;
  std::atomic<uint64_t> job_{0};
  std::atomic<int> pending_{0};
  // The job, written by run() before job_ is bumped (release) and read by the workers in it
  // after they see the new job (acquire).
  const std::function<void(size_t, size_t)>* fn_ = nullptr;
  size_t count_ = 0;
  std::exception_ptr error_;
};

int pool_max() { return Pool::shared().max_threads(); }

#endif  // ATTNSCOPE_NO_THREADS

}  // namespace

int max_threads() { return pool_max(); }

void set_max_threads(int n) {
#ifdef ATTNSCOPE_NO_THREADS
  (void)n;
#else
  Pool::shared().set_max_threads(n);
#endif
}

ThreadScope::ThreadScope(int threads) : previous_(scope_threads) { scope_threads = std::max(1, threads); }
ThreadScope::~ThreadScope() { scope_threads = previous_; }

size_t split_jobs() { return split_job_count.load(std::memory_order_relaxed); }

int active_threads() { return std::min(scope_threads, max_threads()); }

void parallel_for(size_t count, size_t min_items, const std::function<void(size_t, size_t)>& fn) {
  if (count == 0) return;
  const size_t most_parts = std::max<size_t>(1, count / std::max<size_t>(1, min_items));
  const int parts = static_cast<int>(std::min<size_t>(static_cast<size_t>(active_threads()), most_parts));
  if (parts <= 1) return fn(0, count);
  split_job_count.fetch_add(1, std::memory_order_relaxed);
#ifdef ATTNSCOPE_NO_THREADS
  fn(0, count);
#else
  Pool::shared().run(count, parts, fn);
#endif
}

}  // namespace attnscope
