// Threads through the API, the worker client and the CLI: a model on two threads gives the same
// bits as on one (attentions, hidden states, Q/K/V, value norms, the block trace, head masks,
// generation; encoders, decoders and encoder–decoders), the threaded module really splits the work, C++ errors keep their codes there, bad
// thread counts are refused, and where SharedArrayBuffer is missing the model falls back to one
// thread by itself.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { buildInfo, loadModel } from '../../js/index.js';
import { createWorkerClient } from '../../js/worker/client.js';
import { getWasmModule } from '../../js/api/wasm.js';

const CLI = fileURLToPath(new URL('../../js/cli/cli.js', import.meta.url));
const INDEX = new URL('../../js/index.js', import.meta.url).href;
const work = mkdtempSync(join(tmpdir(), 'attnscope-threads-'));
after(() => rmSync(work, { recursive: true, force: true }));

const TEXT = 'The river bank was flooded after the storm, so the bank moved its office up the hill. '.repeat(3);

/** Every typed array in `a` equals the one at the same path in `b`, bit for bit. */
function assertSameBits(a, b, path = 'result') {
  if (ArrayBuffer.isView(a)) {
    assert.ok(ArrayBuffer.isView(b), `${path}: not an array on both sides`);
    assert.equal(a.length, b.length, `${path}: lengths differ`);
    assert.ok(Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength)),
      `${path}: bits differ`);
  } else if (Array.isArray(a)) {
    assert.equal(a.length, b.length, `${path}: lengths differ`);
    a.forEach((x, i) => assertSameBits(x, b[i], `${path}[${i}]`));
  } else if (a && typeof a === 'object') {
    for (const key of Object.keys(a)) assertSameBits(a[key], b[key], `${path}.${key}`);
  } else {
    assert.deepEqual(a, b, path);
  }
}

