// Head ablation (Hugging Face's head_mask) through the CLI and the API: `run --head-mask 1:0,2:2`
// gives the hidden states of an independent float64 PyTorch forward with those heads switched off
// (tests/fixtures/make_engine_fixtures.py, case t6_heads_off), for BERT, DistilBERT, MiniLM and
// GPT-2 checkpoints; the switched-off heads keep their own attention, flagged in headMask.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { loadModel } from '../../js/index.js';
import { readSafetensors } from './helpers/safetensors.js';

const run = promisify(execFile);
const CLI = fileURLToPath(new URL('../../js/cli/cli.js', import.meta.url));
const FIXTURES = fileURLToPath(new URL('../fixtures/engine/', import.meta.url));

const maxDiff = (a, b) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);
const vocabFor = (V) => `${Array.from({ length: V }, (_, i) => ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'][i] ?? `w${i}`).join('\n')}\n`;

describe('head ablation', () => {
  let work;
  before(() => { work = mkdtempSync(join(tmpdir(), 'attnscope-headmask-')); });
  after(() => rmSync(work, { recursive: true, force: true }));

  for (const model of ['bert_mlm_f32', 'distilbert_mlm_f32', 'minilm_relu_f32', 'gpt2_lm_f32']) {
    it(`${model}: run --head-mask equals PyTorch with those heads off; their attention is kept`, async () => {
      const dir = join(work, model);
      cpSync(join(FIXTURES, model), dir, { recursive: true });
      const V = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).vocab_size;
      writeFileSync(join(dir, 'vocab.txt'), vocabFor(V));
      const testCase = JSON.parse(readFileSync(join(dir, 'inputs.json'), 'utf8')).cases.find((c) => c.name === 't6_heads_off');
      const expected = Object.fromEntries(Object.entries(readSafetensors(join(dir, testCase.expected))).map(([k, v]) => [k, v.data]));
      const out = join(dir, 'f.json');
      await run(process.execPath, [CLI, 'run', '--model', dir, '--ids', testCase.ids.join(','),
        '--head-mask', testCase.heads_off.join(','), '--out', out]);
      const r = JSON.parse(readFileSync(out, 'utf8'));
      const hidden = Float32Array.from(r.hidden.flat());
      const e = maxDiff(hidden, expected.hidden_out);
      assert.ok(e <= 1e-3, `hidden differs from the reference by ${e}`);

      // Through the API: the intact run differs (the mask matters), and every head's attention,
      // the switched-off ones included, equals the reference's (their own probabilities).
      const m = await loadModel(dir);
      try {
        const masked = await m.runIds(testCase.ids, { headMask: testCase.head_mask });
        const intact = await m.runIds(testCase.ids);
        assert.ok(maxDiff(intact.hidden, expected.hidden_out) > 1e-2, 'switching heads off changed nothing');
        assert.ok(maxDiff(masked.attentions, expected.attentions) <= 1e-4);
        assert.deepEqual([...masked.headMask], testCase.head_mask.flat());
        await assert.rejects(m.runIds(testCase.ids, { headMask: [1, 0] }), (err) => err.code === 'E_INPUT' && /headMask must be/.test(err.message));
        // The shape is the API's check, the values the engine's (the one check of each).
        const notFinite = testCase.head_mask.map((row) => [...row]);
        notFinite[1][0] = NaN;
        await assert.rejects(m.runIds(testCase.ids, { headMask: notFinite }),
          (err) => err.code === 'E_INPUT' && /head_mask value for layer 1 head 0 is not a finite number/.test(err.message));
      } finally {
        m.dispose();
      }
    });
  }

  it('--head-mask outside the model or malformed is a usage error', async () => {
    const dir = join(work, 'bert_mlm_f32');
    await assert.rejects(run(process.execPath, [CLI, 'run', '--model', dir, '--ids', '5,6', '--head-mask', '7:0']),
      (e) => e.code === 2 && /outside the model's 2 layers × 4 heads/.test(e.stderr));
    await assert.rejects(run(process.execPath, [CLI, 'run', '--model', dir, '--ids', '5,6', '--head-mask', '1-0']),
      (e) => e.code === 2 && /layer:head pairs/.test(e.stderr));
  });
});
