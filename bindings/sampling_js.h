// The generation loops' next-token call (nextToken on Model and Seq2SeqModel, after a step has
// left the last position's vocabulary logits in wasm memory): the pick and the softmax a step
// reports, without copying the vocabulary row to JavaScript (engine/sampling.h does the work).
#pragma once
#include <emscripten/val.h>

#include <vector>

#include "sampling.h"

namespace attnscope::bindings {

// options {temperature, topK, topP, u (the caller's random() in [0, 1), read only when temperature
// > 0), candidates (how many of the best to report, ≥ 0)} → {id, prob (softmax(logits)[id]),
// candidates: [{id, prob}] best first}. E_INPUT for a bad option or before any step.
emscripten::val next_token_js(const std::vector<float>& logits, const emscripten::val& options,
                              SamplingScratch& scratch);

}  // namespace attnscope::bindings
