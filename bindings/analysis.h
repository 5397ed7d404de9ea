// Embind glue for the readers of a run (engine/logit_lens.h, engine/attribution.h): each runs the
// model over the ids it is given and returns flat typed arrays that js/api/model.js names and shapes.
#pragma once
#include <emscripten/val.h>

#include "attribution.h"
#include "logit_lens.h"
#include "transformer.h"

namespace attnscope::bindings {

// {layers, tokens, topK, topIds: Int32Array (L+1)·T·k, topProbs: Float64Array, finalIds: Int32Array
// (T), finalRanks, nextRanks: Int32Array (L+1)·T (1-based; 0: no next token), finalProbs,
// nextProbs: Float64Array}.
emscripten::val logit_lens_js(const Transformer& model, const emscripten::val& ids, const emscripten::val& token_types,
                              const emscripten::val& attention_mask, const emscripten::val& head_mask, int top_k);

// {position, tokenId, logit, sum, kinds: string[], layers, heads: Int32Array (−1: none), values:
// Float64Array}, the parts in the engine's order.
emscripten::val attribution_js(const Transformer& model, const emscripten::val& ids,
                               const emscripten::val& attention_mask, const emscripten::val& head_mask, int position,
                               int token_id);

// The two results as the functions above return them (an encoder–decoder's decoder side's too).
emscripten::val lens_to_js(const LogitLens& lens);
emscripten::val attribution_to_js(const Attribution& attribution);

}  // namespace attnscope::bindings
