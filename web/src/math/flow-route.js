// The route of the flow graph worth naming in words. topFlowRoute (js/analysis/flow-graph.js) follows the
// largest share at each node, and on a trained model that is the residual stream nearly all the
// way down (residual shares 0.7–0.99): it says "the position kept what it had", never which
// other token fed the prediction. This picks the strongest route that moves between positions
// at least once: of the routes from the prediction down to an embedding that take a token edge
// from another position, the one whose shares multiply to the most (the share of the prediction's
// input that came along it if every step passed on its share).

const height = (node) => node.level + (node.kind === 'ffn' ? 0.5 : 0);   // an ffn node sits between its two streams
const moves = (edge) => edge.kind === 'token' && edge.key !== edge.query;

/**
 * @param graph flowGraph()'s result
 * @returns {{edges: object[], strength: number} | null} edges from the embedding up to the
 *   prediction; null when every kept route stays at its position
 */
export function tokenRoute(graph) {
  const incoming = new Map();
  for (const e of graph.edges) {
    if (!incoming.has(e.to)) incoming.set(e.to, []);
    incoming.get(e.to).push(e);
  }
  // best[id][moved]: the largest product of shares from the prediction down to node id, moved
  // (1) or not (0) yet; via: the edge it came down last.
  const best = new Map();
  const top = graph.nodes.find((n) => n.kind === 'resid' && n.level === graph.levels - 1 && n.position === graph.position);
  if (!top) return null;
  best.set(top.id, [{ strength: 1, via: null, from: null }, null]);
  const order = [...graph.nodes].sort((a, b) => height(b) - height(a));
  for (const node of order) {
    const here = best.get(node.id);
    if (!here) continue;
    for (const e of incoming.get(node.id) ?? []) {
      for (const moved of [0, 1]) {
        const at = here[moved];
        if (!at) continue;
        const next = moved || moves(e) ? 1 : 0;
        const strength = at.strength * e.share;
        const below = best.get(e.from) ?? [null, null];
        if (!below[next] || strength > below[next].strength) below[next] = { strength, via: e, from: node.id, moved };
        best.set(e.from, below);
      }
    }
  }
  let end = null;
  for (const n of graph.nodes) {
    const b = n.level === 0 ? best.get(n.id)?.[1] : null;
    if (b && (!end || b.strength > end.b.strength)) end = { id: n.id, b };
  }
  if (!end) return null;
  // Back up from the embedding to the prediction, through each step's own state.
  const edges = [];
  for (let b = end.b; b?.via; b = best.get(b.from)[b.moved]) edges.push(b.via);
  return { edges, strength: end.b.strength };
}
