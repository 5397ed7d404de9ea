// AttnScope's public API: loadModel() → Model { run, runIds, tokenize, dispose, config, info }.
// Everything here runs on the calling thread; 'attnscope/worker' runs the same in a Worker.
export { loadModel } from './load.js';
export { Model } from './model.js';
export { Seq2SeqModel } from './seq2seq.js';
export { loadSeq2SeqModel } from './load.js';
export { RunResult } from './result.js';
export { AttnScopeError, ERROR_CODES } from './errors.js';
export { clearModelCache } from './http-provider.js';
export { DEFAULT_HUB_URL, hubUrlFor } from './sources.js';
export { bundledModelFile, bundledModelLocation, bundledModelLocations } from '#platform';
export { HEAD_STATISTICS, ablationEffects, headStatistics } from './head-stats.js';
export { INDUCTION_DEFAULTS, inductionInput, inductionScores, measureInduction } from './head-detectors.js';
export { FIGURE_FORMAT, FIGURE_VERSION, FIGURE_VIEWS, figureData, figureResult } from './snapshot.js';
import { registerFigureKinds } from './snapshot.js';
import { FIGURE_KIND_CODE } from './figure-kinds.js';
import { LENS_FIGURE_CODE } from './figure-lens.js';
import { CROSS_FIGURE_CODE } from './figure-cross.js';

// The version-2 figures' code: flow, patching, the logit lens and cross-attention.
registerFigureKinds({ ...FIGURE_KIND_CODE, ...LENS_FIGURE_CODE, ...CROSS_FIGURE_CODE });
export { findWords, mergeHead, wordAttentions } from './words.js';
export { FLOW_DEFAULT_TAU, flowGraph, topFlowRoute } from './flow-graph.js';

import { getWasmModule, resolveThreads } from './wasm.js';

/** Diagnostics: bytes of wasm heap in use (malloc) and the wasm memory size, of the module that
 *  models loaded with `threads` (default: loadModel's default) live in. */
export async function heapStats({ threads } = {}) {
  return (await getWasmModule({ threads: resolveThreads(threads) })).heapStats();
}

/** How that module was built (SIMD, threads, exceptions, compiler). */
export async function buildInfo({ threads } = {}) {
  return (await getWasmModule({ threads: resolveThreads(threads) })).buildInfo();
}
