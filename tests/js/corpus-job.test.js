// The worker's corpus jobs (js/analysis/corpus-job.js through 'attnscope/worker'): the page's 300-sentence
// corpus sample on the bundled BERT run in the worker in time slices. Its head statistics, POS
// sums and query/key maps equal js/analysis/head-stats.js, js/analysis/pos-summary.js and js/analysis/qk-map.js computed in
// this thread on runs of an in-thread model (the main-thread path the page used before), also for
// a layer the worker did not keep and recomputes; progress, abort, a run slipping in between two
// slices, bad input; ablationEffects in the worker equals the in-thread one.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { createWorkerClient } from 'attnscope/worker';
import { loadModel } from 'attnscope';
import { headStatistics, ablationEffects } from '../../js/analysis/head-stats.js';
import { posAttention } from '../../js/analysis/pos-summary.js';
import { queryKeyMap } from '../../js/analysis/qk-map.js';

const sample = JSON.parse(readFileSync(new URL('../../web/data/corpus-sample.json', import.meta.url)));
const CLASSES = sample.classes.length;
let client, local, localRuns;

before(async () => {
  client = createWorkerClient();
  // One thread: on this shared 2-core machine two engine threads make the bundled model's short
  // runs several times slower; the numbers are the same bits on any thread count.
  await client.load('bundled', { threads: 1 });
  local = await loadModel('bundled', { threads: 1 });
  localRuns = [];
  for (const [text] of sample.sentences) localRuns.push(await local.run(text, { qkv: true, topK: 0 }));
});
after(async () => {
  await client?.terminate();
  local?.dispose();
});

function assertMapsEqual(got, want, label) {
  assert.equal(got.points.length, want.points.length, `${label}: points`);
  let worst = 0;
  for (let i = 0; i < want.points.length; i++) worst = Math.max(worst, Math.abs(got.points[i] - want.points[i]));
  assert.ok(worst <= 1e-6, `${label}: points differ by ${worst}`);
  assert.deepEqual(got.kinds, want.kinds, `${label}: kinds`);
  assert.deepEqual(got.runs, want.runs, `${label}: runs`);
  assert.deepEqual(got.positions, want.positions, `${label}: positions`);
  for (let i = 0; i < 2; i++) assert.ok(Math.abs(got.variance[i] - want.variance[i]) <= 1e-9, `${label}: variance`);
}

