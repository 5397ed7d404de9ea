// Frozen flow figures (view 'flow'): the information-flow graph of one prediction at one τ
// (js/analysis/flow-graph.js), kept as the shares it is drawn from — only the entries of the run's
// FlowShares that are edges of that graph, each the run's own float32 value — so <attn-scope src>
// redraws the graph, and the graph at any higher τ, with no model. A lower τ or another position
// needs shares the figure does not hold: the element then runs the model.
//   flow: {position, tau, layers, headCount, queries, keys,
//          tokens: [[layer, query, key, share]], heads: [[H shares]] (one per tokens entry),
//          residual, mlp, mlpResidual: [[layer, query, share]],
//          lens (a run with the logit lens): [[row, position, top]] for each dot of the graph}
// (the FlowShares fields of those names, js/index.d.ts; the writer leaves out bias and the per-head
// residual and bias, which the graph does not draw). lens is what a click on a dot shows: the
// logit lens's top tokens where it reads that dot's stream (row 0 the embeddings, l + 1 after
// layer l, as the view reads it).
import { AttnScopeError } from '../formats/errors.js';
import { FLOW_DEFAULT_TAU, flowGraph } from './flow-graph.js';

/** The most per-head shares (L·H·T·T) a flow figure may stand for: its reader lays them out as a
 *  run's FlowShares for flowGraph (two float32 arrays that size, 16 MB each at the limit). */
export const FLOW_FIGURE_MAX_SHARES = 2 ** 22;

const TOP_FIELDS = ['id', 'token', 'text', 'prob'];
// The lens row a dot reads: the embeddings, or the stream after its layer (the Flow view's rule).
const lensRow = (node) => (node.level === 0 ? 0 : node.layer + 1);

const tooLarge = (L, H, T) => new AttnScopeError('E_TOO_LARGE',
  `a flow figure of ${L} layers × ${H} heads × ${T}² tokens stands for ${L * H * T * T} shares, more than the ${FLOW_FIGURE_MAX_SHARES} ` +
  'a page lays out: use a shorter text');

/**
 * The `flow` block of a figure of `result` (run with { flow: true }).
 * @param {{position?: number, tau?: number}} at position: the prediction's (default the last), tau in [0, 1]
 */
export function flowFigureBlock(result, { position, tau = FLOW_DEFAULT_TAU } = {}) {
  const flow = result.flow;
  if (!flow) throw new AttnScopeError('E_INPUT', 'a flow figure needs a run with { flow: true }');
  if (flow.encoder) throw new AttnScopeError('E_INPUT', 'a flow figure holds one stack: an encoder–decoder\'s flow is drawn live only');
  const { layers: L, headCount: H, queries: T, keys: K } = flow;
  if (L * H * T * K > FLOW_FIGURE_MAX_SHARES) throw tooLarge(L, H, T);
  const graph = flowGraph(flow, { position, tau });
  const block = { position: graph.position, tau: graph.tau, layers: L, headCount: H, queries: T, keys: K,
    tokens: [], heads: [], residual: [], mlp: [], mlpResidual: [] };
  const level = (id) => Number(id.split(':')[1]);
  for (const e of graph.edges) {
    if (e.kind === 'token') {
      block.tokens.push([e.layer, e.query, e.key, e.share]);
      block.heads.push(Array.from(e.heads));
    } else if (e.kind === 'ffn') {
      // Both of the feed-forward's edges (stream → ffn → stream) carry its one share.
      if (!block.mlp.some(([l, i]) => l === e.layer && i === e.query)) block.mlp.push([e.layer, e.query, e.share]);
    } else {
      // A residual edge leaves an even level (the layer's input) into the attention's sum, an odd
      // one (after the attention) into the feed-forward's.
      (level(e.from) % 2 === 0 ? block.residual : block.mlpResidual).push([e.layer, e.query, e.share]);
    }
  }
  if (result.logitLens) {
    const seen = new Set();
    block.lens = [];
    for (const n of graph.nodes) {
      const row = lensRow(n), key = `${row}:${n.position}`;
      const top = result.logitLens[row]?.[n.position]?.top;
      if (seen.has(key) || !top) continue;
      seen.add(key);
      block.lens.push([row, n.position, top.map((e) => Object.fromEntries(TOP_FIELDS.map((k) => [k, e[k]])))]);
    }
  }
  return block;
}

