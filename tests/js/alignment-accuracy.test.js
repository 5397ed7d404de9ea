// js/analysis/alignment-accuracy.js against cases worked by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { alignmentAccuracy, findHeldout, parseHeldout } from '../../js/analysis/alignment-accuracy.js';

// L=1, H=2, T=3 decoder rows, S=3 source tokens. Alignment [2, 0, null]: rows 0 and 1 are scored.
//   head 0 rows: [.1 .2 .7] → 2 ✓   [.6 .3 .1] → 0 ✓   (row 2 unscored)
//   head 1 rows: [.5 .4 .1] → 0 ✗   [.2 .2 .6] → 2 ✗
//   layer mean: row 0 [.3 .3 .4] → 2 ✓, row 1 [.4 .25 .35] → 0 ✓
//   diagonal: token 0 ↔ source 0 ≠ 2 ✗, token 1 ↔ source 1 ≠ 0 ✗ → 0
const cross = Float32Array.from([
  0.1, 0.2, 0.7, 0.6, 0.3, 0.1, 1, 0, 0,
  0.5, 0.4, 0.1, 0.2, 0.2, 0.6, 0, 0, 1,
]);

test('per head, layer mean, all mean and diagonal, by hand', () => {
  const r = alignmentAccuracy(cross, [1, 2, 3, 3], [2, 0, null]);
  assert.equal(r.aligned, 2);
  assert.deepEqual(Array.from(r.heads), [1, 0]);
  assert.deepEqual(Array.from(r.layerMean), [1]);
  assert.equal(r.allMean, 1);
  assert.equal(r.diagonal, 0);
});

test('the diagonal clamps to the last source token; ties go to the first maximum', () => {
  // L=2, H=1, T=3, S=2; alignment [0, 1, 1]: diagonal min(i,1) = 0,1,1 → 3/3.
  // layer 0: [.5 .5] → 0 ✓ (tie), [.5 .5] → 0 ✗, [0 1] → 1 ✓  → 2/3
  // layer 1: [1 0] ✓, [0 1] ✓, [1 0] ✗ → 2/3;  all mean: [.75 .25] ✓, [.25 .75] ✓, [.5 .5] → 0 ✗ → 2/3
  const c = Float32Array.from([0.5, 0.5, 0.5, 0.5, 0, 1, 1, 0, 0, 1, 1, 0]);
  const r = alignmentAccuracy(c, [2, 1, 3, 2], [0, 1, 1]);
  assert.equal(r.diagonal, 1);
  assert.deepEqual(Array.from(r.heads, (x) => x * 3), [2, 2]);
  assert.deepEqual(Array.from(r.layerMean, (x) => x * 3), [2, 2]);
  assert.equal(r.allMean * 3, 2);
});

test('an alignment that does not fit the run gives null', () => {
  assert.equal(alignmentAccuracy(cross, [1, 2, 3, 3], [0, 0, 0, 0]), null);   // 4 tokens, 3 rows
  assert.equal(alignmentAccuracy(cross, [1, 2, 3, 3], [3]), null);            // source index 3 of 3
});

test('heldout.jsonl: good lines kept, bad ones skipped; a pair found by its texts', () => {
  const pairs = parseHeldout([
    '{"source": "a b", "target": "b a", "alignment": [1, 0, 2]}',
    'not json',
    '{"source": "x", "target": "y", "alignment": [0.5]}',
    '',
    '{"source": "c", "target": "c", "alignment": [null, 0]}',
  ].join('\n'));
  assert.equal(pairs.length, 2);
  assert.deepEqual(findHeldout(pairs, ' a b ', 'b a').alignment, [1, 0, 2]);
  assert.equal(findHeldout(pairs, 'a b', 'a b'), null);
  assert.equal(findHeldout(pairs, 'c').target, 'c');
});
