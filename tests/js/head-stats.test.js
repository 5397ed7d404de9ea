// The head table's numbers: headStatistics() against an independent numpy recomputation
// (helpers/head-stats-reference.py) on the bundled BERT and the bundled GPT-2, and
// ablationEffects() against switching the same heads off by hand.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { HEAD_STATISTICS, ablationEffects, headStatistics, loadModel } from '../../js/index.js';

const REFERENCE = fileURLToPath(new URL('./helpers/head-stats-reference.py', import.meta.url));
const TEXTS = ['The bank of the river was steep.', 'He said that she would come back tomorrow.', 'A cat sat on the mat.'];
const NAMES = { entropy: 'entropy', meanDistance: 'mean_distance', previousShare: 'previous', nextShare: 'next',
  selfShare: 'self', firstMass: 'first', clsMass: 'cls', sepMass: 'sep' };

function reference(runs) {
  const request = JSON.stringify({ runs: runs.map((r) => ({ attentions: Array.from(r.attentions), shape: r.shape, special: Array.from(r.specialTokensMask) })) });
  return JSON.parse(execFileSync('/usr/bin/python3', [REFERENCE], { input: request, maxBuffer: 1 << 28 }));
}

describe('head statistics', () => {
  for (const source of ['bundled', 'bundled-causal']) {
    it(`${source}: every statistic equals the numpy recomputation (≤ 1e-9)`, async () => {
      const model = await loadModel(source);
      try {
        const runs = [];
        for (const text of TEXTS) runs.push(await model.run(text));
        const got = headStatistics(runs);
        const want = reference(runs);
        const [L, H] = runs[0].shape;
        assert.equal(got.length, L * H);
        assert.deepEqual(Object.keys(NAMES), [...HEAD_STATISTICS]);
        for (const [name, key] of Object.entries(NAMES)) {
          got.forEach((g, lh) => assert.ok(Math.abs(g[name] - want[key][lh]) <= 1e-9, `${name} L${g.layer}H${g.head}: ${g[name]} vs ${want[key][lh]}`));
        }
        if (model.info.kind === 'decoder') {
          // Causal: nothing on the next token, nothing on special tokens GPT-2 does not add.
          for (const g of got) { assert.equal(g.nextShare, 0); assert.equal(g.sepMass, 0); }
        } else {
          assert.ok(got.some((g) => g.clsMass > 0.3 || g.sepMass > 0.3), 'some head attends to [CLS]/[SEP]');
        }
      } finally {
        model.dispose();
      }
    });

    it(`${source}: ablationEffects equals switching each head off by hand`, async () => {
      const model = await loadModel(source);
      try {
        const texts = TEXTS.slice(0, 2);
        const { baseline, heads } = await ablationEffects(model, texts, { maskEvery: 4 });
        const [L, H] = [model.config.numLayers, model.config.numHeads];
        assert.equal(heads.length, L * H);
        assert.ok(Number.isFinite(baseline) && baseline < 0);
        // By hand for one head: the mean log-probability of what the model should predict.
        const target = heads[H + 1];
        const mask = Array.from({ length: L }, (_, l) => Array.from({ length: H }, (_, h) => (l === target.layer && h === target.head ? 0 : 1)));
        let total = 0, count = 0;
        for (const text of texts) {
          const { ids, specialTokensMask } = model.tokenize(text);
          if (model.info.kind === 'decoder') {
            const r = await model.runIds(ids, { headMask: mask, nextAll: true });
            for (let p = 0; p + 1 < ids.length; p++) { total += Math.log(r.nextByPosition[p].actual.prob); count++; }
          } else {
            for (let offset = 0; offset < 4; offset++) {
              const masked = Int32Array.from(ids);
              const positions = [];
              for (let p = offset; p < ids.length; p += 4) if (!specialTokensMask[p]) { masked[p] = model.maskTokenId; positions.push(p); }
              if (!positions.length) continue;
              const r = await model.runIds(masked, { headMask: mask, originalIds: ids });
              for (const pr of r.maskPredictions) { total += Math.log(pr.actual.prob); count++; }
            }
          }
        }
        assert.ok(Math.abs(total / count - baseline - target.delta) <= 1e-9, `${target.delta} vs ${total / count - baseline}`);
        assert.ok(heads.some((h) => Math.abs(h.delta) > 1e-4), 'switching heads off changes the predictions');
      } finally {
        model.dispose();
      }
    });
  }
});
