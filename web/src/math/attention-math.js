// Pure arithmetic on attention matrices for the views: hiding special tokens with
// rows renormalised, mean/max over heads, attention rollout, value-norm weighting, the formula
// walk-through (q·k, ÷√d_k, softmax, Σ α v) and mask/drop diffs. No DOM, no drawing.
// Matrices are row-major Float32Array (n×n); row i = query i, column j = key j. One head's
// matrix is RunResult.attention(layer, head) (js/api/result.js), a view of the flat array.

// Token positions to show: all, or all but the template-added [CLS]/[SEP] when hiding them.
// Never returns an empty list (a text of only special tokens keeps them).
export function visiblePositions(result, hideSpecial) {
  const T = result.tokens.length;
  const all = Array.from({ length: T }, (_, i) => i);
  if (!hideSpecial) return all;
  const kept = all.filter((i) => !result.specialTokensMask[i]);
  return kept.length ? kept : all;
}

// Restricts an n×n matrix to `positions` (rows and columns). With renormalise, each kept row is
// divided by its kept sum so it is again a probability distribution over the shown keys
// (a row whose kept sum is 0 stays 0 rather than dividing by zero).
export function restrict(matrix, n, positions, renormalise) {
  const m = positions.length;
  if (m === n) return matrix;   // nothing hidden: the matrix itself (callers never write to it)
  const out = new Float32Array(m * m);
  for (let a = 0; a < m; a++) {
    const row = positions[a] * n;
    let sum = 0;
    for (let b = 0; b < m; b++) {
      const v = matrix[row + positions[b]];
      out[a * m + b] = v;
      sum += v;
    }
    if (renormalise && sum > 0 && positions.length !== n) {
      for (let b = 0; b < m; b++) out[a * m + b] /= sum;
    }
  }
  return out;
}

// Mean over the heads of one layer (T×T): the rollout's input, so kept to one tight loop.
export function headMean(result, layer) {
  const [, H, T] = result.shape;
  const mean = new Float32Array(T * T);
  const w = 1 / H;
  for (let h = 0; h < H; h++) {
    const a = result.attention(layer, h);
    for (let x = 0; x < a.length; x++) mean[x] += a[x] * w;
  }
  return mean;
}

// Mean and max over the heads of one layer (T×T each).
export function headMeanMax(result, layer) {
  const [, H, T] = result.shape;
  const mean = new Float32Array(T * T);
  const max = new Float32Array(T * T);
  for (let h = 0; h < H; h++) {
    const a = result.attention(layer, h);
    for (let x = 0; x < a.length; x++) {
      mean[x] += a[x] / H;
      if (a[x] > max[x]) max[x] = a[x];
    }
  }
  return { mean, max };
}

// C = A·B for n×n row-major matrices (i-k-j order: streams rows of B, cache friendly).
export function matmul(a, b, n) {
  const c = new Float32Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < n; k++) {
      const aik = a[i * n + k];
      if (aik === 0) continue;
      const bRow = k * n, cRow = i * n;
      for (let j = 0; j < n; j++) c[cRow + j] += aik * b[bRow + j];
    }
  }
  return c;
}

// Attention rollout (Abnar & Zuidema 2020) up to and including `lastLayer`: per layer
// Ã = 0.5·mean_h(A) + 0.5·I with rows renormalised, and R = Ã_last · … · Ã_0 (the residual
// stream carries token j's share forward, so later layers multiply on the left).
export function rollout(result, lastLayer) {
  const T = result.shape[2];
  const means = [];
  for (let l = 0; l <= lastLayer; l++) means.push(headMean(result, l));
  return rolloutFromMeans(means, T);
}

// The same from the per-layer head means (each T×T; consumed: they are modified in place).
export function rolloutFromMeans(means, T) {
  let r = null;
  for (const mean of means) {
    for (let i = 0; i < T; i++) {
      mean[i * T + i] += 1;
      let sum = 0;
      for (let j = 0; j < T; j++) sum += mean[i * T + j];
      for (let j = 0; j < T; j++) mean[i * T + j] /= sum;  // = 0.5·A + 0.5·I when rows of A sum to 1
    }
    r = r ? matmul(mean, r, T) : mean;
  }
  return r;
}

