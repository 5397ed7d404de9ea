// How far a generation may run, decided before it starts: every new token adds a KV-cache row per
// layer in wasm memory and (encoder–decoders) an attention row per head kept in the result, so an
// unbounded maxNewTokens (1e9, stopAtEos false) would otherwise run for half an hour while memory
// grows until the tab dies. The budget is wasm32's 4 GB, for the cache and the kept rows alike.
import { AttnScopeError } from '../formats/errors.js';

export const GENERATION_BUDGET_BYTES = 2 ** 32;

/**
 * The number of steps that will run (maxNewTokens within the positions left), or E_TOO_LARGE naming
 * the largest number that fits. bytesFor(n): the bytes n steps keep.
 */
export function checkGenerationFits({ maxNewTokens, positionsLeft, bytesFor }) {
  const steps = Math.max(0, Math.min(maxNewTokens, positionsLeft));
  if (bytesFor(steps) <= GENERATION_BUDGET_BYTES) return steps;
  let fits = 0;
  for (let step = 2 ** 30; step >= 1; step /= 2)  // the largest n with bytesFor(n) within the budget
    if (fits + step <= steps && bytesFor(fits + step) <= GENERATION_BUDGET_BYTES) fits += step;
  throw new AttnScopeError('E_TOO_LARGE', `maxNewTokens = ${maxNewTokens} would keep ${gigabytes(bytesFor(steps))} ` +
    `of attention rows and cached keys and values; at most ${fits} new tokens fit in ` +
    `${gigabytes(GENERATION_BUDGET_BYTES)}: ask for fewer`);
}

/** A decoder's KV cache after n more positions: 2 (K, V) · layers · positions · KV width floats. */
export function decoderCacheBytes({ layers, kvWidth, positions }) {
  return 2 * layers * positions * kvWidth * 4;
}

/**
 * What an encoder–decoder's generation of n tokens keeps: each step's self-attention row over its
 * keys (1 … n) and cross-attention row over the S source tokens, per layer and head, and the
 * decoder's self-attention cache.
 */
export function seq2seqGenerationBytes({ layers, heads, headDim, sourceLength }, n) {
  const rows = layers * heads * (n * (n + 1) / 2 + n * sourceLength) * 4;
  return rows + decoderCacheBytes({ layers, kvWidth: heads * headDim, positions: n });
}

function gigabytes(bytes) {
  return bytes >= 1e12 ? `${(bytes / 1e12).toPrecision(3)} TB` : `${(bytes / 1e9).toFixed(1)} GB`;
}
