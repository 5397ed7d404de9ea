// What a head does in terms of parts of speech (as exBERT and Dodrio show): over tagged sentences,
// the mean attention a query word of class a puts on key words of class b, for every head. Each
// token belongs to the word whose character span holds its start (special tokens to none).
import { AttnScopeError } from '../formats/errors.js';

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
  const sums = posAttentionSums(classes);
  for (const { result, words } of tagged) sums.add(result, words);
  return sums.finish();
}

/**
 * posAttention() one run at a time (the worker's corpus job keeps only these sums): add(result,
 * words) per run, then finish(). The same sums in the same order as posAttention.
 */
export function posAttentionSums(classes) {
  let LH = 0, mass = null;
  const queries = new Float64Array(classes);
  return {
    add(result, words) {
      const [L, H, T] = result.shape;
      if (!mass) {
        LH = L * H;
        mass = new Float64Array(LH * classes * classes);
      }
      const cls = tokenClasses(result, words, T);
      for (let i = 0; i < T; i++) if (cls[i] >= 0) queries[cls[i]]++;
      for (let lh = 0; lh < LH; lh++) {
        for (let i = 0; i < T; i++) {
          if (cls[i] < 0) continue;
          const row = (lh * T + i) * T;
          const out = (lh * classes + cls[i]) * classes;
          for (let j = 0; j < T; j++) if (cls[j] >= 0) mass[out + cls[j]] += result.attentions[row + j];
        }
      }
      return cls;
    },
    finish() {
      if (!mass) throw new AttnScopeError('E_INPUT', 'posAttention needs at least one tagged run');
      const out = Float64Array.from(mass);
      for (let lh = 0; lh < LH; lh++) {
        for (let a = 0; a < classes; a++) {
          if (!queries[a]) continue;
          for (let b = 0; b < classes; b++) out[(lh * classes + a) * classes + b] /= queries[a];
        }
      }
      return { mass: out, queries: Float64Array.from(queries) };
    },
  };
}

// Each token's class: that of the word holding its first character; −1 for special tokens and
// tokens outside every word. (The map's hover and POS colours use the same classes.)
export function tokenClasses(result, words, T = result.shape[2]) {
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
