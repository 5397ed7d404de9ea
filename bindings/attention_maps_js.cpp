// AttentionMapsJs (attention_maps_js.h) and its Embind registration.
#include "attention_maps_js.h"

#include <emscripten/bind.h>

#include "convert.h"

namespace attnscope::bindings {

emscripten::val AttentionMapsJs::map(int layer, int head) {
  return guarded([&] {
    scratch_.resize(static_cast<size_t>(sources_.queries) * sources_.keys);
    sources_.map(layer, head, scratch_.data());
    return to_float32_array(scratch_);
  });
}

EMSCRIPTEN_BINDINGS(attnscope_attention_maps) {
  emscripten::class_<AttentionMapsJs>("AttentionMaps")
      .function("map", &AttentionMapsJs::map)
      .function("bytes", &AttentionMapsJs::bytes);
}

}  // namespace attnscope::bindings
