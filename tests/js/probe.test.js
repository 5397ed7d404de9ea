// Probing a head beyond one sentence: the query/key map's principal axes and the POS summary,
// each against an independent numpy recomputation (helpers/probe-reference.py), on the corpus
// sample the page ships (web/data/corpus-sample.json: held-out Brown sentences with POS classes).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { loadModel } from '../../js/index.js';
import { queryKeyMap } from '../../js/analysis/qk-map.js';
import { posAttention } from '../../js/analysis/pos-summary.js';

const REFERENCE = fileURLToPath(new URL('./helpers/probe-reference.py', import.meta.url));
const SAMPLE = JSON.parse(readFileSync(new URL('../../web/data/corpus-sample.json', import.meta.url), 'utf8'));
const reference = (request) => JSON.parse(execFileSync('/usr/bin/python3', [REFERENCE], { input: JSON.stringify(request), maxBuffer: 1 << 28 }));

describe('corpus sample', () => {
  it('has a few hundred sentences whose word spans and classes are usable', () => {
    assert.ok(SAMPLE.sentences.length >= 200);
    for (const [text, words] of SAMPLE.sentences) {
      for (const [s, e, c] of words) {
        assert.ok(s >= 0 && e <= text.length && s < e, text);
        assert.ok(c >= 0 && c < SAMPLE.classes.length);
        assert.notEqual(text.slice(s, e).trim(), '');
      }
    }
  });
});

describe('probing', () => {
  for (const source of ['bundled', 'bundled-causal']) {
    it(`${source}: query/key map axes and POS summary equal numpy's`, async () => {
      const model = await loadModel(source);
      try {
        const sentences = SAMPLE.sentences.slice(0, 12);
        const runs = [];
        for (const [text] of sentences) runs.push(await model.run(text, { qkv: true }));
        const [L, H] = runs[0].shape;
        const layer = L - 1, head = 1;
        const map = queryKeyMap(runs, layer, head);
        const dh = model.config.headDim;
        const vectors = [];
        for (const r of runs) {
          const T = r.shape[2];
          for (const data of [r.q, r.k]) for (let t = 0; t < T; t++) vectors.push(Array.from(data.subarray(((layer * H + head) * T + t) * dh, ((layer * H + head) * T + t + 1) * dh)));
        }
        assert.equal(map.points.length, 2 * vectors.length);
        const want = reference({ kind: 'pca', vectors });
        for (let c = 0; c < 2; c++) {
          let dot = 0;
          for (let d = 0; d < dh; d++) dot += map.components[c * dh + d] * want.components[c][d];
          assert.ok(dot > 0.9999, `axis ${c}: cos ${dot}`);
          assert.ok(Math.abs(map.variance[c] - want.variance[c]) < 1e-6);
        }
        // The POS summary
        const tagged = runs.map((result, i) => ({ result, words: sentences[i][1] }));
        const got = posAttention(tagged, SAMPLE.classes.length);
        const classesOf = (r, words) => Array.from({ length: r.shape[2] }, (_, t) => {
          if (r.specialTokensMask[t] || r.offsets[2 * t + 1] <= r.offsets[2 * t]) return -1;
          const w = words.find(([s, e]) => r.offsets[2 * t] >= s && r.offsets[2 * t] < e);
          return w ? w[2] : -1;
        });
        const ref = reference({ kind: 'pos', n: SAMPLE.classes.length, runs: tagged.map(({ result, words }) => ({
          attentions: Array.from(result.attentions), shape: result.shape, classes: classesOf(result, words) })) });
        assert.deepEqual(Array.from(got.queries), ref.queries);
        let max = 0;
        got.mass.forEach((m, i) => { max = Math.max(max, Math.abs(m - ref.mass[i])); });
        assert.ok(max <= 1e-9, `POS summary differs by ${max}`);
        assert.ok(got.queries.filter((q) => q > 0).length >= 8, 'most classes occur');
      } finally {
        model.dispose();
      }
    });
  }
});
