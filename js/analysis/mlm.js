// Predictions from vocabulary logits: a numerically stable softmax over the whole vocabulary and
// the k most likely tokens. The logits come from the engine's masked-LM head (encoders) or
// next-token head (decoders), Transformer::lm_logits.

/**
 * @param {Float32Array} logits one row of vocabulary logits
 * @param {number} k
 * @returns {{id: number, prob: number}[]} k entries, most likely first
 */
export function topKSoftmax(logits, k) {
  let max = -Infinity;
  for (const x of logits) if (x > max) max = x;
  let sum = 0;
  for (const x of logits) sum += Math.exp(x - max);
  return bestIds(logits, k).map((id) => ({ id, prob: Math.exp(logits[id] - max) / sum }));
}

/** The ids of the k largest logits, largest first (ties: lower id first). */
export function bestIds(logits, k) {
  // Keep the k best ids in a small sorted list: k is tiny next to the vocabulary.
  const best = [];
  for (let id = 0; id < logits.length; id++) {
    const x = logits[id];
    if (best.length === k && x <= logits[best[best.length - 1]]) continue;
    let at = best.length;
    while (at > 0 && logits[best[at - 1]] < x) at--;
    best.splice(at, 0, id);
    if (best.length > k) best.pop();
  }
  return best;
}

/** softmax(logits)[id] */
export function probabilityOf(logits, id) {
  let max = -Infinity;
  for (const x of logits) if (x > max) max = x;
  let sum = 0;
  for (const x of logits) sum += Math.exp(x - max);
  return Math.exp(logits[id] - max) / sum;
}

/** How many tokens have a larger logit than `id` (0 = the model's first choice). */
export function rankOf(logits, id) {
  const x = logits[id];
  let rank = 0;
  for (let j = 0; j < logits.length; j++) if (logits[j] > x || (logits[j] === x && j < id)) rank++;
  return rank;
}
