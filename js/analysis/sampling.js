// Choosing the next token from a decoder's logits: greedy (temperature 0) or sampled with
// temperature, top-k and top-p (nucleus) filtering, from a seeded generator so that the same seed
// gives the same text on every machine. Runs on one row of vocabulary logits.
import { bestIds } from './mlm.js';

/**
 * A small deterministic PRNG (mulberry32): 32-bit state, uniform floats in [0, 1). Not for
 * cryptography; chosen because JavaScript's integer arithmetic makes it bit-identical everywhere.
 */
export function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6D2B79F5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function argmaxOf(logits, ids) {
  let best = ids[0];
  for (const id of ids) if (logits[id] > logits[best]) best = id;
  return best;
}

/** The id of the largest logit (the lowest id among equals, as torch.argmax). */
export function argmax(logits) {
  let best = 0;
  for (let id = 1; id < logits.length; id++) if (logits[id] > logits[best]) best = id;
  return best;
}

/**
 * Draws the next token id.
 * @param {Float32Array} logits one row of vocabulary logits
 * @param {{temperature: number, topK: number, topP: number}} options temperature 0 = greedy;
 *   topK 0 = no limit; topP 1 = no limit
 * @param {() => number} random uniform [0, 1) source (seededRandom)
 */
export function sampleToken(logits, { temperature, topK, topP }, random) {
  if (temperature === 0) return argmax(logits);
  // Candidates best first (ties: lower id first): top-k selects them without sorting the whole
  // vocabulary; top-p needs the whole order; neither: every id, in id order.
  let order;
  if (topK > 0 && topK < logits.length) order = bestIds(logits, topK);
  else if (topP < 1) order = Array.from(logits.keys()).sort((a, b) => logits[b] - logits[a] || a - b);
  else order = Array.from(logits.keys());
  const max = logits[argmaxOf(logits, order)];
  const weights = order.map((id) => Math.exp((logits[id] - max) / temperature));
  let total = weights.reduce((a, b) => a + b, 0);
  if (topP < 1) {  // the smallest prefix whose probability reaches topP
    let kept = 0, mass = 0;
    while (kept < order.length && mass < topP * total) mass += weights[kept++];
    order = order.slice(0, Math.max(kept, 1));
    weights.length = order.length;
    total = weights.reduce((a, b) => a + b, 0);
  }
  const u = random() * total;
  let cumulative = 0;
  for (let i = 0; i < order.length; i++) {
    cumulative += weights[i];
    if (u < cumulative) return order[i];
  }
  return order[order.length - 1];  // u within rounding of the total
}
