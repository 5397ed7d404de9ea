// model.safetensors on its way in: the wasm-side object JavaScript streams a checkpoint through
// (js/api/load.js), shared by the model classes that take their weights from it.
#pragma once
#include <emscripten/heap.h>
#include <emscripten/val.h>
#include <malloc.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "convert.h"
#include "error.h"
#include "weight_stream.h"

namespace attnscope::bindings {

using emscripten::val;

// JavaScript copies each piece of the file into chunk(n) and
// calls feed(n); the engine's WeightStream converts the tensors to their precision in memory
// (f32, or f16 matrices) in their final place, so the file never exists whole, neither in
// JavaScript nor in wasm memory.
class WeightUpload {
 public:
  WeightUpload(ModelConfig config, uint64_t file_size, WeightPrecision precision)
      : stream_(std::move(config), file_size, precision), precision_(precision) {
    stream_.on_header([this](uint64_t weight_bytes) { reserve_for_weights(weight_bytes); });
  }
  WeightUpload(const WeightUpload&) = delete;  // the callback holds `this`
  WeightUpload& operator=(const WeightUpload&) = delete;

  // A Uint8Array of n bytes in wasm memory to copy the next piece of the file into. Valid only
  // until the next call into the module: fill it and feed() at once.
  val chunk(double n) {
    return guarded([&] {
      if (!(n >= 0 && n <= kMaxChunk))
        throw Error("E_INPUT", "chunk size " + std::to_string(n) + " outside [0, " + std::to_string(kMaxChunk) + "]");
      chunk_.resize(static_cast<size_t>(n));
      return val(emscripten::typed_memory_view(chunk_.size(), chunk_.data()));
    });
  }

  // Passes the first n bytes of chunk() on. As soon as the header is in (before any tensor is
  // allocated) reserve_for_weights() refuses a model whose f32 weights cannot fit in wasm32.
  void feed(double n) {
    guarded([&] {
      if (!(n >= 0 && n <= static_cast<double>(chunk_.size())))
        throw Error("E_INPUT", "feed(" + std::to_string(n) + ") after chunk(" + std::to_string(chunk_.size()) + ")");
      stream_.feed(chunk_.data(), static_cast<size_t>(n));
    });
  }

  void finish() {
    guarded([&] { stream_.finish(); });
  }
  WeightStream& stream() { return stream_; }
  WeightPrecision precision() const { return precision_; }

  // After the model took its tensors: remembers the ones it did not take, then frees them.
  void release_untaken() {
    untaken_ = stream_.untaken();
    stream_.release();
  }
  // Those tensors' names (JavaScript warns of them: js/api/load.js).
  val untaken_tensors() const {
    val out = val::array();
    for (size_t i = 0; i < untaken_.size(); ++i) out.set(i, val(untaken_[i]));
    return out;
  }

 private:
  static constexpr double kMaxChunk = 16 << 20;

  // Grows the heap once to what the weights need: one growth instead of one per tensor, and
  // with MEMORY_GROWTH_GEOMETRIC_STEP=0 (CMakeLists.txt) no overshoot beyond it.
  void reserve_for_weights(uint64_t need) {
    const uint64_t in_use = static_cast<uint64_t>(mallinfo().uordblks);
    const uint64_t limit = emscripten_get_heap_max();
    if (in_use + need + kHeadroom > limit) {
      throw Error("E_TOO_LARGE", "the weights take " + megabytes(need) +
                                     (precision_ == WeightPrecision::F32 ? " as f32" : " (matrices as f16)") +
                                     ", more than the " +
                                     megabytes(limit > in_use + kHeadroom ? limit - in_use - kHeadroom : 0) +
                                     " WebAssembly (wasm32, 4 GB) can still hold");
    }
    // Sized from what is in use, not from the top of the heap: after an earlier model was
    // disposed its memory is free below the top and malloc reuses it, so no growth is needed.
    const uint64_t target = in_use + need + kHeadroom;
    if (target > emscripten_get_heap_size()) emscripten_resize_heap(static_cast<size_t>(std::min(target, limit)));
  }
  static std::string megabytes(uint64_t bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f MB", static_cast<double>(bytes) / (1 << 20));
    return text;
  }
  // Packing a linear layer briefly holds two copies of it; activations of a short run.
  static constexpr uint64_t kHeadroom = 16 << 20;

  WeightStream stream_;
  WeightPrecision precision_;
  std::vector<uint8_t> chunk_;
  std::vector<std::string> untaken_;
};


}  // namespace attnscope::bindings
