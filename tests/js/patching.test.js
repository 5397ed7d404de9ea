// Activation patching and steering through the API, the worker client and the CLI, over wasm,
// against the float64 PyTorch reference of tests/fixtures/make_patching_fixtures.py (random GPT-2,
// grouped-query Llama, BERT, BART and T5 checkpoints): every cell ≤ 1e-3, both logit differences ≤ 1e-4 (relative, at least 1e-4 absolute)
// relative; steered greedy ids equal to the reference's up to its first near-tie and different
// from the plain ones; strength 0 is plain generation. Bad input: E_INPUT naming what is wrong.
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
import { steerFromFlags } from '../../js/cli/interventions.js';

const exec = promisify(execFile);
const CLI = fileURLToPath(new URL('../../js/cli/cli.js', import.meta.url));
const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
// One thread: the models are tiny, and the single-threaded wasm is the one every build has.
const THREADS = { threads: 1 };
const MODELS = ['engine/gpt2_lm_f32', 'llama/llama3_gqa2_f32', 'engine/bert_mlm_f32'];
const SEQ2SEQ = ['seq2seq/bart_f32', 'seq2seq/t5_relu_tied_f32'];
// The BERT fixture's [MASK] is id 4: the reference reads its LD there.
const vocabFor = (V) => `${Array.from({ length: V }, (_, i) => ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'][i] ?? `w${i}`).join('\n')}\n`;
const fixture = (name) => JSON.parse(readFileSync(join(FIXTURES, 'patching', `${name.replace('/', '_')}.json`), 'utf8'));

// Worst |score − expected| of a grid, and the two LDs' relative errors.
function compare(grid, c) {
  let worst = 0;
  assert.equal(grid.scores.length, c.scores.length);
  grid.scores.forEach((row, l) => {
    assert.equal(row.length, c.scores[l].length);
    row.forEach((s, i) => { worst = Math.max(worst, Math.abs(s - c.scores[l][i])); });
  });
  assert.ok(worst <= 1e-3, `${c.site}: max cell error ${worst}`);
  // 1e-4 relative, with a floor of 1: an LD is a difference of two logits, and where they nearly
  // cancel (|LD| ≪ 1) float32 logits cannot give it to 1e-4 of itself.
  assert.ok(Math.abs(grid.clean - c.clean_ld) <= 1e-4 * Math.max(1, Math.abs(c.clean_ld)), `clean LD ${grid.clean} vs ${c.clean_ld}`);
  assert.ok(Math.abs(grid.corrupted - c.corrupted_ld) <= 1e-4 * Math.max(1, Math.abs(c.corrupted_ld)), `corrupted LD ${grid.corrupted} vs ${c.corrupted_ld}`);
}

// The reference's ids up to its first near-tie (a margin under 1e-3 may flip in float32).
function sureIds(ids, margins, promptLength) {
  const n = margins.findIndex((m) => m <= 1e-3);
  return ids.slice(0, promptLength + (n < 0 ? margins.length : n));
}

