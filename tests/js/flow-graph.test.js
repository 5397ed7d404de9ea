// The information-flow graph (js/analysis/flow-graph.js) on a hand-made two-layer, three-token flow whose
// routes are worked out by hand: which edges survive tau, what they reach, the heads' shares of an
// edge, the top route; bad input is E_INPUT.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { FLOW_DEFAULT_TAU, flowGraph, topFlowRoute } from '../../js/analysis/flow-graph.js';

// L = 2, T = K = 3, H = 2; causal shares (row i sees keys 0..i).
const f32 = (a) => Float32Array.from(a);
const FLOW = {
  layers: 2, headCount: 2, queries: 3, keys: 3,
  tokens: f32([
    1, 0, 0, /**/ 0.3, 0.5, 0, /**/ 0.02, 0.6, 0.1,   // layer 0
    1, 0, 0, /**/ 0.5, 0.3, 0, /**/ 0.01, 0.03, 0.2, // layer 1
  ]),
  residual: f32([0, 0.2, 0.28, 0, 0.2, 0.76]),
  bias: f32([0, 0, 0, 0, 0, 0]),
  heads: f32(Array.from({ length: 2 * 2 * 3 * 3 }, (_, n) => n / 100)),
  headsResidual: f32([0, 0, 0, 0, 0, 0]),
  headsBias: f32([0, 0, 0, 0, 0, 0]),
  mlp: f32([0.5, 0.5, 0.5, 0.5, 0.5, 0.03]),
  mlpResidual: f32([0.5, 0.5, 0.5, 0.5, 0.5, 0.97]),
};

const key = (e) => `${e.kind}:${e.from}->${e.to}`;

test('flowGraph keeps the edges at or above tau that reach the prediction, down to the embeddings', () => {
  const g = flowGraph(FLOW, { tau: 0.04 });
  assert.equal(g.position, 2);
  assert.equal(g.levels, 5);
  // Layer 1 at position 2: the MLP (0.03) is dropped, the residual kept; its attention keeps the
  // residual (0.76) and key 2 (0.2); keys 0 (0.01) and 1 (0.03) are below tau.
  // Layer 0 then only at position 2: MLP and residual (0.5 each); attention: residual 0.28,
  // key 1 (0.6) and key 2 (0.1), not key 0 (0.02).
  assert.deepEqual(g.edges.map(key).sort(), [
    'residual:resid:3:2->resid:4:2',
    'residual:resid:2:2->resid:3:2',
    'token:resid:2:2->resid:3:2',
    'ffn:ffn:1:2->resid:2:2',
    'ffn:resid:1:2->ffn:1:2',
    'residual:resid:1:2->resid:2:2',
    'residual:resid:0:2->resid:1:2',
    'token:resid:0:1->resid:1:2',
    'token:resid:0:2->resid:1:2',
  ].sort());
  assert.deepEqual(g.nodes.filter((n) => n.kind === 'resid' && n.level === 0).map((n) => n.position).sort(), [1, 2]);
  // An edge's heads: heads[l][h][i][j] for each head.
  const edge = g.edges.find((e) => e.kind === 'token' && e.layer === 0 && e.key === 1);
  assert.deepEqual([...edge.heads], [f32([(0 * 9 + 2 * 3 + 1) / 100])[0], f32([(1 * 9 + 2 * 3 + 1) / 100])[0]]);
  assert.equal(FLOW_DEFAULT_TAU, 0.04);
});

test('a lower tau reaches more; another position starts elsewhere', () => {
  const low = flowGraph(FLOW, { tau: 0.005 });
  assert.ok(low.edges.some((e) => e.kind === 'token' && e.layer === 1 && e.key === 0));
  const first = flowGraph(FLOW, { position: 0 });
  // Position 0 sees only itself: every kept edge stays at position 0.
  assert.ok(first.nodes.every((n) => n.position === 0));
});

test('topFlowRoute follows the largest share at each node', () => {
  const route = topFlowRoute(flowGraph(FLOW));
  assert.deepEqual(route.map((e) => [e.kind, e.share]), [
    ['residual', f32([0.97])[0]], ['residual', f32([0.76])[0]], ['ffn', 0.5], ['ffn', 0.5], ['token', f32([0.6])[0]],
  ].map(([k, s]) => [k, s]));
  assert.equal(route.at(-1).from, 'resid:0:1');
});

test('bad input is E_INPUT', () => {
  for (const [flow, options, message] of [[undefined, {}, /run with \{ flow: true \}/], [FLOW, { position: 3 }, /out of range/],
    [FLOW, { tau: 2 }, /tau must be/]])
    assert.throws(() => flowGraph(flow, options), (e) => e.code === 'E_INPUT' && message.test(e.message));
});