describe('threads', () => {
  it('defaults to the cores in Node, and says how many it uses', async () => {
    const model = await loadModel('bundled');
    assert.equal(model.info.threads, Math.min(availableParallelism(), 16));
    model.dispose();
    const one = await loadModel('bundled', { threads: 1 });
    assert.equal(one.info.threads, 1);
    one.dispose();
  });

  it('an encoder gives the same bits on 1 and 2 threads, and the work really is split', async () => {
    const one = await loadModel('bundled', { threads: 1 });
    const two = await loadModel('bundled', { threads: 2 });
    assert.equal(two.info.threads, 2);
    const threaded = await getWasmModule({ threads: 2 });
    const options = { hiddenStates: true, qkv: true, valueNorms: true, trace: true, topK: 5 };
    const a = await one.run(TEXT, options);
    const splitBefore = threaded.splitJobs();
    const b = await two.run(TEXT, options);
    assert.ok(threaded.splitJobs() > splitBefore + 4, 'the threaded run split its GEMMs and heads');
    assert.equal(a.attentions.length, one.config.numLayers * one.config.numHeads * a.tokens.length ** 2);
    assertSameBits({ ...a }, { ...b });
    // Heads switched off (the probe view's ablation) and masked-LM predictions too.
    const L = one.config.numLayers, H = one.config.numHeads;
    const headMask = Array.from({ length: L }, (_, l) => Array.from({ length: H }, (_, h) => Number((l + h) % 3 !== 0)));
    assertSameBits({ ...(await one.run(`${TEXT} The [MASK] was closed.`, { headMask })) },
      { ...(await two.run(`${TEXT} The [MASK] was closed.`, { headMask })) });
    one.dispose();
    two.dispose();
  });

  it('int8 weights: the same bits on 1 and 2 threads (Q, K and V as one job over their panels), the work split', async () => {
    const one = await loadModel('bundled', { threads: 1, weightPrecision: 'q8' });
    const two = await loadModel('bundled', { threads: 2, weightPrecision: 'q8' });
    const threaded = await getWasmModule({ threads: 2 });
    const options = { hiddenStates: true, qkv: true, valueNorms: true, trace: true, topK: 5 };
    const a = await one.run(TEXT, options);
    const splitBefore = threaded.splitJobs();
    const b = await two.run(TEXT, options);
    assert.ok(threaded.splitJobs() > splitBefore + 4, 'the threaded run split its int8 GEMMs');
    assertSameBits({ ...a }, { ...b });
    one.dispose();
    two.dispose();
  });

  it('a decoder generates the same tokens, probabilities and attention rows on 1 and 2 threads, its steps split', async () => {
    const runs = [];
    const threaded = await getWasmModule({ threads: 2 });
    for (const threads of [1, 2]) {
      const model = await loadModel('bundled-causal', { threads });
      assert.equal(model.info.threads, threads);
      const prefill = await model.run(TEXT, { nextAll: true });
      const splitBefore = threaded.splitJobs();
      const generation = model.generate('The river', { maxNewTokens: 12, temperature: 0, stopAtEos: false });
      const result = await generation.result;
      // A step reads its weights once (one row): the jobs split by the bytes they read, so even
      // this small model's step splits (its 4096 × 128 head: 1 MB of f16).
      if (threads === 2) assert.ok(threaded.splitJobs() >= splitBefore + 12, 'every generated token split work');
      runs.push({ prefill: { ...prefill }, steps: result.steps.map((s) => ({ ...s })), ids: result.ids });
      model.dispose();
    }
    assert.equal(runs[0].steps.length, 12);
    assertSameBits(runs[0], runs[1]);
  });

  it('an encoder–decoder gives the same bits on 1 and 2 threads (run and generation), the work split', async () => {
    const runs = [];
    const threaded = await getWasmModule({ threads: 2 });
    for (const threads of [1, 2]) {
      const model = await loadModel('bundled-seq2seq', { threads });
      assert.equal(model.info.threads, threads);
      const splitBefore = threaded.splitJobs();
      const run = await model.run(TEXT, { target: 'the bank its office moved', trace: true, qkv: true, logits: true });
      const generation = await model.generate(TEXT, { maxNewTokens: 8, temperature: 0, stopAtEos: false });
      if (threads === 2) assert.ok(threaded.splitJobs() > splitBefore + 4, 'the threaded run split its GEMMs and heads');
      runs.push({ run: { ...run }, steps: generation.steps.map((s) => ({ ...s })), ids: generation.ids });
      model.dispose();
    }
    assert.equal(runs[0].steps.length, 8);
    assertSameBits(runs[0], runs[1]);
  });

  it('C++ errors keep their codes in the threaded module', async () => {
    const dir = join(work, 'bad-config');
    rmSync(dir, { recursive: true, force: true });
    spawnSync('mkdir', ['-p', dir]);
    writeFileSync(join(dir, 'config.json'), '{"model_type": "bert"');
    await assert.rejects(loadModel(dir, { threads: 2 }), { code: 'E_CONFIG' });
    const threaded = await getWasmModule({ threads: 2 });
    assert.throws(() => threaded.parseConfig('{"model_type": "bert"}'), (e) => e.code === 'E_CONFIG' && /vocab_size/.test(e.message));
  });

  it('refuses thread counts that are not positive integers', async () => {
    for (const threads of [0, -1, 1.5, '2', Infinity, 1000]) {
      await assert.rejects(loadModel('bundled', { threads }), { code: 'E_INPUT', message: /threads must be an integer/ });
    }
  });

  it('asks beyond the pool get what the pool has', async () => {
    const model = await loadModel('bundled', { threads: 200 });
    const { maxThreads } = await buildInfo({ threads: 2 });
    assert.ok(maxThreads >= 2);
    assert.equal(model.info.threads, maxThreads);
    model.dispose();
  });

  it('the worker client passes threads on (pthreads inside a worker thread)', async () => {
    const client = createWorkerClient();
    try {
      const info = await client.load('bundled', { threads: 2 });
      assert.equal(info.threads, 2);
      const inWorker = await client.run(TEXT);
      const here = await loadModel('bundled', { threads: 1 });
      assertSameBits((await here.run(TEXT)).attentions, inWorker.attentions);
      here.dispose();
    } finally {
      await client.terminate();
    }
  });

  it('falls back to one thread where SharedArrayBuffer is missing, with the same bits', async () => {
    const script = `
      import { loadModel, buildInfo } from ${JSON.stringify(INDEX)};
      const model = await loadModel('bundled', { threads: 2 });
      const r = await model.run(${JSON.stringify(TEXT)});
      const build = await buildInfo({ threads: 2 });
      console.log(JSON.stringify({ sab: typeof SharedArrayBuffer, threads: model.info.threads, build: build.threads,
        attentions: Buffer.from(r.attentions.buffer, r.attentions.byteOffset, r.attentions.byteLength).toString('base64') }));`;
    const child = spawnSync(process.execPath, ['--no-harmony-sharedarraybuffer', '--input-type=module', '-e', script],
      { encoding: 'utf8', timeout: 60000 });
    assert.equal(child.status, 0, child.stderr);
    const out = JSON.parse(child.stdout);
    assert.deepEqual([out.sab, out.threads, out.build], ['undefined', 1, false]);
    const model = await loadModel('bundled', { threads: 2 });
    const r = await model.run(TEXT);
    assert.equal(Buffer.from(r.attentions.buffer, r.attentions.byteOffset, r.attentions.byteLength).toString('base64'), out.attentions);
    model.dispose();
  });

  it('the CLI takes --threads on every command and reports it', () => {
    const cli = (...args) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 60000 });
    const info = cli('info', '--threads', '2');
    assert.equal(info.status, 0, info.stderr);
    assert.equal(JSON.parse(info.stdout).threads, 2);
    const bench = cli('bench', '--threads', '1', '--runs', '1', '--tokens', '16');
    assert.equal(bench.status, 0, bench.stderr);
    assert.equal(JSON.parse(bench.stdout).threads, 1);
    const run1 = cli('run', '--text', 'the bank', '--threads', '1');
    const run2 = cli('run', '--text', 'the bank', '--threads', '2');
    assert.equal(run1.status, 0, run1.stderr);
    assert.equal(run1.stdout, run2.stdout);
    const generate = cli('generate', '--model', 'bundled-causal', '--text', 'The river', '--max-new-tokens', '3', '--threads', '2');
    assert.equal(generate.status, 0, generate.stderr);
    const tokenize = cli('tokenize', '--text', 'the bank', '--threads', '2');
    assert.equal(tokenize.status, 0, tokenize.stderr);
    const bad = cli('info', '--threads', 'two');
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--threads must be an integer >= 1/);
  });
});
