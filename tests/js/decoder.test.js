// Decoders (GPT-2) through the API, the worker client and the CLI: sampling, generation
// (reproducible seeds, end-of-text stops, cancellation, the n_positions limit), streaming, and the
// run/generate commands. The numbers themselves are checked against PyTorch in
// engine-golden.test.js; the references here are the golden fixture's greedy ids and plain
// float64 softmax arithmetic.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { loadModel } from '../../js/index.js';
import { createWorkerClient } from '../../js/worker/client.js';
import { argmax, sampleToken, seededRandom } from '../../js/analysis/sampling.js';
import { softmax } from './helpers/api-reference.js';
import { startMockHub } from './helpers/api-mock-hub.js';

const run = promisify(execFile);
const CLI = fileURLToPath(new URL('../../js/cli/cli.js', import.meta.url));
const FIXTURE = fileURLToPath(new URL('../fixtures/engine/gpt2_lm_f32/', import.meta.url));
const inputs = JSON.parse(readFileSync(join(FIXTURE, 'inputs.json'), 'utf8'));
const configText = readFileSync(join(FIXTURE, 'config.json'), 'utf8');
const weights = readFileSync(join(FIXTURE, 'model.safetensors'));
const V = JSON.parse(configText).vocab_size;
// The fixture ships no tokenizer; generation by ids needs only token names.
const vocab = `${Array.from({ length: V }, (_, i) => ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'][i] ?? `w${i}`).join('\n')}\n`;
const source = (config = configText) => ({ config, weights, vocab });

describe('sampling', () => {
  it('seededRandom: same seed, same stream; different seeds differ; values in [0, 1)', () => {
    const a = seededRandom(7), b = seededRandom(7), c = seededRandom(8);
    const xs = Array.from({ length: 1000 }, a);
    assert.deepEqual(Array.from({ length: 1000 }, b), xs);
    assert.notDeepEqual(Array.from({ length: 1000 }, c), xs);
    assert.ok(xs.every((x) => x >= 0 && x < 1));
    const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
    assert.ok(Math.abs(mean - 0.5) < 0.05, `mean ${mean}`);
  });

  const logits = Float32Array.from([1.0, 3.0, 0.5, 3.0, -2.0, 2.0]);
  it('temperature 0 is argmax, lowest id among equals (torch.argmax)', () => {
    assert.equal(argmax(logits), 1);
    assert.equal(sampleToken(logits, { temperature: 0, topK: 0, topP: 1 }, seededRandom(1)), 1);
  });

  it('draws follow softmax(logits / T) restricted by top-k and top-p', () => {
    const draws = (options, n = 20000) => {
      const random = seededRandom(123);
      const counts = new Array(logits.length).fill(0);
      for (let i = 0; i < n; i++) counts[sampleToken(logits, options, random)]++;
      return counts.map((c) => c / n);
    };
    const expected = (T, keep) => {
      const p = softmax(Array.from(logits, (x, id) => (keep.includes(id) ? x / T : -Infinity)));
      return p;
    };
    const close = (got, want) => got.forEach((g, i) => assert.ok(Math.abs(g - want[i]) < 0.015, `id ${i}: ${g} vs ${want[i]}`));
    close(draws({ temperature: 1, topK: 0, topP: 1 }), expected(1, [0, 1, 2, 3, 4, 5]));
    close(draws({ temperature: 0.5, topK: 0, topP: 1 }), expected(0.5, [0, 1, 2, 3, 4, 5]));
    close(draws({ temperature: 1, topK: 3, topP: 1 }), expected(1, [1, 3, 5]));
    // top-p 0.6: ids 1 and 3 hold 2 × 0.36 of the mass, so the nucleus is {1, 3}
    close(draws({ temperature: 1, topK: 0, topP: 0.6 }), expected(1, [1, 3]));
  });
});