/**
 * A figure's `flow` block read back, for a run of shape [L, H, T]: the RunResult's `flow`
 * (FlowShares, zero where the figure holds nothing), the state it was saved at, and whether a
 * state's graph (query, flowTau) is one the figure holds.
 */
export function flowFigureRead(doc, [L, H, T], bad) {
  const f = doc.flow;
  if (!f || typeof f !== 'object') throw bad('a flow figure needs its "flow" block');
  if (f.layers !== L || f.headCount !== H || f.queries !== T || f.keys !== T) throw bad('flow: layers, headCount, queries and keys must match shape');
  if (L * H * T * T > FLOW_FIGURE_MAX_SHARES) throw tooLarge(L, H, T);
  if (!(Number.isInteger(f.position) && f.position >= 0 && f.position < T)) throw bad(`flow position ${f.position}`);
  if (!(typeof f.tau === 'number' && f.tau >= 0 && f.tau <= 1)) throw bad(`flow tau ${f.tau}`);
  const flow = {
    layers: L, headCount: H, queries: T, keys: T,
    tokens: new Float32Array(L * T * T), heads: new Float32Array(L * H * T * T),
    residual: new Float32Array(L * T), bias: new Float32Array(L * T),
    headsResidual: new Float32Array(L * T), headsBias: new Float32Array(L * T),
    mlp: new Float32Array(L * T), mlpResidual: new Float32Array(L * T),
  };
  const share = (v) => typeof v === 'number' && v >= 0 && v <= 1;
  const place = (l, i) => Number.isInteger(l) && l >= 0 && l < L && Number.isInteger(i) && i >= 0 && i < T;
  if (!Array.isArray(f.tokens) || !Array.isArray(f.heads) || f.heads.length !== f.tokens.length) throw bad('flow tokens and heads');
  f.tokens.forEach((entry, n) => {
    const [l, i, j, s] = Array.isArray(entry) ? entry : [];
    if (!(place(l, i) && Number.isInteger(j) && j >= 0 && j < T && share(s))) throw bad(`flow tokens entry ${n}`);
    const heads = f.heads[n];
    if (!Array.isArray(heads) || heads.length !== H || !heads.every(share)) throw bad(`flow heads entry ${n}`);
    flow.tokens[(l * T + i) * T + j] = s;
    heads.forEach((v, h) => { flow.heads[((l * H + h) * T + i) * T + j] = v; });
  });
  for (const name of ['residual', 'mlp', 'mlpResidual']) {
    if (!Array.isArray(f[name])) throw bad(`flow ${name}`);
    f[name].forEach((entry, n) => {
      const [l, i, s] = Array.isArray(entry) ? entry : [];
      if (!(place(l, i) && share(s))) throw bad(`flow ${name} entry ${n}`);
      flow[name][l * T + i] = s;
    });
  }
  let logitLens;
  if (f.lens !== undefined) {
    if (!Array.isArray(f.lens)) throw bad('flow lens');
    logitLens = Array.from({ length: L + 1 }, () => new Array(T));
    f.lens.forEach((entry, n) => {
      const [row, position, top] = Array.isArray(entry) ? entry : [];
      if (!(Number.isInteger(row) && row >= 0 && row <= L && Number.isInteger(position) && position >= 0 && position < T &&
        Array.isArray(top) && top.every((e) => e && Number.isInteger(e.id) && typeof e.token === 'string' &&
          typeof e.text === 'string' && share(e.prob)))) throw bad(`flow lens entry ${n}`);
      logitLens[row][position] = { top: top.map((e) => Object.fromEntries(TOP_FIELDS.map((k) => [k, e[k]]))) };
    });
  }
  return {
    fields: { flow, ...(logitLens ? { logitLens } : {}) },
    state: { query: f.position, flowTau: f.tau },
    // Raising τ only drops edges (and what only they reached): the figure holds every graph above its own.
    covers: (state) => state.query === f.position && state.flowTau >= f.tau,
  };
}
