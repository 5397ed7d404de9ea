// A run's attention maps on demand as JavaScript holds them (engine/attention_sources.h): the
// sources moved out of the Model's reused result into an object of their own, so a RunResult keeps
// them after later runs; JavaScript frees it with delete() when the result goes (js/api/result.js).
#pragma once
#include <emscripten/val.h>

#include <vector>

#include "attention_sources.h"

namespace attnscope::bindings {

class AttentionMapsJs {
 public:
  explicit AttentionMapsJs(AttentionSources&& sources) : sources_(std::move(sources)) {}
  // A fresh Float32Array (queries × keys): layer `layer` head `head`'s probabilities, row i = query
  // i. E_INPUT for a layer or head outside the run.
  emscripten::val map(int layer, int head);
  // Bytes held in wasm memory (RunResult.memoryBytes).
  double bytes() const { return static_cast<double>(sources_.bytes() + scratch_.capacity() * sizeof(float)); }

 private:
  AttentionSources sources_;
  std::vector<float> scratch_;  // the map being copied out
};

}  // namespace attnscope::bindings
