// Information flow (engine/flow.h) for JavaScript: one stack's shares as fresh Float32Arrays,
// row-major, with their shape: {layers, heads, queries, keys, tokens (L·T·K), residual, bias (L·T),
// heads (L·H·T·K), headsResidual, headsBias, mlp, mlpResidual (L·T)} and, for an encoder–decoder's
// decoder, crossKeys and the cross-attention's crossTokens, crossResidual, crossBias, crossHeads,
// crossHeadsResidual, crossHeadsBias. `heads` is the array; the head count is headCount.
#pragma once
#include <emscripten/val.h>

#include "flow.h"

namespace attnscope::bindings {

emscripten::val flow_to_js(const StackFlow& flow);

}  // namespace attnscope::bindings