describe('generation through the API', () => {
  let model;
  before(async () => { model = await loadModel(source()); });
  after(() => model?.dispose());

  it('greedy generation equals the reference; kind and options are reported', async () => {
    assert.equal(model.info.kind, 'decoder');
    assert.equal(model.info.hasMlmHead, false);
    const { prompt, ids } = inputs.greedy;
    const r = await model.generate(prompt, { maxNewTokens: ids.length - prompt.length, temperature: 0, stopAtEos: false }).result;
    assert.deepEqual([...r.ids], ids);
    assert.equal(r.stopReason, 'max-new-tokens');
    for (const step of r.steps) {
      assert.equal(step.candidates[0].id, step.id, 'greedy picks the top candidate');
      assert.ok(step.prob > 0 && step.prob <= 1);
    }
  });

  it('the same seed gives the same text; streaming and onToken see every step', async () => {
    // A hot temperature: this random model is too sure of itself for two seeds to differ at 1.
    const options = { maxNewTokens: 12, temperature: 5, topK: 0, seed: 99, stopAtEos: false };
    const streamed = [], called = [];
    const g = model.generate([40, 40, 2], { ...options, onToken: (s) => called.push(s.id) });
    for await (const step of g) streamed.push(step);
    const first = await g.result;
    const second = await model.generate([40, 40, 2], options).result;
    assert.deepEqual([...second.ids], [...first.ids]);
    assert.deepEqual(streamed.map((s) => s.id), [...first.ids.subarray(3)]);
    assert.deepEqual(called, streamed.map((s) => s.id));
    streamed.forEach((s, i) => {
      assert.equal(s.position, 3 + i);
      assert.equal(s.keys, 4 + i);
      assert.equal(s.attention.length, 3 * 4 * s.keys);  // L × H × keys
    });
    const other = await model.generate([40, 40, 2], { ...options, seed: 100 }).result;
    assert.notDeepEqual([...other.ids], [...first.ids]);
  });

  it('stops at the end-of-text token when asked, not otherwise', async () => {
    // Make the reference's first greedy token the eos id: generation must stop right after it.
    const { prompt, ids } = inputs.greedy;
    const eos = ids[prompt.length];
    const withEos = await loadModel(source(JSON.stringify({ ...JSON.parse(configText), eos_token_id: eos })));
    try {
      const stopped = await withEos.generate(prompt, { maxNewTokens: 5, temperature: 0 }).result;
      assert.equal(stopped.stopReason, 'eos');
      assert.deepEqual([...stopped.ids], [...prompt, eos]);
      const goes = await withEos.generate(prompt, { maxNewTokens: 5, temperature: 0, stopAtEos: false }).result;
      assert.equal(goes.steps.length, 5);
    } finally {
      withEos.dispose();
    }
  });

  it('stops with an announced reason at n_positions; refuses bad options', async () => {
    const r = await model.generate(new Array(38).fill(7), { maxNewTokens: 10, temperature: 0 }).result;
    assert.equal(r.stopReason, 'max-positions');
    assert.equal(r.ids.length, 40);
    const rejects = (options, pattern) => assert.throws(() => model.generate([1, 2], options), (e) => e.code === 'E_INPUT' && pattern.test(e.message));
    rejects({ temprature: 1 }, /unknown option "temprature"/);
    rejects({ temperature: -1 }, /temperature/);
    rejects({ topP: 0 }, /topP/);
    rejects({ maxNewTokens: 1.5 }, /maxNewTokens/);
    rejects({ seed: -3 }, /seed/);
    await assert.rejects(model.generate([1, V], {}).result, (e) => e.code === 'E_INPUT' && /out of vocab/.test(e.message));
  });

  it('cancel() and an AbortSignal stop between steps with E_ABORTED; one generation at a time', async () => {
    const g = model.generate([1, 2, 3], { maxNewTokens: 30, stopAtEos: false });
    assert.throws(() => model.generate([1], {}), (e) => e.code === 'E_INPUT' && /already running/.test(e.message));
    let seen = 0;
    await assert.rejects((async () => { for await (const step of g) { seen++; if (step.index === 1) g.cancel(); } })(), (e) => e.code === 'E_ABORTED');
    assert.equal(seen, 2);
    await assert.rejects(g.result, (e) => e.code === 'E_ABORTED');
    const controller = new AbortController();
    const h = model.generate([1, 2, 3], { maxNewTokens: 30, stopAtEos: false, signal: controller.signal, onToken: () => controller.abort() });
    await assert.rejects(h.result, (e) => e.code === 'E_ABORTED');
    await model.generate([1], { maxNewTokens: 1 }).result;  // the model is free again
  });

  it('run() gives next-token predictions; nextAll adds every position with the actual token rank', async () => {
    const ids = inputs.cases[1].ids;
    const r = await model.runIds(ids, { topK: 4, nextAll: true });
    assert.equal(r.next.length, 4);
    for (let i = 1; i < 4; i++) assert.ok(r.next[i - 1].prob >= r.next[i].prob);
    assert.equal(r.nextByPosition.length, ids.length);
    r.nextByPosition.forEach(({ position, actual }) => {
      if (position + 1 < ids.length) assert.equal(actual.id, ids[position + 1]);
      else assert.equal(actual, null);
    });
    const encoder = await loadModel();  // the bundled BERT: generate is for decoders
    try {
      assert.throws(() => encoder.generate('The river', {}), (e) => e.code === 'E_INPUT' && /decoder/.test(e.message));
    } finally {
      encoder.dispose();
    }
  });
});

