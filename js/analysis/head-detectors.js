// Head detectors: what a head does, measured on an input made to reveal it rather than on the
// reader's text. The induction score (Olsson et al. 2022, "In-context Learning and Induction
// Heads"): run a random sequence of distinct tokens twice in a row; an induction head, at each
// token of the second copy, attends to the token that followed that token's earlier occurrence
// (… A B … A → B). The score is that weight averaged over the second copy. Works on any model
// (meaningful for decoders, whose queries cannot see ahead). The first-token "sink" mass is
// headStatistics' firstMass (head-stats.js), measured on any text.
import { AttnScopeError } from '../formats/errors.js';

export const INDUCTION_DEFAULTS = Object.freeze({ length: 25, seed: 1 });

/**
 * The repeated sequence: [bos]? x_0 … x_{n−1} x_0 … x_{n−1}, the x distinct random ids (seeded)
 * that are not the model's bos, eos or pad.
 * @param {{vocabSize: number, bosTokenId?: number, eosTokenId?: number, padTokenId?: number}} config
 * @returns {{ids: number[], first: number, length: number}} first: position of x_0 in the first copy
 */
export function inductionInput(config, { length = INDUCTION_DEFAULTS.length, seed = INDUCTION_DEFAULTS.seed } = {}) {
  const special = new Set([config.bosTokenId, config.eosTokenId, config.padTokenId].filter((id) => id >= 0));
  const pool = [];
  for (let id = 0; id < config.vocabSize; id++) if (!special.has(id)) pool.push(id);
  if (!Number.isInteger(length) || length < 2 || length > pool.length) {
    throw new AttnScopeError('E_INPUT', `induction length must be 2..${pool.length} (distinct ids of the vocabulary), got ${length}`);
  }
  // Partial Fisher–Yates with a seeded mulberry32: the same sequence for a seed, every run.
  let s = seed >>> 0;
  const uniform = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  for (let k = 0; k < length; k++) {
    const r = k + Math.floor(uniform() * (pool.length - k));
    [pool[k], pool[r]] = [pool[r], pool[k]];
  }
  const seq = pool.slice(0, length);
  const prefix = config.bosTokenId >= 0 ? [config.bosTokenId] : [];
  return { ids: [...prefix, ...seq, ...seq], first: prefix.length, length };
}

/**
 * Per head (layer-major), the mean attention from each token of the second copy (position
 * first + n + t) to the token after its earlier occurrence (first + t + 1), t = 0 … n − 1.
 * @param {{attentions: Float32Array, shape: number[]}} result the run of inductionInput().ids
 */
export function inductionScores(result, { first, length }) {
  const [L, H, T] = result.shape;
  if (first + 2 * length !== T) throw new AttnScopeError('E_INPUT', `inductionScores: the run has ${T} tokens, the input ${first + 2 * length}`);
  const out = new Float64Array(L * H);
  for (let lh = 0; lh < L * H; lh++) {
    let sum = 0;
    for (let t = 0; t < length; t++) {
      const query = first + length + t, target = first + t + 1;
      sum += result.attentions[(lh * T + query) * T + target];
    }
    out[lh] = sum / length;
  }
  return out;
}

/**
 * Runs the repeated sequence through a model (a Model or the worker client: anything with
 * runIds) and scores every head. Returns { scores (L·H, layer-major), input }.
 */
export async function measureInduction(runner, config, options = {}) {
  const input = inductionInput(config, options);
  const result = await runner.runIds(input.ids, options.signal ? { signal: options.signal } : {});
  return { scores: inductionScores(result, input), input };
}
