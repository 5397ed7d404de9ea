// The query/key map of one head (AttentionViz, Yeh et al. 2023): every token's query and key
// vector of that head, over many sentences, projected together onto their first two principal
// components. Attention is q·k, a dot product, not a distance: a query attends to keys that point
// its way and are long, which need not be the keys nearest it on the map. Pure arithmetic on the q/k arrays a
// run returns with { qkv: true }. The page never runs it on its main thread: the worker's corpus
// job (js/analysis/corpus-job.js, worker client corpusMap) calls it on the q/k it keeps and sends back
// only the points.
import { AttnScopeError } from '../formats/errors.js';

/**
 * @param {Array<{q: Float32Array, k: Float32Array, shape: number[]}>} runs runs with qkv
 * @param {number} layer
 * @param {number} head
 * @returns {{points: Float32Array, kinds: Uint8Array, runs: Int32Array, positions: Int32Array,
 *   components: Float64Array, variance: [number, number]}} points: x, y per point; kinds 0 =
 *   query, 1 = key; runs/positions: where each point comes from; components: the two unit axes
 *   (2 × dh); variance: the share of the total variance each axis explains
 */
export function queryKeyMap(runs, layer, head) {
  if (!runs.length) throw new AttnScopeError('E_INPUT', 'queryKeyMap needs at least one run');
  const vectors = [], kinds = [], from = [], positions = [];
  let dh = 0;
  runs.forEach((r, index) => {
    if (!r.q || !r.k) throw new AttnScopeError('E_INPUT', 'queryKeyMap needs runs made with { qkv: true }');
    const [L, H, T] = r.shape;
    if (layer < 0 || layer >= L || head < 0 || head >= H) throw new AttnScopeError('E_INPUT', `no head ${layer}:${head}`);
    dh = r.q.length / (L * H * T);
    for (const [kind, data] of [[0, r.q], [1, r.k]]) {
      for (let t = 0; t < T; t++) {
        const at = ((layer * H + head) * T + t) * dh;
        vectors.push(data.subarray(at, at + dh));
        kinds.push(kind);
        from.push(index);
        positions.push(t);
      }
    }
  });
  const n = vectors.length;
  const mean = new Float64Array(dh);
  for (const v of vectors) for (let d = 0; d < dh; d++) mean[d] += v[d] / n;
  const cov = new Float64Array(dh * dh);
  for (const v of vectors) {
    for (let a = 0; a < dh; a++) {
      const x = v[a] - mean[a];
      for (let b = a; b < dh; b++) cov[a * dh + b] += x * (v[b] - mean[b]);
    }
  }
  let total = 0;
  for (let a = 0; a < dh; a++) {
    for (let b = 0; b < a; b++) cov[a * dh + b] = cov[b * dh + a];
    total += cov[a * dh + a];
  }
  const first = topEigenvector(cov, dh, null);
  const second = topEigenvector(cov, dh, first.vector);
  const points = new Float32Array(2 * n);
  vectors.forEach((v, i) => {
    let x = 0, y = 0;
    for (let d = 0; d < dh; d++) {
      x += (v[d] - mean[d]) * first.vector[d];
      y += (v[d] - mean[d]) * second.vector[d];
    }
    points[2 * i] = x;
    points[2 * i + 1] = y;
  });
  const components = new Float64Array(2 * dh);
  components.set(first.vector, 0);
  components.set(second.vector, dh);
  return {
    points, kinds: Uint8Array.from(kinds), runs: Int32Array.from(from), positions: Int32Array.from(positions), components,
    variance: [total > 0 ? first.value / total : 0, total > 0 ? second.value / total : 0],
  };
}

// Power iteration on a symmetric matrix (dh × dh), orthogonal to `exclude` when given; a fixed
// start so the map is the same on every run. Sign fixed: the largest |entry| is positive.
function topEigenvector(m, n, exclude) {
  let v = Float64Array.from({ length: n }, (_, i) => 1 + i / n);
  const orthogonalise = (x) => {
    if (!exclude) return;
    let dot = 0;
    for (let i = 0; i < n; i++) dot += x[i] * exclude[i];
    for (let i = 0; i < n; i++) x[i] -= dot * exclude[i];
  };
  const normalise = (x) => {
    let norm = 0;
    for (let i = 0; i < n; i++) norm += x[i] * x[i];
    norm = Math.sqrt(norm) || 1;
    for (let i = 0; i < n; i++) x[i] /= norm;
  };
  orthogonalise(v);
  normalise(v);
  let value = 0;
  for (let iteration = 0; iteration < 500; iteration++) {
    const w = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      let s = 0;
      for (let j = 0; j < n; j++) s += m[i * n + j] * v[j];
      w[i] = s;
    }
    orthogonalise(w);
    let next = 0;
    for (let i = 0; i < n; i++) next += w[i] * v[i];
    normalise(w);
    let change = 0;
    for (let i = 0; i < n; i++) change = Math.max(change, Math.abs(w[i] - v[i]));
    v = w;
    value = next;
    if (change < 1e-12) break;
  }
  let largest = 0;
  for (let i = 1; i < n; i++) if (Math.abs(v[i]) > Math.abs(v[largest])) largest = i;
  if (v[largest] < 0) for (let i = 0; i < n; i++) v[i] = -v[i];
  return { vector: v, value };
}
