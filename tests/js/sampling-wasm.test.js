// The next-token choice in wasm (engine/sampling.h, through nextTokenOf and the models'
// nextToken) against js/analysis/sampling.js's sampleToken and js/analysis/mlm.js's softmax, the reference: on
// random rows (with ties, −inf entries, vocabularies from 1 to GPT-2's 50,257) the same seeded
// stream gives the same ids for greedy, temperature, top-k and top-p; the reported probabilities
// agree within 1e-6 relative (the wasm sum of exponentials is float32 SIMD added in double). Then
// whole sampled generations, decoder and encoder–decoder, equal a JavaScript loop drawing with
// sampleToken from each prefix's full-run logits.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { loadModel } from '../../js/index.js';
import { getWasmModule } from '../../js/api/wasm.js';
import { bestIds, probabilityOf } from '../../js/analysis/mlm.js';
import { sampleToken, seededRandom } from '../../js/analysis/sampling.js';
import { readFixture } from './helpers/fixture-folder.js';

// A row of n logits from `seed`: spread like a language model's (normal, σ 3), every third
// row rounded to quarters so that ties are common, a few −inf entries in some.
function randomRow(n, seed) {
  const random = seededRandom(seed);
  const row = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const normal = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    row[i] = seed % 3 === 0 ? Math.round(normal * 12) / 4 : normal * 3;
  }
  if (seed % 4 === 1 && n > 2) for (let i = 0; i < n; i += 7) row[i] = -Infinity;
  return row;
}

const relative = (got, want) => (want === 0 ? Math.abs(got) : Math.abs(got - want) / want);  // a −inf logit: exactly 0

describe('the wasm sampler against js/analysis/sampling.js', () => {
  let wasm;
  before(async () => { wasm = await getWasmModule(); });

  const settings = [
    { temperature: 0, topK: 0, topP: 1 },
    { temperature: 1, topK: 0, topP: 1 },
    { temperature: 0.7, topK: 50, topP: 1 },
    { temperature: 1.5, topK: 5, topP: 1 },
    { temperature: 1, topK: 1, topP: 1 },
    { temperature: 1, topK: 0, topP: 0.9 },
    { temperature: 0.8, topK: 40, topP: 0.5 },
    { temperature: 1, topK: 100000, topP: 0.3 },
  ];

  it('same ids from the same seeded stream, and the same softmax', (t) => {
    let draws = 0, worst = 0;
    for (const [n, seeds, steps] of [[1, 2, 3], [3, 3, 20], [17, 3, 20], [1000, 4, 20], [50257, 1, 3]]) {
      for (let seed = 1; seed <= seeds; seed++) {
        const logits = randomRow(n, seed * 31 + n);
        for (const s of settings) {
          const ours = seededRandom(seed), theirs = seededRandom(seed);
          for (let step = 0; step < steps; step++) {
            const pick = wasm.nextTokenOf(logits, { ...s, candidates: 5, u: s.temperature > 0 ? ours() : 0 });
            const want = sampleToken(logits, s, theirs);
            assert.equal(pick.id, want, `n ${n}, seed ${seed}, ${JSON.stringify(s)}, draw ${step}`);
            draws++;
            worst = Math.max(worst, relative(pick.prob, probabilityOf(logits, want)));
          }
          const pick = wasm.nextTokenOf(logits, { ...s, candidates: 5, u: 0.5 });
          assert.deepEqual(pick.candidates.map((c) => c.id), bestIds(logits, Math.min(5, n)));
          for (const c of pick.candidates) worst = Math.max(worst, relative(c.prob, probabilityOf(logits, c.id)));
        }
      }
    }
    assert.ok(worst < 1e-6, `probabilities within ${worst.toExponential(2)} relative`);
    t.diagnostic(`${draws} draws equal; probabilities within ${worst.toExponential(2)} relative`);
    assert.ok(draws > 1500);
  });

  it('refuses bad options and rows without a distribution by name', () => {
    const row = Float32Array.of(0, 1, 2);
    const throws = (logits, options, code, pattern) => assert.throws(() => wasm.nextTokenOf(logits, options),
      (e) => e.code === code && pattern.test(e.message), `${JSON.stringify(options)}`);
    const ok = { temperature: 1, topK: 0, topP: 1, candidates: 2, u: 0.5 };
    throws(row, { ...ok, temperature: -1 }, 'E_INPUT', /temperature/);
    throws(row, { ...ok, topK: 1.5 }, 'E_INPUT', /topK/);
    throws(row, { ...ok, topP: 0 }, 'E_INPUT', /topP/);
    throws(row, { ...ok, u: 1 }, 'E_INPUT', /\bu\b/);
    throws(row, { ...ok, candidates: undefined }, 'E_INPUT', /candidates/);
    throws(new Float32Array(0), ok, 'E_INPUT', /no logits/);
    throws(Float32Array.of(0, NaN, 1), ok, 'E_WEIGHTS', /NaN/);
    throws(Float32Array.of(-Infinity, -Infinity), { ...ok, temperature: 0 }, 'E_WEIGHTS', /-inf/);
  });
});

