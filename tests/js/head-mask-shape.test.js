// headMask's shape and types, through run, runIds and the worker client: a ragged mask (rows of
// different lengths that happen to add up to L·H), the wrong number of rows or heads, rows or
// values that are not numbers (null would have read as 0, '1' as 1) are E_INPUT naming what is
// wrong; non-finite numbers are the engine's E_INPUT naming layer and head. A well-formed mask in
// either shape ([L][H] or L·H flat) still runs.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { AttnScopeError, loadModel } from '../../js/index.js';
import { createWorkerClient } from '../../js/worker/client.js';

let model, client, L, H;

before(async () => {
  model = await loadModel('bundled');
  ({ numLayers: L, numHeads: H } = model.config);
  client = createWorkerClient();
  await client.load('bundled');
});
after(async () => {
  model?.dispose();
  await client?.terminate();
});

const ones = () => Array.from({ length: L }, () => new Array(H).fill(1));

// [mask, what the message must say]
function badMasks() {
  const ragged = ones();
  ragged[0].push(1);      // L·H values in all, but row 0 one too long and row 1 one too short
  ragged[1].pop();
  const nullValue = ones();
  nullValue[1][0] = null;
  const stringValue = ones();
  stringValue[0][1] = '0';
  const objectRow = ones();
  objectRow[1] = { length: H };
  const mixed = [...ones().slice(1), 1];  // L-1 rows and a loose number
  return [
    [ragged, /row 0 has 5 values/],
    [ones().slice(1), new RegExp(`got ${L - 1} rows`)],
    [[...ones(), new Array(H).fill(1)], new RegExp(`got ${L + 1} rows`)],
    [ones().map((row) => row.slice(1)), /row 0 has 3 values/],
    [nullValue, /headMask\[1\]\[0\] must be a number, got null/],
    [stringValue, /headMask\[0\]\[1\] must be a number, got "0"/],
    [objectRow, /row 1 is \{"length":4\}/],
    [mixed, new RegExp(`row ${L - 1} is 1`)],
    [new Array(L * H - 1).fill(1), new RegExp(`got ${L * H - 1} values`)],
    [[...new Array(L * H - 1).fill(1), undefined], new RegExp(`headMask\\[${L * H - 1}\\] must be a number, got undefined`)],
    [[], /got 0 values/],
    ['1111', /got "1111"/],
    [{ 0: [1] }, /headMask must be/],
    [new DataView(new ArrayBuffer(4 * L * H)), /headMask must be/],
  ];
}

const refusal = (pattern) => (error) => {
  assert.ok(error instanceof AttnScopeError, `not an AttnScopeError: ${error}`);
  assert.equal(error.code, 'E_INPUT', error.message);
  assert.match(error.message, pattern);
  return true;
};

describe('headMask shape', () => {
  it('the bundled model has the 4 × 4 heads these cases are written for', () => {
    assert.deepEqual([L, H], [4, 4]);
  });

  it('run and runIds refuse each malformed mask by what is wrong', async () => {
    for (const [mask, pattern] of badMasks()) {
      await assert.rejects(model.run('the cat sat', { headMask: mask }), refusal(pattern), String(pattern));
      await assert.rejects(model.runIds([2, 5, 3], { headMask: mask }), refusal(pattern), String(pattern));
    }
  });

  it('the worker client refuses the same masks the same way', async () => {
    for (const [mask, pattern] of badMasks()) {
      await assert.rejects(client.run('the cat sat', { headMask: mask }), refusal(pattern), String(pattern));
    }
  });

  it('non-finite values are refused naming layer and head', async () => {
    for (const value of [NaN, Infinity, -Infinity]) {
      const mask = ones();
      mask[2][3] = value;
      await assert.rejects(model.run('the cat sat', { headMask: mask }), refusal(/layer 2 head 3 is not a finite number/));
      await assert.rejects(client.run('the cat sat', { headMask: mask }), refusal(/layer 2 head 3 is not a finite number/));
    }
  });

  it('well-formed masks run: nested arrays, typed rows, a flat array or a Float32Array, with the same result', async () => {
    const nested = ones();
    nested[1][2] = 0;
    const flat = nested.flat();
    const results = [
      await model.run('the cat sat', { headMask: nested }),
      await model.run('the cat sat', { headMask: nested.map((row) => Float32Array.from(row)) }),
      await model.run('the cat sat', { headMask: flat }),
      await model.run('the cat sat', { headMask: Float32Array.from(flat) }),
      await client.run('the cat sat', { headMask: nested }),
    ];
    for (const r of results) {
      assert.deepEqual([...r.headMask], flat);
      assert.deepEqual([...r.hidden], [...results[0].hidden]);
    }
    const intact = await model.run('the cat sat');
    assert.notDeepEqual([...intact.hidden], [...results[0].hidden], 'switching head 1:2 off changed nothing');
  });
});
