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
    const uint64_t chunks = std::min<uint64_t>(count, static_cast<uint64_t>(parts) * kChunksPerThread);
    done_chunks_.store(0, std::memory_order_relaxed);
    uint64_t number;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      number = (job_.load(std::memory_order_relaxed) >> kPartsBits) + 1;
      claim_.store(claim_word(number, chunks, 0), std::memory_order_release);
      job_.store((number << kPartsBits) | static_cast<uint64_t>(parts), std::memory_order_release);
    }
    wake_.notify_all();
    run_chunks(number);
    wait_for_chunks(chunks);
    fn_ = nullptr;
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
      const int index = static_cast<int>(workers_.size()) + 1;  // thread 0 is the caller
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
      // The thread count comes with the job number it belongs to; the job may already be over
      // (the caller took every chunk), and then run_chunks claims nothing.
      const int parts = static_cast<int>(seen & kPartsMask);
      if (index >= parts) continue;
      run_chunks(seen >> kPartsBits);
    }
  }

  // The claim word: the job's number (its low 32 bits), its chunk count and the next chunk to
  // take, in one atomic, so a claim is of one job's chunk or fails.
  static uint64_t claim_word(uint64_t number, uint64_t chunks, uint64_t next) {
    return (number << 32) | (chunks << 16) | next;
  }

  // Takes chunks of job `number` until none is left (or another job runs): each chunk claimed is
  // this job's, and the job cannot end before the chunk is done, so fn_ and count_ are its own.
  void run_chunks(uint64_t number) {
    uint64_t c = claim_.load(std::memory_order_acquire);
    for (;;) {
      const uint64_t chunks = (c >> 16) & 0xffff, next = c & 0xffff;
      if ((c >> 32) != (number & 0xffffffffu) || next >= chunks) return;
      if (!claim_.compare_exchange_weak(c, c + 1, std::memory_order_acq_rel, std::memory_order_acquire)) continue;
      try {
        (*fn_)(count_ * next / chunks, count_ * (next + 1) / chunks);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!error_) error_ = std::current_exception();
      }
      if (done_chunks_.fetch_add(1, std::memory_order_acq_rel) + 1 == chunks) {
        std::lock_guard<std::mutex> lock(mutex_);
        done_.notify_one();
      }
      c = claim_.load(std::memory_order_acquire);
    }
  }

  void wait_for_chunks(uint64_t chunks) {
    const auto until = std::chrono::steady_clock::now() + kCallerSpin;
    unsigned polls = 0;
    while (done_chunks_.load(std::memory_order_acquire) != chunks && still_spinning(until, polls)) {
    }
    if (done_chunks_.load(std::memory_order_acquire) != chunks) {
      std::unique_lock<std::mutex> lock(mutex_);
      done_.wait(lock, [&] { return done_chunks_.load(std::memory_order_acquire) == chunks; });
    }
  }

  std::atomic<int> max_threads_;
  std::mutex run_mutex_;  // one job at a time (two callers on two threads take turns)
  std::mutex mutex_;      // guards the sleeps and error_
  std::condition_variable wake_, done_;
  std::vector<std::thread> workers_;
  // The job number and how many threads may work on it in one word (number << kPartsBits |
  // parts), read at once: a worker beyond the count sits the job out (a model asked for fewer
  // threads than the pool has). Which chunks a thread runs is decided only by claim_, whose word
  // also names the job: a worker that sees a job late (paused between reading job_ and claiming)
  // finds it ended or another one running and claims nothing of it.
  static constexpr int kPartsBits = 16;  // parts <= threads <= 256
  static constexpr uint64_t kPartsMask = (uint64_t{1} << kPartsBits) - 1;
  std::atomic<uint64_t> job_{0};
  // A job is cut into kChunksPerThread chunks per thread, taken by whichever of its threads is
  // free (claim_word): on a loaded machine a worker can wait milliseconds for a core, and the
  // caller then does that worker's share itself instead of waiting for it (a fixed part per
  // thread made a split step slower than one thread there). Each chunk is a contiguous range of
  // items computed by the same code as on one thread, so the results are bit for bit the same.
  static constexpr uint64_t kChunksPerThread = 4;  // parts <= 256: at most 1024 chunks (16 bits)
  std::atomic<uint64_t> claim_{0};
  std::atomic<uint64_t> done_chunks_{0};
  // The job, written by run() before claim_ and job_ are set (release) and read by the threads
  // after they claim one of its chunks (acquire).
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
