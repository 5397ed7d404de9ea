// The page's pure modules in Node, against hand-worked or independently computed answers: URL
// state parsing/validation (untrusted input), the special-token restriction with renormalised
// rows, rollout on a 2-token case worked by hand, the formula steps, diff alignment, and that
// every UI string exists in both languages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultState, isHubId, stateFromUrl, stateToUrl, clampToResult } from '../../web/src/state/state.js';
import { alignPositions, diffMatrix, formulaSteps, restrict, rolloutFromMeans, visiblePositions } from '../../web/src/math/attention-math.js';
import { missingKeys } from '../../web/src/i18n/i18n.js';
import { FLOW_STRINGS } from '../../web/src/i18n/i18n-flow.js';

test('URL state: round trip, validation and fallbacks', () => {
  const s = { ...defaultState(), text: 'a & b = c?', pair: 'x', pairOn: true, model: 'bert-base-uncased', view: 'formula',
    layer: 3, head: 7, query: 5, selected: [2, 4], hideSpecial: true, threshold: 0.25, lang: 'ko',
    positionsA: 'Is the #1 cat here?', positionsB: '' };
  assert.deepEqual(stateFromUrl(stateToUrl(s)), s);
  assert.equal(stateFromUrl('?pa=' + 'y'.repeat(900)).positionsA.length, 500);
  assert.equal(stateToUrl(defaultState()), '');
  const bad = stateFromUrl('?view=%3Cscript%3E&layer=-1&head=1e3&q=0x10&th=2&lang=fr&model=..%2F..%2Fetc&sel=1,,2&hs=yes');
  const d = defaultState();
  for (const key of ['view', 'layer', 'head', 'query', 'threshold', 'lang', 'model', 'selected', 'hideSpecial']) {
    assert.deepEqual(bad[key], d[key], key);
  }
  assert.equal(stateFromUrl('?text=' + 'x'.repeat(30000)).text.length, 20000);
  // The Flow view's τ: a fraction in [0, 1], else the default; ?view=flow opens at the last position.
  assert.equal(stateFromUrl('?tau=0.125').flowTau, 0.125);
  for (const tau of ['2', '-0.1', '0.1e1', 'x', '0.12345']) assert.equal(stateFromUrl(`?tau=${tau}`).flowTau, d.flowTau, tau);
  const flow = stateFromUrl('?view=flow');
  clampToResult(flow, 2, 4, 10);
  assert.equal(flow.query, 9);
  assert.ok(isHubId('sentence-transformers/all-MiniLM-L6-v2'));
  assert.ok(isHubId('bert-base-uncased'));
  for (const id of ['', '../x', 'a/b/c', 'https://evil.com/x', 'a b', 'owner/..', '<img>']) assert.ok(!isHubId(id), id);
  const c = { ...defaultState(), layer: 9, head: 9, query: 40, selected: [1, 30] };
  clampToResult(c, 2, 4, 10);
  assert.deepEqual([c.layer, c.head, c.query, c.selected], [1, 3, 9, [1]]);
});

test('hiding special tokens restricts and renormalises rows', () => {
  const result = { tokens: ['[CLS]', 'a', 'b', '[SEP]'], specialTokensMask: Uint8Array.from([1, 0, 0, 1]) };
  const pos = visiblePositions(result, true);
  assert.deepEqual(pos, [1, 2]);
  const A = Float32Array.from([
    0.25, 0.25, 0.25, 0.25,
    0.5, 0.1, 0.3, 0.1,
    0.2, 0.2, 0.2, 0.4,
    1, 0, 0, 0]);
  const r = restrict(A, 4, pos, true);
  // Row "a": kept 0.1, 0.3 → 0.25, 0.75. Row "b": kept 0.2, 0.2 → 0.5, 0.5.
  assert.deepEqual(Array.from(r, (v) => +v.toFixed(6)), [0.25, 0.75, 0.5, 0.5]);
  assert.deepEqual(visiblePositions({ tokens: ['[CLS]', '[SEP]'], specialTokensMask: Uint8Array.from([1, 1]) }, true), [0, 1]);
});

test('rollout on two tokens, worked by hand', () => {
  // Layer means A0 = [[1,0],[0.5,0.5]], A1 = [[0,1],[0,1]].
  // Ã0 = 0.5·A0 + 0.5·I = [[1,0],[0.25,0.75]]; Ã1 = [[0.5,0.5],[0,1]].
  // R = Ã1·Ã0 = [[0.5·1+0.5·0.25, 0.5·0+0.5·0.75],[0.25,0.75]] = [[0.625,0.375],[0.25,0.75]].
  const R = rolloutFromMeans([Float32Array.from([1, 0, 0.5, 0.5]), Float32Array.from([0, 1, 0, 1])], 2);
  assert.deepEqual(Array.from(R), [0.625, 0.375, 0.25, 0.75]);
});

test('formula steps: scores, ÷√d_k, softmax with a masked key, Σ α v', () => {
  // One layer, one head, T = 3, d_k = 4. q0 = (1,0,0,0); k = (2,0,0,0), (0,0,0,0), (4,0,0,0).
  const q = new Float32Array(12), k = new Float32Array(12), v = new Float32Array(12);
  q[0] = 1; k[0] = 2; k[8] = 4;
  v.set([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0]);
  const result = { shape: [1, 1, 3, 3], q, k, v };
  const f = formulaSteps(result, 0, 0, 0, null);
  assert.deepEqual(Array.from(f.scores), [2, 0, 4]);
  assert.deepEqual(Array.from(f.scaled), [1, 0, 2]);   // ÷ √4
  const z = Math.E + 1 + Math.E ** 2;
  assert.deepEqual(Array.from(f.softmax, (x) => +x.toFixed(12)), [Math.E / z, 1 / z, Math.E ** 2 / z].map((x) => +x.toFixed(12)));
  assert.deepEqual(Array.from(f.output).slice(0, 3).map((x) => +x.toFixed(12)), Array.from(f.softmax, (x) => +x.toFixed(12)));
  const masked = formulaSteps(result, 0, 0, 0, [1, 1, 0]);
  assert.equal(masked.softmax[2], 0);
  assert.ok(Math.abs(masked.softmax[0] - Math.E / (Math.E + 1)) < 1e-12);
});

test('diff alignment after dropping a token', () => {
  const map = alignPositions(4, { kind: 'drop', positions: [1] });
  assert.deepEqual(Array.from(map), [0, -1, 1, 2]);
  const orig = new Float32Array(16).fill(0.25);
  const edited = Float32Array.from([0.5, 0.25, 0.25, 0.25, 0.5, 0.25, 0.25, 0.25, 0.5]);
  const d = diffMatrix(orig, edited, 4, map, 3);
  assert.equal(d[0], 0.25);
  assert.ok(Number.isNaN(d[1]) && Number.isNaN(d[4]));
  assert.equal(d[2 * 4 + 3], 0);
});

test('every UI string exists in English and Korean', () => {
  assert.deepEqual(missingKeys(), []);
  // A view's module may bring its own strings (i18n.js addStrings): the same keys in both languages.
  assert.deepEqual(Object.keys(FLOW_STRINGS.ko).sort(), Object.keys(FLOW_STRINGS.en).sort());
});
