// Options are never dropped silently in the in-thread API: a name loadModel, run, runIds or
// tokenize does not accept (a typo such as weightPrecison) rejects with E_INPUT naming it; an
// option set to undefined counts as absent. The worker client's side is in worker.test.js.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { loadModel } from 'attnscope';
import { writeTinyBert } from './helpers/api-tiny-model.js';

const work = mkdtempSync(join(tmpdir(), 'attnscope-options-'));
const tiny = writeTinyBert(join(work, 'tiny'), { seed: 3 });
let model;
before(async () => { model = await loadModel(tiny); });
after(() => {
  model?.dispose();
  rmSync(work, { recursive: true, force: true });
});

describe('unknown option names', () => {
  it('loadModel', async () => {
    await assert.rejects(loadModel(tiny, { weightPrecison: 'f16' }), { code: 'E_INPUT', message: /"weightPrecison"/ });
    const m = await loadModel(tiny, { weightPrecision: 'f16', revision: undefined });
    assert.equal(m.info.weightPrecision, 'f16');
    m.dispose();
  });
  it('run, runIds, tokenize', async () => {
    await assert.rejects(model.run('the bank', { textpair: 'a cat' }), { code: 'E_INPUT', message: /run: unknown option "textpair"/ });
    await assert.rejects(model.run('the bank', { qkv: true, topk: 1, hiddenstates: true }), { code: 'E_INPUT', message: /"topk", "hiddenstates"/ });
    await assert.rejects(model.runIds([2, 5, 3], { textPair: 'x' }), { code: 'E_INPUT', message: /runIds: unknown option "textPair"/ });
    assert.throws(() => model.tokenize('the bank', { qkv: true }), { code: 'E_INPUT', message: /tokenize: unknown option "qkv"/ });
  });
  it('accepted names, and undefined values, still work', async () => {
    const r = await model.run('the bank', { textPair: 'a cat', maxLength: undefined, qkv: true, topK: 0 });
    assert.deepEqual(r.tokens, ['[CLS]', 'the', 'bank', '[SEP]', 'a', 'cat', '[SEP]']);
    assert.ok(r.q);
    const ids = await model.runIds([2, 5, 3], { tokenTypes: [0, 0, 0], maxLength: undefined });
    assert.deepEqual(ids.tokens, ['[CLS]', 'the', '[SEP]']);
    assert.equal(model.tokenize('the bank', { maxLength: 3 }).tokens.length, 3);
  });
});
