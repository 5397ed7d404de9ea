// What a head does in terms of parts of speech (as exBERT and Dodrio show): over tagged sentences,
// the mean attention a query word of class a puts on key words of class b, for every head. Each
// token belongs to the word whose character span holds its start (special tokens to none).
import { AttnScopeError } from './errors.js';

/**
 * @param {Array<{result: {attentions: Float32Array, shape: number[], offsets: Int32Array,
 *   specialTokensMask?: Uint8Array}, words: number[][]}>} tagged each run with its sentence's words
 *   as [start, end, class] (character spans into the text the run tokenized)
 * @param {number} classes how many classes (the corpus sample's `classes.length`)
 * @returns {{mass: Float64Array, queries: Float64Array}} mass (L·H·classes·classes): the mean
 *   attention from a query token of class a to all key tokens of class b; queries (classes): how
 *   many query tokens each class had
 */
export function posAttention(tagged, classes) {
  if (!tagged.length) throw new AttnScopeError('E_INPUT', 'posAttention needs at least one tagged run');
  const [L, H] = tagged[0].result.shape;
  const mass = new Float64Array(L * H * classes * classes);
  const queries = new Float64Array(classes);
  for (const { result, words } of tagged) {
    const [, , T] = result.shape;
    const cls = tokenClasses(result, words, T);
    for (let i = 0; i < T; i++) if (cls[i] >= 0) queries[cls[i]]++;
    for (let lh = 0; lh < L * H; lh++) {
      for (let i = 0; i < T; i++) {
        if (cls[i] < 0) continue;
        const row = (lh * T + i) * T;
        const out = (lh * classes + cls[i]) * classes;
        for (let j = 0; j < T; j++) if (cls[j] >= 0) mass[out + cls[j]] += result.attentions[row + j];
      }
    }
  }
  for (let lh = 0; lh < L * H; lh++) {
    for (let a = 0; a < classes; a++) {
      if (!queries[a]) continue;
      for (let b = 0; b < classes; b++) mass[(lh * classes + a) * classes + b] /= queries[a];
    }
  }
  return { mass, queries };
}

// Each token's class: that of the word holding its first character; −1 for special tokens and
// tokens outside every word.
function tokenClasses(result, words, T) {
  const out = new Int32Array(T).fill(-1);
  for (let t = 0; t < T; t++) {
    if (result.specialTokensMask?.[t]) continue;
    const start = result.offsets[2 * t], end = result.offsets[2 * t + 1];
    if (end <= start) continue;
    const word = words.find(([s, e]) => start >= s && start < e);
    if (word) out[t] = word[2];
  }
  return out;
}