describe('decode', () => {
  it("equals @huggingface/tokenizers' decode on the bundled decoder, also for ids cut inside a character", async () => {
    const { Tokenizer } = await import('@huggingface/tokenizers');
    const dir = fileURLToPath(new URL('../../model-causal/', import.meta.url));
    const oracle = new Tokenizer(JSON.parse(readFileSync(join(dir, 'tokenizer.json'), 'utf8')),
      JSON.parse(readFileSync(join(dir, 'tokenizer_config.json'), 'utf8')));
    const model = await loadModel('bundled-causal');
    try {
      for (const text of ['The river, said he.', 'Hello, wörld 😀 <|endoftext|>x', '  tabs\tand\nnewlines ', '한국어 문장', "don't DON'T 1,234"]) {
        const ids = [...model.tokenize(text).ids];
        assert.equal(model.decode(ids), oracle.decode(ids), text);
        assert.equal(model.decode(ids), text);
        // Every prefix, so some end inside a multi-byte character (replacement character there).
        for (let n = 1; n < ids.length; n++) assert.equal(model.decode(ids.slice(0, n)), oracle.decode(ids.slice(0, n)), `${text} [:${n}]`);
      }
      assert.throws(() => model.decode([1e6]), (e) => e.code === 'E_INPUT');
    } finally {
      model.dispose();
    }
  });
});

describe('GPT-2 hub ids', () => {
  it('gpt2, distilgpt2 and openai-community/gpt2 load from the hub like BERT ids', async () => {
    const files = { 'config.json': configText, 'model.safetensors': new Uint8Array(weights), 'vocab.txt': vocab };
    const hub = await startMockHub({ gpt2: files, distilgpt2: files, 'openai-community/gpt2': files });
    try {
      for (const id of ['gpt2', 'distilgpt2', 'openai-community/gpt2']) {
        const model = await loadModel(id, { hubUrl: hub.url });
        try {
          assert.equal(model.info.id, id);
          assert.equal(model.info.kind, 'decoder');
          const r = await model.generate(inputs.greedy.prompt, { maxNewTokens: 2, temperature: 0 }).result;
          assert.deepEqual([...r.ids], inputs.greedy.ids.slice(0, inputs.greedy.prompt.length + 2));
        } finally {
          model.dispose();
        }
      }
      assert.ok(hub.requests.some((r) => r.startsWith('/gpt2/resolve/main/model.safetensors')));
    } finally {
      await hub.close();
    }
  });
});

