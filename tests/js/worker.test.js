// 'attnscope/worker' in Node worker_threads: the same results as the in-thread API, progress
// and errors across the thread boundary, the job queue (replacePending, AbortSignal, cancel()),
// aborting a download in the worker, terminate(), and an idle client not keeping Node alive.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { createWorkerClient } from 'attnscope/worker';
import { loadModel, RunResult } from 'attnscope';
import { tinyBertFiles, writeTinyBert } from './helpers/api-tiny-model.js';
import { startMockHub } from './helpers/api-mock-hub.js';

const work = mkdtempSync(join(tmpdir(), 'attnscope-worker-'));
const tiny = writeTinyBert(join(work, 'tiny'), { seed: 5, layers: 3, heads: 2 });
let hub;
let client;

before(async () => {
  hub = await startMockHub({ 'org/slow': tinyBertFiles({ seed: 5 }), 'org/tiny': tinyBertFiles({ seed: 5 }) },
    { slowFiles: new Set(['model.safetensors']), chunkDelayMs: 50 });
  client = createWorkerClient();
});
after(async () => {
  await client?.terminate();
  await hub?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('worker client', () => {
  it('loads and runs like the in-thread API, with own (transferable) buffers', async () => {
    const info = await client.load(tiny);
    assert.equal(info.source, 'dir');
    assert.equal(info.config.numLayers, 3);
    const result = await client.run('The bank of the [MASK] river.', { textPair: 'a cat', hiddenStates: true, valueNorms: true });
    assert.ok(result instanceof RunResult);
    const local = await loadModel(tiny);
    const expected = await local.run('The bank of the [MASK] river.', { textPair: 'a cat', hiddenStates: true, valueNorms: true });
    local.dispose();
    for (const name of ['ids', 'typeIds', 'offsets', 'specialTokensMask', 'attentions', 'hidden', 'hiddenStates', 'valueNorms']) {
      assert.deepEqual(result[name], expected[name], name);
      assert.equal(result[name].buffer.byteLength, result[name].byteLength, `${name} is not its own buffer`);
    }
    assert.deepEqual(result.tokens, expected.tokens);
    assert.deepEqual(result.shape, expected.shape);
    assert.deepEqual(result.maskPredictions, expected.maskPredictions);
    assert.deepEqual(result.attention(2, 1), expected.attention(2, 1));
    const ids = await client.runIds([2, 5, 6, 3], { tokenTypes: [0, 0, 1, 1] });
    assert.deepEqual(ids.tokens, ['[CLS]', 'the', 'bank', '[SEP]']);
    const encoding = await client.tokenize('the river', { textPair: 'bank' });
    assert.deepEqual(encoding.tokens, ['[CLS]', 'the', 'river', '[SEP]', 'bank', '[SEP]']);
  });

  it('a run whose maps are on demand keeps them in the worker: heads fetched as asked, the oldest runs released', async () => {
    const own = createWorkerClient();
    const local = await loadModel(tiny);
    try {
      await own.load(tiny);
      const text = 'The bank of the river.';
      const expected = await local.run(text, { maps: 'eager' });
      const r = await own.run(text, { maps: 'on-demand', valueNorms: true });
      assert.equal(r.mapsInWorker, true);
      assert.ok(r.memoryBytes > 0);
      assert.ok(!Object.keys(r).includes('attentions'), 'the maps were posted');
      assert.throws(() => r.attentions, { code: 'E_TOO_LARGE' });
      assert.throws(() => r.attention(1, 0), { code: 'E_INPUT', message: /attentionAsync/ });
      assert.deepEqual(r.valueNorms, (await local.run(text, { valueNorms: true })).valueNorms);
      const heads = [[0, 0], [2, 1], [1, 0]];
      const maps = await r.attentionsOf(heads);
      heads.forEach(([l, h], i) => assert.deepEqual(maps[i], expected.attention(l, h), `layer ${l} head ${h}`));
      assert.deepEqual(r.attention(2, 1), expected.attention(2, 1));   // fetched: at hand
      await assert.rejects(r.attentionAsync(3, 0), { code: 'E_INPUT' });
      // An eager run is posted whole, as before.
      assert.equal((await own.run(text)).mapsInWorker, false);
      // The worker keeps two such runs: a third releases the oldest, so memory stays bounded.
      const later = [await own.run(text, { maps: 'on-demand' }), await own.run(text, { maps: 'on-demand' })];
      await assert.rejects(r.attentionAsync(0, 1), { code: 'E_DISPOSED' });
      for (const k of later) assert.deepEqual(await k.attentionAsync(0, 1), expected.attention(0, 1));
      // A release frees it in the worker at once: the next run then keeps the older one.
      later[1].release('done');
      const again = await own.run(text, { maps: 'on-demand' });
      assert.deepEqual(await later[0].attentionAsync(1, 1), expected.attention(1, 1));
      assert.deepEqual(await again.attentionAsync(1, 1), expected.attention(1, 1));
    } finally {
      local.dispose();
      await own.terminate();
    }
  });

  it('reports progress and errors with their codes', async () => {
    const events = [];
    await client.load('org/tiny', { hubUrl: hub.url, onProgress: (p) => events.push(p) });
    assert.ok(events.some((e) => e.file === 'model.safetensors' && e.loaded === e.total));
    await assert.rejects(client.load(join(work, 'missing')), { name: 'AttnScopeError', code: 'E_NOT_FOUND' });
    await assert.rejects(client.runIds([2, 999, 3]), { code: 'E_INPUT' });
    await assert.rejects(client.run(5), { code: 'E_INPUT' });
    const previous = await client.run('the bank');
    await assert.rejects(client.run('the bank', { reuse: previous }), { code: 'E_INPUT', message: /reuse/ });
    await assert.rejects(client.runIds([2, 3], { reuse: previous }), { code: 'E_INPUT', message: /reuse/ });
    // The model loaded before the failed load is still there.
    assert.equal((await client.run('the bank')).tokens.length, 4);
    await client.dispose();
    await assert.rejects(client.run('the bank'), { code: 'E_DISPOSED' });
  });

  // Each option reaches the model in the worker: the worker's answer equals the in-thread one
  // AND differs from the answer without the option (so an option dropped on the way fails).
  describe('every option passes through', () => {
    const TEXT = 'the bank of the [MASK] river .';
    let local;
    before(async () => {
      await client.load(tiny);
      local = await loadModel(tiny);
    });
    after(() => local?.dispose());
    const comparable = (r) => JSON.stringify({ ...r, ...Object.fromEntries(Object.entries(r)
      .filter(([, v]) => ArrayBuffer.isView(v)).map(([k, v]) => [k, Array.from(v)])) });
    const RUN_CASES = {
      textPair: { textPair: 'a cat' },
      maxLength: { maxLength: 5 },
      hiddenStates: { hiddenStates: true },
      qkv: { qkv: true },
      valueNorms: { valueNorms: true },
      topK: { topK: 2 },
    };
    for (const [name, options] of Object.entries(RUN_CASES)) {
      it(`run: ${name}`, async () => {
        const got = comparable(await client.run(TEXT, options));
        assert.equal(got, comparable(await local.run(TEXT, options)));
        assert.notEqual(got, comparable(await local.run(TEXT)), `${name} changes nothing: the case cannot fail`);
      });
    }
    const IDS = [2, 5, 6, 7, 4, 3];
    const IDS_CASES = { tokenTypes: { tokenTypes: [0, 0, 0, 1, 1, 1] }, attentionMask: { attentionMask: [1, 1, 0, 1, 1, 1] },
      qkv: { qkv: true }, topK: { topK: 1 } };
    for (const [name, options] of Object.entries(IDS_CASES)) {
      it(`runIds: ${name}`, async () => {
        const got = comparable(await client.runIds(IDS, options));
        assert.equal(got, comparable(await local.runIds(IDS, options)));
        assert.notEqual(got, comparable(await local.runIds(IDS)), `${name} changes nothing: the case cannot fail`);
      });
    }
    for (const [name, options] of Object.entries({ textPair: { textPair: 'a cat' }, maxLength: { maxLength: 4 } })) {
      it(`tokenize: ${name}`, async () => {
        const got = comparable(await client.tokenize(TEXT, options));
        assert.equal(got, comparable(local.tokenize(TEXT, options)));
        assert.notEqual(got, comparable(local.tokenize(TEXT)));
      });
    }
    for (const weightPrecision of ['f16', 'q8']) {
      it(`load: weightPrecision ${weightPrecision}`, async () => {
        const info = await client.load(tiny, { weightPrecision });
        assert.equal(info.weightPrecision, weightPrecision);
        const same = await loadModel(tiny, { weightPrecision });
        try {
          assert.equal(comparable(await client.run(TEXT)), comparable(await same.run(TEXT)));
        } finally {
          same.dispose();
        }
        assert.notEqual(comparable(await client.run(TEXT)), comparable(await local.run(TEXT)));
        await client.load(tiny);
      });
    }
    it('load: hubUrl and revision', async () => {
      const before = hub.requests.length;
      const info = await client.load('org/tiny', { hubUrl: hub.url, revision: 'v2' });
      assert.equal(info.id, 'org/tiny');
      const asked = hub.requests.slice(before);
      assert.ok(asked.length && asked.every((r) => r.startsWith('/org/tiny/resolve/v2/')), asked.join(' '));
      await client.load(tiny);
    });
    it('unknown options reject with E_INPUT naming them', async () => {
      await assert.rejects(client.load(tiny, { weightPrecison: 'f16' }), { code: 'E_INPUT', message: /"weightPrecison"/ });
      await assert.rejects(client.run('x', { textpair: 'y', topk: 1 }), { code: 'E_INPUT', message: /"textpair", "topk"/ });
      await assert.rejects(client.runIds([2, 3], { textPair: 'y' }), { code: 'E_INPUT', message: /"textPair"/ });
      await assert.rejects(client.tokenize('x', { qkv: true }), { code: 'E_INPUT', message: /"qkv"/ });
      await assert.rejects(client.run('x', null), { code: 'E_INPUT' });
      assert.equal((await client.run('the bank')).tokens.length, 4, 'the worker still answers');
    });
  });

  it('a newer run with replacePending cancels the queued ones; signals and cancel() too', async () => {
    await client.load(tiny);
    const runs = ['the', 'the bank', 'the bank of', 'the bank of the'].map((text) => client.run(text));
    const latest = client.run('the river', { replacePending: true });
    const outcomes = await Promise.allSettled([...runs, latest]);
    assert.equal(outcomes[0].status, 'fulfilled'); // already in the worker
    for (const o of outcomes.slice(1, 4)) assert.equal(o.reason?.code, 'E_ABORTED');
    assert.deepEqual(outcomes[4].value.tokens, ['[CLS]', 'the', 'river', '[SEP]']);

    const controller = new AbortController();
    const first = client.run('the cat');
    const queued = client.run('the mat', { signal: controller.signal });
    controller.abort();
    await assert.rejects(queued, { code: 'E_ABORTED' });
    assert.equal((await first).tokens.length, 4);
    await assert.rejects(client.run('x', { signal: AbortSignal.abort() }), { code: 'E_ABORTED' });

    const a = client.run('a');
    const b = client.run('b');
    const c = client.tokenize('c');
    client.cancel();
    const settled = await Promise.allSettled([a, b, c]);
    assert.equal(settled[0].status, 'fulfilled');
    assert.equal(settled[1].reason.code, 'E_ABORTED');
    assert.equal(settled[2].reason.code, 'E_ABORTED');
  });

  it('an AbortSignal interrupts a download running in the worker', { timeout: 60000 }, async () => {
    const controller = new AbortController();
    let loaded = 0;
    const loading = client.load('org/slow', {
      hubUrl: hub.url,
      signal: controller.signal,
      onProgress: (p) => {
        if (p.file !== 'model.safetensors') return;
        loaded = p.loaded;
        if (p.loaded >= 2048) controller.abort();
      },
    });
    await assert.rejects(loading, { code: 'E_ABORTED' });
    // Stopped mid-download (the slow hub sends 1 KB at a time), not once the file was in.
    const size = tinyBertFiles({ seed: 5 })['model.safetensors'].length;
    assert.ok(loaded < size, `read ${loaded} bytes of ${size} before stopping`);
    assert.equal((await client.run('the bank')).tokens.length, 4, 'the previous model is kept');
  });

  it('terminate() rejects pending and later calls', async () => {
    const other = createWorkerClient();
    await other.load(tiny);
    const pending = Promise.allSettled([other.run('the bank'), other.run('the river')]);
    await other.terminate();
    for (const outcome of await pending) assert.equal(outcome.reason?.code, 'E_DISPOSED');
    await assert.rejects(other.run('x'), { code: 'E_DISPOSED' });
  });

  it('an idle client that was never terminated does not keep Node running', () => {
    const script = `
      import { createWorkerClient } from 'attnscope/worker';
      const client = createWorkerClient();
      await client.load(${JSON.stringify(tiny)});
      const r = await client.run('the bank');
      console.log(r.tokens.length);`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: process.cwd(), timeout: 30000, encoding: 'utf8' });
    assert.equal(child.status, 0, child.stderr);
    assert.equal(child.stdout.trim(), '4');
  });
});
