// AttnScope's public API: loadModel() → Model { run, runIds, tokenize, dispose, config, info }.
// Everything here runs on the calling thread; 'attnscope/worker' runs the same in a Worker.
export { loadModel } from './load.js';
export { Model } from './model.js';
export { RunResult } from './result.js';
export { AttnScopeError, ERROR_CODES } from './errors.js';
export { clearModelCache } from './http-provider.js';
export { DEFAULT_HUB_URL, hubUrlFor } from './sources.js';
export { bundledModelLocation, bundledModelLocations } from '#platform';
export { HEAD_STATISTICS, ablationEffects, headStatistics } from './head-stats.js';

import { getWasmModule } from './wasm.js';

/** Diagnostics: bytes of wasm heap in use (malloc) and the wasm memory size. */
export async function heapStats() {
  return (await getWasmModule()).heapStats();
}

/** How the wasm module was built (SIMD, exceptions, compiler). */
export async function buildInfo() {
  return (await getWasmModule()).buildInfo();
}
