// The head detectors (js/analysis/head-detectors.js) and the page's small pure helpers for the Llama family
// (rotary angles, token-list comparison), each against an independent computation:
// - inductionScores on hand-made attention tensors whose answer is known in closed form (a perfect
//   induction head scores 1; a uniform causal head scores the mean of 1/(query + 1));
// - measureInduction on the bundled GPT-2 and the Llama page fixture: its input is checked to be
//   [bos] x x with x distinct ordinary ids, and its scores equal a separate loop over runIds' tensor;
// - rotate / scoresByDistance against the engine's own q·k at every pair of positions of a run.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';

import { inductionInput, inductionScores, loadModel, measureInduction } from '../../js/index.js';
import { compareTokenLists } from '../../web/src/math/token-compare.js';
import { rotate, scoresByDistance } from '../../web/src/math/rotary-math.js';

const LLAMA_PAGE = fileURLToPath(new URL('../fixtures/llama_page', import.meta.url));

// Attentions of a fake run [L=1, H, T, T] from a function (h, i, j) → weight.
function fakeRun(H, T, weight) {
  const attentions = new Float32Array(H * T * T);
  for (let h = 0; h < H; h++) for (let i = 0; i < T; i++) for (let j = 0; j < T; j++) attentions[(h * T + i) * T + j] = weight(h, i, j);
  return { attentions, shape: [1, H, T] };
}

describe('inductionScores', () => {
  it('a perfect induction head scores 1, a uniform causal head the mean of 1/(i + 1), a previous-token head 0', () => {
    const first = 1, n = 6, T = first + 2 * n;
    const run = fakeRun(3, T, (h, i, j) => {
      if (h === 0) return i >= first + n ? Number(j === i - n + 1) : Number(j === 0);
      if (h === 1) return j <= i ? 1 / (i + 1) : 0;
      return i === 0 ? Number(j === 0) : Number(j === i - 1);
    });
    const scores = inductionScores(run, { first, length: n });
    assert.equal(scores[0], 1);
    let uniform = 0;
    for (let t = 0; t < n; t++) uniform += 1 / (first + n + t + 1);
    assert.ok(Math.abs(scores[1] - uniform / n) < 1e-7, `${scores[1]} vs ${uniform / n}`);
    assert.equal(scores[2], 0);
  });

  it('refuses a run of another length', () => {
    assert.throws(() => inductionScores(fakeRun(1, 5, () => 0), { first: 1, length: 3 }), { code: 'E_INPUT' });
  });
});

for (const [name, source] of [['bundled GPT-2', 'bundled-causal'], ['Llama page fixture', LLAMA_PAGE]]) {
  describe(`measureInduction on the ${name}`, () => {
    it('runs [bos] x x (x distinct, no special ids) and scores what a separate loop reads from the tensor', async () => {
      const model = await loadModel(source, { threads: 1 });
      try {
        const c = model.config;
        const { scores, input } = await measureInduction(model, c);
        const { ids, first, length } = input;
        const special = new Set([c.bosTokenId, c.eosTokenId, c.padTokenId].filter((id) => id >= 0));
        assert.equal(first, c.bosTokenId >= 0 ? 1 : 0);
        if (first) assert.equal(ids[0], c.bosTokenId);
        const x = ids.slice(first, first + length);
        assert.deepEqual(ids.slice(first + length), x, 'the second copy repeats the first');
        assert.equal(new Set(x).size, length, 'distinct ids');
        assert.ok(x.every((id) => !special.has(id) && id >= 0 && id < c.vocabSize));
        assert.deepEqual(inductionInput(c), input, 'the same seed gives the same input');

        const run = await model.runIds(ids);
        const [L, H, T] = run.shape;
        assert.equal(scores.length, L * H);
        for (let l = 0; l < L; l++) {
          for (let h = 0; h < H; h++) {
            const m = run.attention(l, h);
            let sum = 0;
            for (let q = first + length; q < T; q++) {
              const earlier = ids.indexOf(ids[q], first);   // the first copy's occurrence
              assert.ok(earlier < q - 1 || earlier === q - length);
              sum += m[q * T + earlier + 1];
            }
            const want = sum / length;
            assert.ok(Math.abs(scores[l * H + h] - want) < 1e-6, `layer ${l} head ${h}: ${scores[l * H + h]} vs ${want}`);
          }
        }
      } finally {
        model.dispose();
      }
    });
  });
}

describe('rotary math (the Rotary Positions view)', () => {
  it('the un-rotated q, k placed i − j apart give the engine\'s q·k/√d for every pair of the run', async () => {
    const model = await loadModel(LLAMA_PAGE, { threads: 1 });
    try {
      const c = model.config;
      const dh = c.headDim;
      // θ^(−2k/d) from config.json (no rope_scaling in this fixture), not from the engine.
      const want = Array.from({ length: dh / 2 }, (_, k) => 10000 ** (-(2 * k) / dh));
      c.rotaryInverseFrequencies.forEach((f, k) => assert.ok(Math.abs(f - want[k]) < 1e-12 * want[k] + 1e-15, `pair ${k}: ${f} vs ${want[k]}`));
      const r = await model.run('The prince sat on the mat because it was there.', { qkv: true });
      const [L, H, T] = r.shape;
      const vec = (arr, l, h, p) => arr.subarray(((l * H + h) * T + p) * dh, ((l * H + h) * T + p + 1) * dh);
      let worst = 0;
      for (const [l, h] of [[0, 0], [1, 5], [L - 1, H - 1]]) {
        for (let i = 0; i < T; i++) {
          for (let j = 0; j <= i; j++) {
            const qi = vec(r.q, l, h, i), kj = vec(r.k, l, h, j);
            let engine = 0;
            for (let d = 0; d < dh; d++) engine += qi[d] * kj[d];
            engine /= Math.sqrt(dh);
            const curve = scoresByDistance(rotate(qi, -i, want), rotate(kj, -j, want), want, i - j);
            worst = Math.max(worst, Math.abs(curve[i - j] - engine) / (1 + Math.abs(engine)));
          }
        }
      }
      assert.ok(worst < 1e-4, `largest relative difference ${worst}`);
    } finally {
      model.dispose();
    }
  });
});

describe('compareTokenLists', () => {
  it('same tokens in another order vs a different split', () => {
    assert.deepEqual(compareTokenLists(['[CLS]', 'there', 'is', '[SEP]'], ['[CLS]', 'is', 'there', '[SEP]']), { sameTokens: true, onlyA: [], onlyB: [] });
    assert.deepEqual(compareTokenLists(['T', 'here', '␣is', '␣a'], ['I', 's', '␣there', '␣a']),
      { sameTokens: false, onlyA: ['T', 'here', '␣is'], onlyB: ['I', 's', '␣there'] });
    assert.deepEqual(compareTokenLists(['a', 'a', 'b'], ['a', 'b', 'b']), { sameTokens: false, onlyA: ['a'], onlyB: ['b'] });
  });
});
