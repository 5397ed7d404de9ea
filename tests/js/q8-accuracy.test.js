// weightPrecision 'q8' against 'f32' on the two bundled trained models (model/: the BERT-style
// masked LM; model-causal/: the GPT-2-style decoder), on Brown sentences they never trained on
// (tests/js/helpers/brown-held-out.js): the masked-LM top-1 and the next-token top-1 must agree
// with f32's at ≥ 97% of the positions (the bar int8 weights were accepted at), and the attention maps stay close.
// The figures are printed (README's accuracy table is from this run).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';

import { loadModel } from '../../js/index.js';
import { heldOutSentences } from './helpers/brown-held-out.js';

const MIN_AGREEMENT = 0.97;
const SENTENCES = 120;
const dir = (name) => fileURLToPath(new URL(`../../${name}/`, import.meta.url));

// max and mean |Δ| over every attention probability of every run.
function attentionDiff() {
  let max = 0, sum = 0, n = 0;
  return {
    add(a, b) {
      assert.equal(a.length, b.length);
      for (let i = 0; i < a.length; i++) {
        const d = Math.abs(a[i] - b[i]);
        if (d > max) max = d;
        sum += d;
      }
      n += a.length;
    },
    get max() { return max; },
    get mean() { return sum / n; },
  };
}

describe('q8 vs f32 on the bundled models (held-out Brown sentences)', () => {
  const sentences = heldOutSentences(SENTENCES);
  const models = {};
  before(async () => {
    for (const name of ['model', 'model-causal']) {
      models[name] = {
        f32: await loadModel(dir(name), { weightPrecision: 'f32', threads: 1 }),
        q8: await loadModel(dir(name), { weightPrecision: 'q8', threads: 1 }),
      };
    }
  });
  after(() => { for (const m of Object.values(models)) { m.f32.dispose(); m.q8.dispose(); } });

  it('loads q8 and reports it, in less memory than f32', () => {
    for (const m of Object.values(models)) {
      assert.equal(m.q8.info.weightPrecision, 'q8');
      assert.ok(m.q8.info.memoryBytes < m.f32.info.memoryBytes,
        `q8 ${m.q8.info.memoryBytes} B vs f32 ${m.f32.info.memoryBytes} B`);
    }
  });

  it(`masked-LM top-1 agrees with f32 at ≥ ${MIN_AGREEMENT * 100}% of masked words`, async () => {
    assert.equal(sentences.length, SENTENCES);
    const { f32, q8 } = models.model;
    const mask = f32.maskTokenId;
    assert.ok(mask >= 0);
    const diff = attentionDiff();
    let agree = 0, total = 0;
    for (const text of sentences) {
      const { ids, specialTokensMask } = f32.tokenize(text, { maxLength: 64 });
      // Every 4th ordinary token masked, one run per masked token (what the page does).
      for (let p = 1; p < ids.length; p += 4) {
        if (specialTokensMask[p]) continue;
        const masked = Int32Array.from(ids);
        masked[p] = mask;
        const [a, b] = [await f32.runIds(masked, { topK: 1 }), await q8.runIds(masked, { topK: 1 })];
        diff.add(a.attentions, b.attentions);
        agree += Number(a.maskPredictions[0].top[0].id === b.maskPredictions[0].top[0].id);
        total++;
      }
    }
    const rate = agree / total;
    console.log(`model/ (MLM): q8 top-1 = f32 top-1 at ${agree}/${total} = ${(100 * rate).toFixed(1)}%; ` +
      `|Δ attention| max ${diff.max.toFixed(4)}, mean ${diff.mean.toExponential(2)}`);
    assert.ok(total >= 300, `only ${total} masked positions`);
    assert.ok(rate >= MIN_AGREEMENT, `agreement ${rate}`);
  });

  it(`next-token top-1 agrees with f32 at ≥ ${MIN_AGREEMENT * 100}% of positions`, async () => {
    const { f32, q8 } = models['model-causal'];
    const diff = attentionDiff();
    let agree = 0, total = 0;
    for (const text of sentences) {
      const [a, b] = [await f32.run(text, { topK: 1, nextAll: true }), await q8.run(text, { topK: 1, nextAll: true })];
      diff.add(a.attentions, b.attentions);
      a.nextByPosition.forEach((entry, i) => {
        agree += Number(entry.top[0].id === b.nextByPosition[i].top[0].id);
        total++;
      });
    }
    const rate = agree / total;
    console.log(`model-causal/ (next token): q8 top-1 = f32 top-1 at ${agree}/${total} = ${(100 * rate).toFixed(1)}%; ` +
      `|Δ attention| max ${diff.max.toFixed(4)}, mean ${diff.mean.toExponential(2)}`);
    assert.ok(total >= 1000, `only ${total} positions`);
    assert.ok(rate >= MIN_AGREEMENT, `agreement ${rate}`);
  });
});