describe('generation through the worker client', () => {
  it('streams the same steps as the API; a signal stops it', async () => {
    const client = createWorkerClient();
    try {
      await client.load(source());
      const { prompt, ids } = inputs.greedy;
      const steps = [];
      const r = await client.generate(prompt, { maxNewTokens: ids.length - prompt.length, temperature: 0, stopAtEos: false, onToken: (s) => steps.push(s) });
      assert.deepEqual([...r.ids], ids);
      assert.deepEqual(steps.map((s) => s.id), ids.slice(prompt.length));
      assert.ok(steps.every((s) => s.attention instanceof Float32Array && s.attention.length === 12 * s.keys));
      const controller = new AbortController();
      let count = 0;
      await assert.rejects(client.generate(prompt, {
        maxNewTokens: 30, stopAtEos: false, signal: controller.signal,
        onToken: () => { if (++count === 2) controller.abort(); },
      }), (e) => e.code === 'E_ABORTED');
      assert.ok(count >= 2 && count < 30, `${count} steps arrived`);
      await assert.rejects(client.generate(prompt, { temprature: 0 }), (e) => e.code === 'E_INPUT');
    } finally {
      await client.terminate();
    }
  });
});

describe('CLI on a GPT-2 folder', () => {
  let dir;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'attnscope-gpt2-'));
    cpSync(join(FIXTURE, 'config.json'), join(dir, 'config.json'));
    cpSync(join(FIXTURE, 'model.safetensors'), join(dir, 'model.safetensors'));
    writeFileSync(join(dir, 'vocab.txt'), vocab);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('run --ids writes attentions (exact zeros above the diagonal), hidden after ln_f and sorted next', async () => {
    const out = join(dir, 'f.json');
    await run(process.execPath, [CLI, 'run', '--model', dir, '--ids', inputs.cases[1].ids.join(','), '--out', out]);
    const r = JSON.parse(readFileSync(out, 'utf8'));
    const T = inputs.cases[1].ids.length;
    assert.deepEqual(r.ids, inputs.cases[1].ids);
    assert.equal(r.attentions.length, 3);
    for (const layer of r.attentions) for (const head of layer) head.forEach((row, i) => row.forEach((p, j) => { if (j > i) assert.equal(p, 0); }));
    assert.equal(r.hidden.length, T);
    assert.ok(r.next.length > 0);
    for (let i = 1; i < r.next.length; i++) assert.ok(r.next[i - 1].prob >= r.next[i].prob);
  });

  it('the bundled decoder: info gives its folder, generate writes 20 tokens offline', async () => {
    const { stdout: infoText } = await run(process.execPath, [CLI, 'info', '--model', 'bundled-causal']);
    const info = JSON.parse(infoText);
    assert.equal(info.path, fileURLToPath(new URL('../../model-causal', import.meta.url)));
    assert.equal(info.kind, 'decoder');
    assert.equal(info.config.family, 'gpt2');
    const { stdout } = await run(process.execPath, [CLI, 'generate', '--model', 'bundled-causal', '--text', 'The river',
      '--max-new-tokens', '20', '--no-stop-at-eos']);
    const r = JSON.parse(stdout);
    assert.equal(r.prompt_length, 2);
    assert.equal(r.ids.length, 22);
    assert.equal(typeof r.text, 'string');
    assert.ok(r.text.length > 0);
  });

  it('generate --temperature 0 prints the prompt and the greedy continuation', async () => {
    const { prompt, ids } = inputs.greedy;
    const { stdout } = await run(process.execPath, [CLI, 'generate', '--model', dir, '--ids', prompt.join(','),
      '--max-new-tokens', String(ids.length - prompt.length), '--temperature', '0', '--no-stop-at-eos']);
    const r = JSON.parse(stdout);
    assert.deepEqual(r.ids, ids);
    assert.equal(r.prompt_length, prompt.length);
    assert.equal(r.steps.length, ids.length - prompt.length);
    assert.equal(r.tokens.length, ids.length);
    await assert.rejects(run(process.execPath, [CLI, 'generate', '--model', dir, '--ids', '1', '--temperature', 'hot']),
      (e) => e.code === 2 && /--temperature must be a number/.test(e.stderr));
  });
});