// The JavaScript reference loop: each next token drawn by sampleToken from a full run's logits of
// the sequence so far (the seq2seq run's own; for a decoder, log-probabilities of run()'s whole
// softmax, which differ from the logits by a constant and so give the same draws).
async function referenceIds(nextLogits, firstIds, { maxNewTokens, seed, ...s }) {
  const random = seededRandom(seed);
  const ids = [...firstIds];
  for (let i = 0; i < maxNewTokens; i++) ids.push(sampleToken(await nextLogits(ids), s, random));
  return ids;
}

describe('sampled generations equal the JavaScript reference loop', () => {
  const options = [
    { temperature: 1, topK: 0, topP: 1, seed: 3 },
    { temperature: 0.8, topK: 10, topP: 0.9, seed: 7 },
  ];

  it('decoder (GPT-2 fixture)', async () => {
    const dir = fileURLToPath(new URL('../fixtures/engine/gpt2_lm_f32/', import.meta.url));
    const config = readFileSync(join(dir, 'config.json'), 'utf8');
    const V = JSON.parse(config).vocab_size;
    const vocab = `${Array.from({ length: V }, (_, i) => ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'][i] ?? `w${i}`).join('\n')}\n`;
    const model = await loadModel({ config, weights: readFileSync(join(dir, 'model.safetensors')), vocab }, { threads: 1 });
    try {
      const prompt = [5, 9, 2];
      for (const o of options) {
        const g = await model.generate(prompt, { ...o, maxNewTokens: 12, stopAtEos: false }).result;
        const want = await referenceIds(async (ids) => {
          const { next } = await model.runIds(ids, { topK: V });
          const logits = new Float64Array(V);
          for (const { id, prob } of next) logits[id] = Math.log(prob);
          return logits;
        }, prompt, { ...o, maxNewTokens: 12 });
        assert.deepEqual([...g.ids], want, JSON.stringify(o));
      }
    } finally {
      model.dispose();
    }
  });

  it('encoder–decoder (T5 fixture)', async () => {
    const FIXTURES = fileURLToPath(new URL('../fixtures/seq2seq/', import.meta.url));
    const name = readFileSync(join(FIXTURES, 'models.txt'), 'utf8').split('\n').find((m) => m.startsWith('t5'));
    const f = readFixture(join(FIXTURES, name), { expected: true });
    const model = await loadModel({ config: f.config, weights: f.weights, vocab: f.vocab }, { threads: 1 });
    try {
      const source = f.inputs.greedy.source_ids;
      for (const o of options) {
        const g = await model.generate(source, { ...o, maxNewTokens: 8, stopAtEos: false });
        const V = model.config.vocabSize;
        const want = await referenceIds(async (ids) => {
          const r = await model.runIds(source, { targetIds: ids.slice(1), logits: true });
          return r.logits.subarray((ids.length - 1) * V, ids.length * V);
        }, [model.config.decoderStartTokenId], { ...o, maxNewTokens: 8 });
        assert.deepEqual([...g.ids], want, `${name} ${JSON.stringify(o)}`);
        for (const step of g.steps) assert.ok(step.prob > 0 && step.prob <= 1);
      }
    } finally {
      model.dispose();
    }
  });
});
