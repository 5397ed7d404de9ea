// The information-flow graph (Ferrando & Voita 2024; the LLM Transparency Tool's): the routes by
// which the tokens reached one position's prediction, from a run's flow shares (r.flow,
// js/index.d.ts FlowShares). Nodes are the residual stream of a position at a level: level 0 the
// embeddings (layer 0's input), level 2l + 1 after layer l's attention, 2l + 2 after its
// feed-forward; and each layer's feed-forward at a position, a node of its own ('ffn'), as the
// tool draws it. Edges carry the shares of the update they enter:
//   'token'     (2l, j) → (2l + 1, i): key j's share of query i's attention update (heads: each
//               head's share of that edge in the per-head sum)
//   'residual'  (2l, i) → (2l + 1, i) and (2l + 1, i) → (2l + 2, i): the residual's share
//   'ffn'       (2l + 1, i) → ffn node → (2l + 2, i): the MLP's share (the feed-forward reads
//               only that stream, so both edges carry it)
// Starting from the top node of `position`, the graph keeps every edge whose share is at least
// tau and the nodes they come from, down to the embeddings (edges below tau are dropped with
// everything only they reached).
import { AttnScopeError } from '../formats/errors.js';
import { FLOW_DEFAULT_TAU } from './flow-tau.js';

export { FLOW_DEFAULT_TAU };

const nodeId = (kind, level, position) => `${kind}:${level}:${position}`;

/**
 * @param {object} flow r.flow (one stack: a decoder-only model's, or an encoder–decoder's
 *   flow.encoder; the decoder's cross-attention edges leave the stack and are not followed here)
 * @param {{position?: number, tau?: number}} options position: the prediction's (default: the
 *   last); tau in [0, 1]
 * @returns {{levels: number, position: number, tau: number, nodes: object[], edges: object[]}}
 *   nodes {id ('resid:level:position', 'ffn:level:position'), kind: 'resid'|'ffn', level, layer,
 *   position}; edges {from, to, kind, layer, share,
 *   key?, query, heads?: Float32Array (H)}
 */
export function flowGraph(flow, { position, tau = FLOW_DEFAULT_TAU } = {}) {
  if (!flow || !(flow.tokens instanceof Float32Array)) throw new AttnScopeError('E_INPUT', 'flowGraph needs a run\'s flow (run with { flow: true })');
  const { layers: L, headCount: H, queries: T, keys: K } = flow;
  const pos = position ?? T - 1;
  if (!Number.isInteger(pos) || pos < 0 || pos >= T) throw new AttnScopeError('E_INPUT', `flow position ${position} out of range [0, ${T})`);
  if (typeof tau !== 'number' || !(tau >= 0 && tau <= 1)) throw new AttnScopeError('E_INPUT', `tau must be a number in [0, 1], got ${tau}`);
  const nodes = new Map();
  const edges = [];
  const kept = (share) => share >= tau && share > 0;  // a zero share (an unseen key) is no route
  // A resid node at level v belongs to layer ⌈v / 2⌉ − 1 (−1: the embeddings); layer l's ffn node
  // sits at level 2l + 1, the stream it reads.
  const add = (kind, level, position) => {
    const id = nodeId(kind, level, position);
    if (!nodes.has(id)) nodes.set(id, { id, kind, level, layer: kind === 'ffn' ? (level - 1) / 2 : Math.ceil(level / 2) - 1, position });
    return id;
  };
  // Walk down level by level: the positions reached at the level above decide what is read below.
  let reached = new Set([pos]);
  add('resid', 2 * L, pos);
  for (let l = L - 1; l >= 0; l--) {
    const mid = new Set();
    for (const i of reached) {
      const top = nodeId('resid', 2 * l + 2, i);
      const row = l * T + i;
      if (kept(flow.mlp[row])) {
        const ffn = add('ffn', 2 * l + 1, i);
        edges.push({ from: ffn, to: top, kind: 'ffn', layer: l, query: i, share: flow.mlp[row] });
        edges.push({ from: add('resid', 2 * l + 1, i), to: ffn, kind: 'ffn', layer: l, query: i, share: flow.mlp[row] });
        mid.add(i);
      }
      if (kept(flow.mlpResidual[row])) {
        edges.push({ from: add('resid', 2 * l + 1, i), to: top, kind: 'residual', layer: l, query: i, share: flow.mlpResidual[row] });
        mid.add(i);
      }
    }
    const below = new Set();
    for (const i of mid) {
      const to = nodeId('resid', 2 * l + 1, i);
      const row = l * T + i;
      if (kept(flow.residual[row])) {
        edges.push({ from: add('resid', 2 * l, i), to, kind: 'residual', layer: l, query: i, share: flow.residual[row] });
        below.add(i);
      }
      for (let j = 0; j < K; j++) {
        const share = flow.tokens[row * K + j];
        if (!kept(share)) continue;
        const heads = new Float32Array(H);
        for (let h = 0; h < H; h++) heads[h] = flow.heads[((l * H + h) * T + i) * K + j];
        edges.push({ from: add('resid', 2 * l, j), to, kind: 'token', layer: l, query: i, key: j, share, heads });
        below.add(j);
      }
    }
    reached = below;
  }
  return { levels: 2 * L + 1, position: pos, tau, nodes: [...nodes.values()], edges };
}

/**
 * The graph's strongest route from the prediction down to an embedding: at each node the incoming
 * edge with the largest share. Steps from the top: {kind, layer, from, to, share, key?}.
 */
export function topFlowRoute(graph) {
  const incoming = new Map();
  for (const e of graph.edges) {
    const best = incoming.get(e.to);
    if (!best || e.share > best.share) incoming.set(e.to, e);
  }
  const route = [];
  let at = nodeId('resid', graph.levels - 1, graph.position);
  for (let step = incoming.get(at); step; step = incoming.get(at)) {
    route.push(step);
    at = step.from;
  }
  return route;
}
