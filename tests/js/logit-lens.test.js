// The logit lens and direct logit attribution through the API, the CLI and the worker client, over
// wasm, against the float64 PyTorch reference of tests/fixtures/make_lens_fixtures.py (random BERT
// and GPT-2 checkpoints of tests/fixtures/engine): lens probabilities ≤ 1e-4, attribution parts
// ≤ 1e-4 each and summing to the model's own logit within 1e-4; the lens's last layer is the
// model's own prediction (the same logits, so the same tokens as `next` and `nextByPosition`, the
// probabilities within 1e-12 relative: C++'s exp against JavaScript's).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { loadModel } from '../../js/index.js';
import { createWorkerClient } from '../../js/worker/client.js';

const run = promisify(execFile);
const CLI = fileURLToPath(new URL('../../js/cli/cli.js', import.meta.url));
const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
const vocabFor = (V) => `${Array.from({ length: V }, (_, i) => ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'][i] ?? `w${i}`).join('\n')}\n`;

describe('logit lens and attribution', () => {
  let work;
  const dirs = {};
  before(() => {
    work = mkdtempSync(join(tmpdir(), 'attnscope-lens-'));
    for (const name of ['bert_mlm_f32', 'gpt2_lm_f32', 'gpt2_untied_f32']) {
      const dir = join(work, name);
      cpSync(join(FIXTURES, 'engine', name), dir, { recursive: true });
      writeFileSync(join(dir, 'vocab.txt'), vocabFor(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).vocab_size));
      dirs[name] = dir;
    }
  });
  after(() => rmSync(work, { recursive: true, force: true }));
  const fixture = (name) => JSON.parse(readFileSync(join(FIXTURES, 'lens', `${name}.json`), 'utf8'));

  for (const name of ['bert_mlm_f32', 'gpt2_lm_f32', 'gpt2_untied_f32']) {
    it(`${name}: every layer's probabilities equal the reference; the last layer is the model's own prediction`, async () => {
      const model = await loadModel(dirs[name]);
      try {
        const V = model.config.vocabSize;
        let worst = 0, lastWorst = 0;
        for (const c of fixture(name).cases) {
          const r = await model.runIds(c.ids, {
            tokenTypes: c.token_types, attentionMask: c.attention_mask, logitLens: V, topK: 3,
            ...(c.head_mask ? { headMask: c.head_mask } : {}),
          });
          const L = model.config.numLayers, T = c.ids.length;
          assert.equal(r.logitLens.length, L + 1);
          for (let l = 0; l <= L; l++) {
            assert.equal(r.logitLens[l].length, T);
            for (let t = 0; t < T; t++) {
              const e = r.logitLens[l][t];
              assert.equal(e.top.length, V);
              for (const { id, prob } of e.top) worst = Math.max(worst, Math.abs(prob - c.lens_probs[l][t][id]));
              const finalId = r.logitLens[L][t].top[0].id;
              assert.equal(e.top[e.finalRank - 1].id, finalId);
              if (model.config.isDecoder) {
                if (t + 1 < T) assert.equal(e.top[e.nextRank - 1].id, c.ids[t + 1]);
                else assert.equal(e.nextRank, null);
              } else {
                assert.ok(!('nextRank' in e));
              }
            }
          }
          if (model.config.isDecoder) {
            // The model's own predictions: the engine's logits are the same bits (Catch2 checks them);
            // the softmax here is C++'s exp, the API's JavaScript's, so the probabilities may differ
            // in the last bit (measured ≤ 1 ulp) and the tokens and ranks are the same.
            const all = await model.runIds(c.ids, { attentionMask: c.attention_mask, nextAll: true, topK: 3,
              ...(c.head_mask ? { headMask: c.head_mask } : {}) });
            assert.deepEqual(all.next, r.next, 'next changed with nextAll');
            assert.equal(r.logitLens[L][T - 1].finalRank, 1);
            for (let t = 0; t < T; t++) {
              const lensTop = r.logitLens[L][t].top.slice(0, 3), own = all.nextByPosition[t].top;
              assert.deepEqual(lensTop.map((x) => x.id), own.map((x) => x.id));
              lensTop.forEach((x, i) => { lastWorst = Math.max(lastWorst, Math.abs(x.prob - own[i].prob) / own[i].prob); });
            }
            assert.deepEqual(r.logitLens[L][T - 1].top.slice(0, 3).map((x) => x.id), r.next.map((x) => x.id));
          } else if (T > 3) {
            // [MASK] (id 4 in the test vocabulary) at two positions: the lens's last row there is the
            // mask prediction.
            const ids = c.ids.map((id, i) => (i === 1 || i === 3 ? 4 : id));
            const m = await model.runIds(ids, { tokenTypes: c.token_types, attentionMask: c.attention_mask, logitLens: 3, topK: 3 });
            assert.ok(m.maskPredictions.length >= 2);
            for (const p of m.maskPredictions) {
              const lensTop = m.logitLens[L][p.position].top;
              assert.deepEqual(lensTop.map((x) => x.id), p.top.map((x) => x.id));
              lensTop.forEach((x, i) => { lastWorst = Math.max(lastWorst, Math.abs(x.prob - p.top[i].prob) / p.top[i].prob); });
            }
          }
        }
        assert.ok(worst <= 1e-4, `lens probabilities differ from the reference by ${worst}`);
        assert.ok(lastWorst <= 1e-12, `the last layer differs from the model's own predictions by ${lastWorst} (relative)`);
        console.log(`# ${name}: max |lens prob - reference| = ${worst.toExponential(2)}; last layer vs the model's own predictions: ${lastWorst.toExponential(2)} relative`);
      } finally {
        model.dispose();
      }
    });
  }

  for (const name of ['gpt2_lm_f32', 'gpt2_untied_f32']) {
    it(`${name}: attribution parts equal the reference and add up to the logit`, async () => {
      const model = await loadModel(dirs[name]);
      try {
        let worstPart = 0, worstSum = 0;
        for (const c of fixture(name).cases) {
          for (const want of c.attributions) {
            const r = await model.runIds(c.ids, {
              attentionMask: c.attention_mask, attribution: { position: want.position, tokenId: want.token_id },
              ...(c.head_mask ? { headMask: c.head_mask } : {}),
            });
            const a = r.attribution;
            assert.equal(a.position, want.position);
            assert.equal(a.tokenId, want.token_id);
            assert.equal(a.parts.length, want.parts.length);
            a.parts.forEach((p, i) => {
              const w = want.parts[i];
              assert.deepEqual([p.kind, p.layer, p.head], [w.kind, w.layer, w.head]);
              worstPart = Math.max(worstPart, Math.abs(p.value - w.value));
            });
            worstSum = Math.max(worstSum, Math.abs(a.sum - a.logit), Math.abs(a.parts.reduce((s, p) => s + p.value, 0) - a.logit));
            assert.ok(Math.abs(a.logit - want.logit) <= 1e-4);
          }
        }
        assert.ok(worstPart <= 1e-4, `parts differ from the reference by ${worstPart}`);
        assert.ok(worstSum <= 1e-4, `parts miss the logit by ${worstSum}`);
        console.log(`# ${name}: max |part - reference| = ${worstPart.toExponential(2)}, max |sum - logit| = ${worstSum.toExponential(2)}`);
        // Defaults: the last position and the top-1 next token.
        const r = await model.runIds([3, 9, 4, 7], { attribution: true });
        assert.equal(r.attribution.position, 3);
        assert.equal(r.attribution.tokenId, r.next[0].id);
        await assert.rejects(model.runIds([3], { attribution: { token: 1 } }), (e) => e.code === 'E_INPUT');
        await assert.rejects(model.runIds([3], { logitLens: 0.5 }), (e) => e.code === 'E_INPUT');
      } finally {
        model.dispose();
      }
    });
  }

  it('an encoder has no attribution; a lens without a head is an error', async () => {
    const model = await loadModel(dirs.bert_mlm_f32);
    try {
      await assert.rejects(model.runIds([2, 5, 3], { attribution: true }), (e) => e.code === 'E_INPUT' && /pre-norm decoder/.test(e.message));
    } finally {
      model.dispose();
    }
  });

  it('CLI: run --logit-lens [K] and --attribution [TOKEN_ID] write logit_lens and attribution', async () => {
    const out = join(work, 'cli.json');
    await run(process.execPath, [CLI, 'run', '--model', dirs.gpt2_lm_f32, '--ids', '5,9,14,2', '--logit-lens', '--attribution', '--out', out]);
    let j = JSON.parse(readFileSync(out, 'utf8'));
    assert.equal(j.logit_lens.length, 4);  // embeddings + 3 layers
    assert.equal(j.logit_lens[0][0].top.length, 5);
    assert.deepEqual(Object.keys(j.logit_lens[1][0]).sort(), ['final_prob', 'final_rank', 'next_prob', 'next_rank', 'top']);
    assert.deepEqual(Object.keys(j.logit_lens[1][0].top[0]).sort(), ['id', 'prob', 'token']);
    assert.equal(j.logit_lens[3][3].next_rank, null);
    assert.equal(j.attribution.token_id, j.next[0].id);
    assert.ok(Math.abs(j.attribution.sum - j.attribution.logit) <= 1e-4);
    await run(process.execPath, [CLI, 'run', '--model', dirs.gpt2_lm_f32, '--ids', '5,9,14,2', '--attribution', '7', '--logit-lens', '2', '--out', out]);
    j = JSON.parse(readFileSync(out, 'utf8'));
    assert.equal(j.attribution.token_id, 7);
    assert.equal(j.logit_lens[0][0].top.length, 2);
    const kinds = new Set(j.attribution.parts.map((p) => p.kind));
    assert.deepEqual([...kinds], ['embeddings', 'head', 'attention_bias', 'mlp', 'final_norm_bias']);
  });

  it('the worker client returns the same lens and attribution', async () => {
    const client = createWorkerClient();
    const model = await loadModel(dirs.gpt2_lm_f32);
    try {
      await client.load(dirs.gpt2_lm_f32);
      const options = { logitLens: 4, attribution: true };
      const remote = await client.runIds([5, 9, 14, 2], options);
      const local = await model.runIds([5, 9, 14, 2], options);
      assert.deepEqual(remote.logitLens, local.logitLens);
      assert.deepEqual(remote.attribution, local.attribution);
    } finally {
      model.dispose();
      await client.terminate();
    }
  });
});
