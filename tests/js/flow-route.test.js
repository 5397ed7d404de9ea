// The route the Flow view names (web/src/math/flow-route.js): the strongest route that moves between
// positions, on flow-graph.test.js's hand-made flow, whose largest-share route stays on the residual
// at the prediction's position until its last step; null when nothing moves.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { flowGraph } from '../../js/analysis/flow-graph.js';
import { tokenRoute } from '../../web/src/math/flow-route.js';

const f32 = (a) => Float32Array.from(a);
// L = 2, T = K = 3, H = 2 (as tests/js/flow-graph.test.js).
const FLOW = {
  layers: 2, headCount: 2, queries: 3, keys: 3,
  tokens: f32([1, 0, 0, 0.3, 0.5, 0, 0.02, 0.6, 0.1, 1, 0, 0, 0.5, 0.3, 0, 0.01, 0.03, 0.2]),
  residual: f32([0, 0.2, 0.28, 0, 0.2, 0.76]),
  bias: f32([0, 0, 0, 0, 0, 0]),
  heads: f32(Array.from({ length: 36 }, (_, n) => n / 100)),
  headsResidual: f32([0, 0, 0, 0, 0, 0]),
  headsBias: f32([0, 0, 0, 0, 0, 0]),
  mlp: f32([0.5, 0.5, 0.5, 0.5, 0.5, 0.03]),
  mlpResidual: f32([0.5, 0.5, 0.5, 0.5, 0.5, 0.97]),
};

test('the strongest route through another token: up from key 1 by layer 0\'s attention, then the residual', () => {
  const route = tokenRoute(flowGraph(FLOW));
  // Worked by hand: 0.97 (L1 ffn residual) · 0.76 (L1 attention residual) · 0.5 (L0 ffn residual,
  // above the MLP's 0.5 · 0.5) · 0.6 (key 1 at L0); key 2 at either layer is position 2 itself.
  assert.deepEqual(route.edges.map((e) => [e.kind, e.from, e.to]), [
    ['token', 'resid:0:1', 'resid:1:2'],
    ['residual', 'resid:1:2', 'resid:2:2'],
    ['residual', 'resid:2:2', 'resid:3:2'],
    ['residual', 'resid:3:2', 'resid:4:2'],
  ]);
  assert.ok(Math.abs(route.strength - 0.97 * 0.76 * 0.5 * 0.6) < 1e-6);
});

test('no route when every kept edge stays at its position', () => {
  assert.equal(tokenRoute(flowGraph(FLOW, { position: 0 })), null);
  assert.equal(tokenRoute(flowGraph(FLOW, { tau: 0.99 })), null);
});
