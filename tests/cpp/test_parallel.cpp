// Threads: parallel_for covers its range exactly once and passes errors back, and a forward pass
// (encoder and decoder, KV-cache steps, vocabulary logits) gives the same bits on 1, 2 and 3
// threads. The engine fixtures are too small to be split (below the per-thread minimum work), so
// the shipped models (hidden 128, 4 heads, vocabularies of 8,000 and 4,096) are used.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "config.h"
#include "parallel.h"
#include "safetensors.h"
#include "test_engine_support.h"
#include "transformer.h"
#include "weights.h"

using namespace attnscope;

namespace {

const std::string kRoot = std::string(ATTNSCOPE_FIXTURES_DIR) + "/../..";

Transformer load_model_dir(const std::string& dir) {
  const ModelConfig config = parse_config(test::read_text(dir + "/config.json"));
  const auto bytes = test::read_bytes(dir + "/model.safetensors");
  const SafeTensors tensors(bytes.data(), bytes.size());
  return Transformer(config, load_weights(config, tensors));
}

// Lets the pool run 3 threads even on a 2-core machine (natively it defaults to the core count).
void allow_three_threads() { set_max_threads(std::max(max_threads(), 3)); }

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

std::vector<int32_t> some_ids(int T, int vocab) {
  std::vector<int32_t> ids(T);
  uint32_t state = 12345;
  for (auto& id : ids) {
    state = state * 1664525u + 1013904223u;
    id = static_cast<int32_t>((state >> 8) % static_cast<uint32_t>(vocab));
  }
  return ids;
}

}  // namespace

TEST_CASE("parallel_for covers its range once, in at most the threads asked for", "[parallel]") {
  allow_three_threads();
  for (int threads : {1, 2, 3, 8}) {
    ThreadScope scope(threads);
    for (size_t count : {size_t{1}, size_t{2}, size_t{7}, size_t{96}, size_t{1000}}) {
      std::vector<std::atomic<int>> hits(count);
      std::mutex mutex;
      std::set<std::thread::id> threads_used;
      parallel_for(count, 1, [&](size_t begin, size_t end) {
        CHECK(begin < end);
        {
          std::lock_guard<std::mutex> lock(mutex);
          threads_used.insert(std::this_thread::get_id());
        }
        for (size_t i = begin; i < end; ++i) hits[i]++;
      });
      for (size_t i = 0; i < count; ++i) REQUIRE(hits[i] == 1);
      CHECK(threads_used.size() <= static_cast<size_t>(std::min<int>(active_threads(), static_cast<int>(count))));
    }
  }
  {
    ThreadScope scope(4);
    std::atomic<int> parts{0};
    parallel_for(100, 60, [&](size_t, size_t) { parts++; });  // 100 / 60: one part only
    CHECK(parts == 1);
  }
  CHECK(active_threads() == 1);  // scopes restore what was there (the default is one thread)
}

TEST_CASE("parallel_for: the caller takes on the parts of a worker that is held up", "[parallel]") {
  // On a loaded machine a worker can wait milliseconds for a core: the caller then runs the parts
  // that worker has not started instead of waiting for it (a fixed half per thread would leave it
  // waiting for the held-up worker's whole half).
  allow_three_threads();
  ThreadScope scope(2);
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<size_t> by_caller{0};
  std::atomic<bool> held{false};
  parallel_for(64, 1, [&](size_t begin, size_t end) {
    if (std::this_thread::get_id() == caller) {
      by_caller += end - begin;
    } else if (!held.exchange(true)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the worker's first part only
    }
  });
  CHECK(by_caller >= 64 - 2 * 64 / 8);  // all but at most the worker's first two parts (8 parts of 8)
}

TEST_CASE("parallel_for rethrows an error from any part and stays usable", "[parallel]") {
  allow_three_threads();
  ThreadScope scope(2);
  CHECK_THROWS_WITH(parallel_for(10, 1, [](size_t begin, size_t) {
                      if (begin > 0) throw std::runtime_error("second part failed");
                    }),
                    "second part failed");
  std::atomic<int> sum{0};
  parallel_for(10, 1, [&](size_t begin, size_t end) { sum += static_cast<int>(end - begin); });
  CHECK(sum == 10);
}

TEST_CASE("threads: an encoder forward pass is bit-identical on 1, 2 and 3 threads", "[parallel][engine]") {
  allow_three_threads();
  const Transformer bert = load_model_dir(kRoot + "/model");
  const int T = 100;
  const auto ids = some_ids(T, bert.config().vocab_size);
  std::vector<int32_t> mask(T, 1);
  mask[T - 1] = mask[T - 2] = 0;  // padding keys too
  ForwardOptions options;
  options.hidden_states = options.qkv = options.value_norms = true;
  ForwardResult one;
  {
    ThreadScope scope(1);
    one = bert.forward(ids, {}, mask, options);
  }
  for (int threads : {2, 3}) {
    ThreadScope scope(threads);
    const size_t jobs = split_jobs();
    const ForwardResult many = bert.forward(ids, {}, mask, options);
    CHECK(split_jobs() > jobs + 10);  // the GEMMs and the heads really were split
    CHECK(same_bits(one.attentions, many.attentions));
    CHECK(same_bits(one.hidden_states, many.hidden_states));
    CHECK(same_bits(one.q, many.q));
    CHECK(same_bits(one.value_norms, many.value_norms));
    CHECK(same_bits(bert.lm_logits(one.hidden_out.data(), 3), bert.lm_logits(many.hidden_out.data(), 3)));
  }
}

TEST_CASE("threads: decoder prompt, KV-cache steps and logits are bit-identical on 1 and 2 threads",
          "[parallel][engine][decoder]") {
  allow_three_threads();
  const Transformer gpt = load_model_dir(kRoot + "/model-causal");
  const int vocab = gpt.config().vocab_size;
  const auto prompt = some_ids(200, vocab);  // long enough for the prompt's layers to be split
  size_t step_jobs = 0;  // jobs split while the one-token steps and their logits ran
  auto run = [&](int threads) {
    ThreadScope scope(threads);
    std::vector<float> all;
    KvCache cache;
    ForwardResult step;
    Activations scratch;
    gpt.extend(prompt, cache, step, scratch);
    step_jobs = 0;
    for (int i = 0; i < 4; ++i) {
      const size_t before = split_jobs();
      all.insert(all.end(), step.attentions.begin(), step.attentions.end());
      const int rows = step.tokens;
      const auto logits = gpt.lm_logits(step.hidden_out.data() + static_cast<size_t>(rows - 1) * gpt.config().hidden_size, 1);
      all.insert(all.end(), logits.begin(), logits.end());
      gpt.extend({static_cast<int32_t>(i * 37 % vocab)}, cache, step, scratch);
      step_jobs += split_jobs() - before;
    }
    return all;
  };
  const auto one = run(1);
  const size_t jobs = split_jobs();
  const auto two = run(2);
  CHECK(split_jobs() > jobs + 4);
  // One row reads each weight once: a step's jobs split by the bytes they read, so even this
  // small model's steps split (its 4,096 × 128 vocabulary head at least).
  CHECK(step_jobs >= 4);
  REQUIRE(one.size() > 1000);
  CHECK(same_bits(one, two));
}
