// AttnScope's public API: loadModel() → Model { run, runIds, tokenize, dispose, config, info }.
// Everything here runs on the calling thread; 'attnscope/worker' runs the same in a Worker.
export { loadModel } from './api/load.js';
export { Model } from './api/model.js';
export { Seq2SeqModel } from './api/seq2seq.js';
export { loadSeq2SeqModel } from './api/load.js';
export { RunResult } from './api/result.js';
export { AttnScopeError, ERROR_CODES } from './formats/errors.js';
export { clearModelCache } from './api/http-provider.js';
export { DEFAULT_HUB_URL, hubUrlFor } from './api/sources.js';
export { bundledModelFile, bundledModelLocation, bundledModelLocations } from '#platform';
export { HEAD_STATISTICS, ablationEffects, headStatistics } from './analysis/head-stats.js';
export { INDUCTION_DEFAULTS, inductionInput, inductionScores, measureInduction } from './analysis/head-detectors.js';
export { FIGURE_FORMAT, FIGURE_VERSION, FIGURE_VIEWS, figureData, figureResult } from './analysis/snapshot.js';
import { registerFigureKinds } from './analysis/snapshot.js';
import { FIGURE_KIND_CODE } from './analysis/figure-kinds.js';
import { LENS_FIGURE_CODE } from './analysis/figure-lens.js';
import { CROSS_FIGURE_CODE } from './analysis/figure-cross.js';

// The version-2 figures' code: flow, patching, the logit lens and cross-attention.
registerFigureKinds({ ...FIGURE_KIND_CODE, ...LENS_FIGURE_CODE, ...CROSS_FIGURE_CODE });
export { findWords, mergeHead, wordAttentions } from './analysis/words.js';
export { FLOW_DEFAULT_TAU, flowGraph, topFlowRoute } from './analysis/flow-graph.js';

import { getWasmModule, resolveThreads } from './api/wasm.js';

/** Diagnostics: bytes of wasm heap in use (malloc) and the wasm memory size, of the module that
 *  models loaded with `threads` (default: loadModel's default) live in. */
export async function heapStats({ threads } = {}) {
  return (await getWasmModule({ threads: resolveThreads(threads) })).heapStats();
}

/** How that module was built (SIMD, threads, exceptions, compiler). */
export async function buildInfo({ threads } = {}) {
  return (await getWasmModule({ threads: resolveThreads(threads) })).buildInfo();
}
