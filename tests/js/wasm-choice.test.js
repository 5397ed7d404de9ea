// Which wasm build Node runs (js/platform-node.js): the relaxed-SIMD one wherever this
// Node can turn relaxed SIMD on (Node 20: V8's --experimental-wasm-relaxed-simd, set at run time),
// in the main thread, in the worker client's worker thread and in the threaded module's pthread
// workers; the plain one with ATTNSCOPE_RELAXED_SIMD=0, and the two give close results. What
// "can turn it on" means is asked of a separate Node started with the flag on its command line,
// not of the code under test.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

import { buildInfo, loadModel } from '../../js/index.js';
import { createWorkerClient } from '../../js/worker/client.js';

const INDEX = new URL('../../js/index.js', import.meta.url).href;
const TEXT = 'The river bank was flooded after the storm, so the bank moved its [MASK] up the hill.';

// f32x4.relaxed_madd(a, b, c): the same probe the platforms use, written out again here.
const PROBE = [0, 97, 115, 109, 1, 0, 0, 0, 1, 8, 1, 0x60, 3, 0x7b, 0x7b, 0x7b, 1, 0x7b, 3, 2, 1, 0, 10, 13, 1, 11,
  0, 0x20, 0, 0x20, 1, 0x20, 2, 0xfd, 0x85, 0x02, 0x0b];
const nodeHasRelaxedSimd = spawnSync(process.execPath, ['--experimental-wasm-relaxed-simd', '-p',
  `WebAssembly.validate(new Uint8Array(${JSON.stringify(PROBE)}))`], { encoding: 'utf8' }).stdout.trim() === 'true';

const bits = (a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('base64');

/** A child Node with `env` that loads the bundled model and prints its build and results. */
function child(env, { threads = 1, weightPrecision = 'f32' } = {}) {
  const script = `
    import { loadModel, buildInfo } from ${JSON.stringify(INDEX)};
    const model = await loadModel('bundled', { threads: ${threads}, weightPrecision: '${weightPrecision}' });
    const r = await model.run(${JSON.stringify(TEXT)});
    const b = await buildInfo({ threads: ${threads} });
    console.log(JSON.stringify({ relaxedSimd: b.relaxedSimd, threads: b.threads, hidden: Array.from(r.hidden),
      attentions: Array.from(r.attentions) }));`;
  const out = spawnSync(process.execPath, ['--input-type=module', '-e', script],
    { encoding: 'utf8', timeout: 120000, env: { ...process.env, ...env } });
  assert.equal(out.status, 0, out.stderr);
  return JSON.parse(out.stdout);
}

const maxAbsDiff = (a, b) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);

describe('the wasm build Node runs', () => {
  it('is the relaxed-SIMD one where this Node can enable relaxed SIMD, plain and threaded', async () => {
    assert.equal((await buildInfo({ threads: 1 })).relaxedSimd, nodeHasRelaxedSimd);
    const threaded = await buildInfo({ threads: 2 });
    assert.equal(threaded.threads, true);
    assert.equal(threaded.relaxedSimd, nodeHasRelaxedSimd);
  });

  it('is the same in the worker client\'s worker thread and on two threads (same bits as here)', async () => {
    const here = await loadModel('bundled', { threads: 1, weightPrecision: 'q8' });
    const expected = await here.run(TEXT);
    here.dispose();
    const client = createWorkerClient();
    try {
      for (const threads of [1, 2]) {
        await client.load('bundled', { threads, weightPrecision: 'q8' });
        const inWorker = await client.run(TEXT);
        assert.equal(bits(inWorker.hidden), bits(expected.hidden), `${threads} thread(s) in the worker`);
        assert.equal(bits(inWorker.attentions), bits(expected.attentions), `${threads} thread(s) in the worker`);
      }
    } finally {
      await client.terminate();
    }
  });

  it('ATTNSCOPE_RELAXED_SIMD=0 keeps the plain build, close to the relaxed one (f32) and not equal to it (q8)', async () => {
    for (const threads of [1, 2]) {
      const plain = child({ ATTNSCOPE_RELAXED_SIMD: '0' }, { threads });
      assert.equal(plain.relaxedSimd, false);
      assert.equal(plain.threads, threads > 1);
      const chosen = child({}, { threads });
      assert.equal(chosen.relaxedSimd, nodeHasRelaxedSimd);
      // f32: FMA rounds once where mul + add rounds twice; nothing else differs.
      assert.ok(maxAbsDiff(plain.hidden, chosen.hidden) < 1e-3, `hidden ${maxAbsDiff(plain.hidden, chosen.hidden)}`);
      assert.ok(maxAbsDiff(plain.attentions, chosen.attentions) < 1e-4);
    }
    if (!nodeHasRelaxedSimd) return;
    // q8: the relaxed build quantizes activations to [0, 127], the plain one to [0, 255]; the
    // results differ, so each side really ran its own build, and stay close.
    const plain = child({ ATTNSCOPE_RELAXED_SIMD: '0' }, { weightPrecision: 'q8' });
    const relaxed = child({}, { weightPrecision: 'q8' });
    assert.ok(maxAbsDiff(plain.hidden, relaxed.hidden) > 0);
    assert.ok(maxAbsDiff(plain.attentions, relaxed.attentions) < 0.1);
  });
});