// Kobayashi et al. 2020: α_ij·‖f(x_j)‖ for one head, where ‖f(x_j)‖ is the norm of key j's
// transformed value vector (valueNorms, (L, H, T)). Not row-stochastic.
export function normWeighted(result, layer, head) {
  const [, H, T] = result.shape;
  const a = result.attention(layer, head);
  const norms = result.valueNorms.subarray((layer * H + head) * T, (layer * H + head + 1) * T);
  const out = new Float32Array(T * T);
  for (let i = 0; i < T; i++) for (let j = 0; j < T; j++) out[i * T + j] = a[i * T + j] * norms[j];
  return out;
}

// The per-head vector (length dh) of q, k or v for token `token`: arrays are (L, H, T, dh).
export function headVector(result, which, layer, head, token) {
  const [, H, T] = result.shape;
  const arr = result[which];
  const dh = arr.length / (result.shape[0] * H * T);
  const start = ((layer * H + head) * T + token) * dh;
  return arr.subarray(start, start + dh);
}

// The formula walk-through for one head and query i, recomputed from the engine's own q, k, v:
// scores_j = q_i·k_j, scaled_j = scores_j/√d_k, α = softmax(scaled) over unmasked keys (masked keys
// get −∞ and weight 0, as in the encoder), output = Σ_j α_j v_j.
export function formulaSteps(result, layer, head, query, keyMask) {
  const T = result.shape[2];
  const q = headVector(result, 'q', layer, head, query);
  const dk = q.length;
  const scale = Math.sqrt(dk);
  const scores = new Float64Array(T), scaled = new Float64Array(T), softmax = new Float64Array(T);
  let max = -Infinity;
  for (let j = 0; j < T; j++) {
    const k = headVector(result, 'k', layer, head, j);
    let dot = 0;
    for (let d = 0; d < dk; d++) dot += q[d] * k[d];
    scores[j] = dot;
    scaled[j] = dot / scale;
    if (!(keyMask && keyMask[j] === 0) && scaled[j] > max) max = scaled[j];
  }
  let sum = 0;
  for (let j = 0; j < T; j++) {
    softmax[j] = keyMask && keyMask[j] === 0 ? 0 : Math.exp(scaled[j] - max);
    sum += softmax[j];
  }
  for (let j = 0; j < T; j++) softmax[j] /= sum;
  const output = new Float64Array(dk);
  for (let j = 0; j < T; j++) {
    const v = headVector(result, 'v', layer, head, j);
    for (let d = 0; d < dk; d++) output[d] += softmax[j] * v[d];
  }
  return { q, dk, scale, scores, scaled, softmax, output };
}

// Mean of the chosen query rows of an n×n matrix: "where do these tokens, together, look?".
export function meanOfRows(matrix, n, rows) {
  const out = new Float32Array(n);
  if (!rows.length) return out;
  for (const i of rows) for (let j = 0; j < n; j++) out[j] += matrix[i * n + j] / rows.length;
  return out;
}

// Aligns an edited run with the original: for each original position, its position in the
// edited run (−1 when dropped). Masking keeps positions; dropping removes one.
export function alignPositions(T, edit) {
  const map = new Int32Array(T);
  for (let i = 0, k = 0; i < T; i++) {
    if (edit && edit.kind === 'drop' && edit.positions.includes(i)) map[i] = -1;
    else map[i] = k++;
  }
  return map;
}

// edited − original on the original's grid (cells of a dropped token are NaN: nothing to compare).
export function diffMatrix(original, edited, T, map, Te) {
  const out = new Float32Array(T * T);
  for (let i = 0; i < T; i++) {
    for (let j = 0; j < T; j++) {
      const ei = map[i], ej = map[j];
      out[i * T + j] = ei < 0 || ej < 0 ? NaN : edited[ei * Te + ej] - original[i * T + j];
    }
  }
  return out;
}

// Largest finite value (for colour scales); 0 for an empty or all-NaN matrix.
export function maxOf(values) {
  let m = 0;
  for (let x = 0; x < values.length; x++) if (values[x] > m) m = values[x];
  return m;
}

export function maxAbsOf(values) {
  let m = 0;
  for (let x = 0; x < values.length; x++) {
    const v = Math.abs(values[x]);
    if (v > m) m = v;
  }
  return m;
}