describe('activation patching and steering', () => {
  let work;
  const dirs = {};
  before(() => {
    work = mkdtempSync(join(tmpdir(), 'attnscope-patching-'));
    for (const name of [...MODELS, ...SEQ2SEQ]) {
      const dir = join(work, name.replace('/', '_'));
      cpSync(join(FIXTURES, name), dir, { recursive: true });
      writeFileSync(join(dir, 'vocab.txt'), vocabFor(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).vocab_size));
      dirs[name] = dir;
    }
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  for (const name of MODELS) {
    it(`${name}: every site's grid equals the reference; rows arrive in order`, async () => {
      const model = await loadModel(dirs[name], THREADS);
      try {
        for (const c of fixture(name).cases) {
          const rows = [];
          const grid = await model.patch({ clean: c.clean, corrupted: c.corrupted, answer: c.answer, wrong: c.wrong, site: c.site,
            onProgress: (row) => rows.push(row) });
          compare(grid, c);
          assert.equal(grid.site, c.site);
          assert.equal(grid.position, c.position);
          assert.deepEqual(rows.map((r) => r.layer), grid.scores.map((_, l) => l));
          assert.deepEqual(rows.map((r) => r.scores), grid.scores);
        }
      } finally {
        model.dispose();
      }
    });
  }

  for (const name of MODELS.slice(0, 2)) {
    it(`${name}: steered greedy ids equal the reference's and differ from the plain ones; strength 0 is plain`, async () => {
      const model = await loadModel(dirs[name], THREADS);
      try {
        for (const s of fixture(name).steering) {
          const options = { temperature: 0, maxNewTokens: s.steps, stopAtEos: false };
          const steer = { layer: s.layer, from: s.from, to: s.to, strength: s.strength };
          const steered = Array.from((await model.generate(s.prompt, { ...options, steer }).result).ids);
          const plain = Array.from((await model.generate(s.prompt, options).result).ids);
          const sure = sureIds(s.ids, s.margins, s.prompt.length);
          assert.ok(sure.length >= s.prompt.length + 3, 'too few steps before a near-tie to compare');
          assert.deepEqual(steered.slice(0, sure.length), sure);
          const surePlain = sureIds(s.plain_ids, s.plain_margins, s.prompt.length);
          assert.deepEqual(plain.slice(0, surePlain.length), surePlain);
          assert.notDeepEqual(steered, plain);
          // The same through a given vector: the reference's v.
          const given = Array.from((await model.generate(s.prompt, { ...options, steer: { layer: s.layer, vector: s.vector, strength: s.strength } }).result).ids);
          assert.deepEqual(given.slice(0, sure.length), sure);
          // Strength 0: every step's probabilities are the plain run's, bit for bit.
          const zero = await model.generate(s.prompt, { ...options, steer: { ...steer, strength: 0 } }).result;
          const again = await model.generate(s.prompt, options).result;
          assert.deepEqual(zero.steps.map((x) => [x.id, x.prob]), again.steps.map((x) => [x.id, x.prob]));
        }
      } finally {
        model.dispose();
      }
    });
  }

  for (const name of SEQ2SEQ) {
    it(`${name}: both stacks' grids equal the reference; the decoder steers as the reference does`, async () => {
      const model = await loadModel(dirs[name], THREADS);
      try {
        for (const c of fixture(name).cases) {
          const grid = await model.patch({ clean: c.clean, corrupted: c.corrupted, targetIds: c.decoder_ids.slice(1),
            answer: c.answer, wrong: c.wrong, site: c.site, stack: c.stack });
          compare(grid, c);
          assert.equal(grid.stack, c.stack);
          assert.equal(grid.position, c.position);
        }
        for (const s of fixture(name).steering) {
          const options = { temperature: 0, maxNewTokens: s.steps, stopAtEos: false };
          const steer = { layer: s.layer, from: s.from.slice(1), to: s.to.slice(1), strength: s.strength };
          const steered = Array.from((await model.generate(s.source, { ...options, steer })).ids);
          const plain = await model.generate(s.source, options);
          const sure = sureIds(s.ids, s.margins, s.start.length);
          assert.ok(sure.length >= s.start.length + 3, 'too few steps before a near-tie to compare');
          assert.deepEqual(steered.slice(0, sure.length), sure);
          assert.notDeepEqual(steered, Array.from(plain.ids));
          const zero = await model.generate(s.source, { ...options, steer: { ...steer, strength: 0 } });
          assert.deepEqual(zero.steps.map((x) => [x.id, x.prob]), plain.steps.map((x) => [x.id, x.prob]));
        }
        await assert.rejects(model.patch({ clean: [11, 22], corrupted: [11], answer: 3, wrong: 4, stack: 'decoder' }),
          (e) => e.code === 'E_INPUT' && /clean source has 2 tokens and the corrupted one 1/.test(e.message));
        await assert.rejects(model.patch({ clean: [11], corrupted: [12], answer: 3, wrong: 4, stack: 'cross' }),
          (e) => e.code === 'E_INPUT' && /stack must be decoder or encoder/.test(e.message));
      } finally {
        model.dispose();
      }
    });
  }

  it('bad input is E_INPUT naming what is wrong', async () => {
    const model = await loadModel(dirs["engine/gpt2_lm_f32"], THREADS);
    const bert = await loadModel(dirs["engine/bert_mlm_f32"], THREADS);
    const rejects = (promise, pattern) => assert.rejects(promise, (e) => e.code === 'E_INPUT' && pattern.test(e.message));
    try {
      const base = { clean: [2, 11, 7, 30], corrupted: [2, 11, 8, 30], answer: 3, wrong: 19, site: 'head' };
      await rejects(model.patch({ ...base, corrupted: [2, 11, 8] }), /clean prompt has 4 tokens and the corrupted one 3/);
      await rejects(model.patch({ ...base, site: 'resid_post' }), /site must be one of resid_pre, attn_out, mlp_out, head, pattern/);
      await rejects(model.patch({ ...base, wrong: 3 }), /answer and wrong are the same token/);
      await rejects(model.patch({ ...base, answer: 53 }), /answer id 53 is outside the vocabulary/);
      await rejects(model.patch({ ...base, answer: 'w5 w6' }), /answer "w5 w6" is 2 tokens \("w5" "w6"\), not one/);
      await rejects(model.patch({ ...base, corrupted: base.clean }), /no difference to restore/);
      await rejects(model.patch({ ...base, wrong: undefined }), /wrong is required/);
      await rejects(model.patch({ ...base, extra: 1 }), /unknown option "extra"/);
      await rejects(bert.patch({ ...base }), /first mask token, and the clean prompt has none/);
      const steer = (s) => assert.throws(() => model.generate([2, 11], { steer: s }), (e) => e.code === 'E_INPUT');
      steer({ layer: 0, strength: 1 });
      steer({ layer: 0, strength: Infinity, vector: new Float32Array(36) });
      steer({ layer: 0, strength: 1, vector: [1, 2], from: 'w5' });
      const throws = (options, pattern) => assert.throws(() => model.generate([2, 11], options), (e) => e.code === 'E_INPUT' && pattern.test(e.message));
      throws({ steer: { layer: 3, strength: 1, from: [5], to: [6] } }, /steering layer 3 is outside \[0, 3\)/);
      throws({ steer: { layer: 0, strength: 1, vector: [1, 2] } }, /steering vector has 2 values, the residual stream 36/);
      const ok = await model.generate([2, 11], { temperature: 0, maxNewTokens: 2 }).result;  // a failed setup left no steering on
      assert.equal(ok.ids.length, 4);
    } finally {
      model.dispose();
      bert.dispose();
    }
  });

  it('worker client: one job, rows as they come, a signal stops it between rows', async () => {
    const c = fixture('engine/gpt2_lm_f32').cases.find((x) => x.site === 'resid_pre');
    const client = createWorkerClient();
    try {
      await client.load(dirs['engine/gpt2_lm_f32'], THREADS);
      const rows = [];
      const grid = await client.patch({ clean: c.clean, corrupted: c.corrupted, answer: c.answer, wrong: c.wrong, site: c.site,
        onProgress: (row) => rows.push(row) });
      compare(grid, c);
      assert.deepEqual(rows.map((r) => `${r.done}/${r.total}`), ['1/3', '2/3', '3/3']);
      // Aborted once the job runs in the worker: the abort message arrives before its first row.
      const controller = new AbortController();
      const seen = [];
      const stopped = client.patch({ clean: c.clean, corrupted: c.corrupted, answer: c.answer, wrong: c.wrong,
        signal: controller.signal, onProgress: (row) => seen.push(row) });
      controller.abort();
      await assert.rejects(stopped, (e) => e.code === 'E_ABORTED');
      assert.deepEqual(seen, []);
      // The worker is free again.
      const again = await client.patch({ clean: c.clean, corrupted: c.corrupted, answer: c.answer, wrong: c.wrong });
      compare(again, c);
    } finally {
      await client.terminate();
    }
  });

  it('CLI: patch writes {site, clean, corrupted, scores} (encoder–decoders: --target-ids, --stack); generate takes the --steer-* flags', async () => {
    const name = 'llama/llama3_gqa2_f32';
    const c = fixture(name).cases.find((x) => x.site === 'head');
    const { stdout } = await exec(process.execPath, [CLI, 'patch', '--threads', '1', '--model', dirs[name], '--clean-ids', c.clean.join(','),
      '--corrupted-ids', c.corrupted.join(','), '--answer-id', String(c.answer), '--wrong-id', String(c.wrong), '--site', 'head']);
    const json = JSON.parse(stdout);
    assert.deepEqual(Object.keys(json), ['site', 'clean', 'corrupted', 'position', 'scores']);
    compare(json, c);
    const s = fixture(name).steering[0];
    const { stdout: out } = await exec(process.execPath, [CLI, 'generate', '--threads', '1', '--model', dirs[name], '--ids', s.prompt.join(','),
      '--temperature', '0', '--max-new-tokens', String(s.steps), '--no-stop-at-eos', '--steer-layer', String(s.layer),
      '--steer-from-ids', s.from.join(','), '--steer-to-ids', s.to.join(','), '--steer-strength', String(s.strength)]);
    const sure = sureIds(s.ids, s.margins, s.prompt.length);
    assert.deepEqual(JSON.parse(out).ids.slice(0, sure.length), sure);
    await assert.rejects(exec(process.execPath, [CLI, 'patch', '--threads', '1', '--model', dirs[name], '--clean-ids', '1,2,3', '--corrupted-ids', '1,2',
      '--answer-id', '3', '--wrong-id', '4', '--site', 'resid_pre']), (e) => /E_INPUT.*clean prompt has 3 tokens and the corrupted one 2/s.test(e.stderr));
    // An encoder–decoder: sources, the decoder's target ids and the encoder's stack, as the reference.
    const t = fixture('seq2seq/bart_f32').cases.find((x) => x.stack === 'encoder');
    const { stdout: seq2seq } = await exec(process.execPath, [CLI, 'patch', '--threads', '1', '--model', dirs['seq2seq/bart_f32'],
      '--clean-ids', t.clean.join(','), '--corrupted-ids', t.corrupted.join(','), '--target-ids', t.decoder_ids.slice(1).join(','),
      '--stack', 'encoder', '--answer-id', String(t.answer), '--wrong-id', String(t.wrong), '--site', t.site]);
    const s2s = JSON.parse(seq2seq);
    assert.deepEqual([s2s.site, s2s.stack, s2s.position], [t.site, 'encoder', t.position]);
    compare(s2s, t);
    await assert.rejects(exec(process.execPath, [CLI, 'patch', '--threads', '1', '--model', dirs[name], '--clean-ids', '1,2', '--corrupted-ids', '1,3',
      '--target-ids', '5', '--answer-id', '3', '--wrong-id', '4', '--site', 'head']), (e) => /--target-ids: for encoder–decoders; this model is a decoder/.test(e.stderr));
    // The bundled decoder from text, as the README runs it: the reference's grid of its own checkpoint.
    const b = JSON.parse(readFileSync(join(FIXTURES, 'patching', 'bundled-causal.json'), 'utf8')).cases.find((x) => x.site === 'head');
    const { stdout: bundled } = await exec(process.execPath, [CLI, 'patch', '--threads', '1', '--model', 'bundled-causal',
      '--clean', 'In the morning he went to church, and in the evening he went to',
      '--corrupted', 'In the morning he went to school, and in the evening he went to', '--answer', ' church', '--wrong', ' school', '--site', 'head']);
    compare(JSON.parse(bundled), b);
        // The flags' own checks (no process needed): a usage error names what is missing.
    assert.throws(() => steerFromFlags({ 'steer-layer': '0', 'steer-strength': '1', 'steer-from': 'w5' }), /steering needs --steer-to with --steer-from/);
    assert.throws(() => steerFromFlags({ 'steer-layer': '0', 'steer-from': 'a', 'steer-to': 'b' }), /steering needs --steer-strength/);
    assert.throws(() => steerFromFlags({ 'steer-layer': '0', 'steer-strength': '1', 'steer-from': 'a', 'steer-to-ids': '1' }),
      /--steer-from and --steer-to, or --steer-from-ids and --steer-to-ids/);
    assert.deepEqual(steerFromFlags({ 'steer-layer': '2', 'steer-strength': '-1.5', 'steer-from-ids': '1,2', 'steer-to-ids': '3' }),
      { layer: 2, strength: -1.5, from: [1, 2], to: [3] });
    assert.equal(steerFromFlags({}), undefined);
  });
});