describe('corpus jobs in the worker', () => {
  it('corpus(): progress in slices, a run slips in between, statistics equal the in-thread modules', async () => {
    const progress = [];
    let ranBetween = null;
    const started = performance.now();
    const job = client.corpus(sample.sentences, { classes: CLASSES, onProgress: (p) => {
      progress.push(p.done);
      // A run queued after the first slice is answered before the corpus finishes.
      if (progress.length === 1) client.run('The cat sat.').then(() => { ranBetween = progress.length; });
    } });
    const summary = await job;
    const wall = performance.now() - started;
    console.log(`corpus: ${summary.sentences} sentences, ${summary.tokens} tokens in ${progress.length + 1} slices, ` +
      `worker ${summary.ms.toFixed(0)} ms, wall ${wall.toFixed(0)} ms; q/k kept: layers ${summary.qk.layers} ` +
      `(${(summary.qk.bytes / 2 ** 20).toFixed(1)} MiB, ${(summary.qk.bytesPerLayer / 2 ** 20).toFixed(1)} MiB per layer)`);
    assert.ok(progress.length >= 2, `${progress.length} progress reports`);
    for (let i = 1; i < progress.length; i++) assert.ok(progress[i] > progress[i - 1]);
    assert.ok(ranBetween !== null && ranBetween < progress.length + 1, 'the run went between two slices');
    assert.equal(summary.sentences, sample.sentences.length);   // every sentence of the sample
    assert.equal(summary.tokens, localRuns.reduce((n, r) => n + r.shape[2], 0));
    assert.deepEqual(summary.qk.layers, [0, 1, 2, 3]);
    // Same sums in the same order: the same numbers.
    assert.deepEqual(summary.headStats, headStatistics(localRuns));
    const pos = posAttention(localRuns.map((r, i) => ({ result: r, words: sample.sentences[i][1] })), CLASSES);
    assert.deepEqual(summary.pos.mass, pos.mass);
    assert.deepEqual(summary.pos.queries, pos.queries);
    summary.runs.forEach((r, i) => {
      assert.deepEqual(r.tokens, localRuns[i].tokenTexts);
      assert.deepEqual(r.offsets, localRuns[i].offsets);
    });
    assert.ok(summary.runs.some((r) => r.classes.some((c) => c >= 0)));
  });

  it('corpusMap(): every head equals queryKeyMap on the in-thread runs; only the map comes back', async () => {
    for (const [layer, head] of [[0, 1], [2, 3], [3, 0]]) {
      const started = performance.now();
      const got = await client.corpusMap(layer, head);
      const wall = performance.now() - started;
      assertMapsEqual(got, queryKeyMap(localRuns, layer, head), `${layer}:${head}`);
      assert.equal(got.rerunMs, null);
      assert.deepEqual(Object.keys(got).sort(), ['components', 'head', 'kinds', 'layer', 'points', 'positions',
        'projectionMs', 'qk', 'rerunMs', 'runs', 'variance']);
      if (layer === 0) console.log(`map ${layer}:${head}: ${got.kinds.length} points, projection ${got.projectionMs.toFixed(1)} ms in the worker, wall ${wall.toFixed(0)} ms`);
    }
  });

  it('a small q/k budget keeps fewer layers; a map of another layer re-runs the sentences and equals the in-thread map', async () => {
    const summary = await client.corpus(sample.sentences.slice(0, 60), { classes: CLASSES, qkBudgetBytes: 2.5 * 2 ** 20 });
    assert.ok(summary.qk.layers.length >= 1 && summary.qk.layers.length < 4, `kept ${summary.qk.layers}`);
    assert.ok(summary.qk.bytes <= summary.qk.budgetBytes);
    const missing = [0, 1, 2, 3].find((l) => !summary.qk.layers.includes(l));
    const progress = [];
    const got = await client.corpusMap(missing, 2, { onProgress: (p) => progress.push(p), sliceMs: 5 });
    assert.ok(got.rerunMs > 0);
    assert.ok(progress.length >= 1 && progress.every((p) => p.rerun && p.total === 60));
    assertMapsEqual(got, queryKeyMap(localRuns.slice(0, 60), missing, 2), `re-run ${missing}:2`);
    assert.ok(got.qk.layers.includes(missing) && got.qk.bytes <= got.qk.budgetBytes, `kept ${got.qk.layers}`);
    // Now kept: no second re-run.
    assert.equal((await client.corpusMap(missing, 0)).rerunMs, null);
  });

  it('abort stops a corpus job between two slices; bad input is E_INPUT; a new load drops the corpus', async () => {
    const controller = new AbortController();
    let reports = 0;
    const job = client.corpus(sample.sentences, { classes: CLASSES, sliceMs: 5, signal: controller.signal, onProgress: () => { if (++reports === 2) controller.abort(); } });
    await assert.rejects(job, { code: 'E_ABORTED' });
    assert.equal(reports, 2);
    assert.deepEqual((await client.run('still works')).shape.slice(0, 2), [4, 4]);
    for (const [call, message] of [
      [() => client.corpus([]), /non-empty array/],
      [() => client.corpus([[1, []]]), /sentence 0/],
      [() => client.corpus([['a b', [[0, 1, 0]]]]), /classes/],
      [() => client.corpus(['a'], { clases: 3 }), /unknown option "clases"/],
      [() => client.corpusMap(7, 0), /no head 7:0/],
      [() => client.corpusMap(0, 0, { sliceMs: 0 }), /sliceMs/],
      [() => client.ablationEffects(['x'], { maskEvery: 0 }), /maskEvery/],
    ]) await assert.rejects(call(), { name: 'AttnScopeError', code: 'E_INPUT', message });
    await client.load('bundled', { threads: 1 });
    await assert.rejects(client.corpusMap(0, 0), { code: 'E_INPUT', message: /run corpus\(\) first/ });
  });

  it('ablationEffects in the worker equals the in-thread ablationEffects', async () => {
    const texts = sample.sentences.slice(0, 3).map(([t]) => t);
    const progress = [];
    const got = await client.ablationEffects(texts, { maskEvery: 4, onProgress: (p) => progress.push(p), sliceMs: 20 });
    const want = await ablationEffects(local, texts, { maskEvery: 4 });
    assert.equal(got.baseline, want.baseline);
    assert.deepEqual(got.heads, want.heads);
    assert.ok(progress.length >= 2 && progress.at(-1).runs <= progress.at(-1).totalRuns);
    console.log(`ablation of 3 sentences in the worker: ${progress.at(-1).totalRuns} runs, ${got.ms.toFixed(0)} ms`);
  });
});
