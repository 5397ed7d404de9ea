// Every bad argument to the API and the worker client is refused with an AttnScopeError carrying
// one of ERROR_CODES, never a plain Error, a silently different input or a stalled queue:
// originalIds outside the vocabulary (was a plain Error from the engine's idToToken), ids the
// worker client used to coerce (Array.from made "101,102" the ids 1, 0, 1, 1, 0, 2 and 5 an empty
// input), and an argument postMessage cannot clone (left the job active, so every later job waited
// forever).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { AttnScopeError, ERROR_CODES, loadModel } from '../../js/index.js';
import { createWorkerClient } from '../../js/worker/client.js';

let encoder, decoder, client;

before(async () => {
  [encoder, decoder] = await Promise.all([loadModel('bundled'), loadModel('bundled-causal')]);
  client = createWorkerClient();
  await client.load('bundled');
});
after(async () => {
  encoder?.dispose();
  decoder?.dispose();
  await client?.terminate();
});

const typed = (code, pattern) => (error) => {
  assert.ok(error instanceof AttnScopeError, `a ${error?.constructor?.name}, not an AttnScopeError: ${error?.message}`);
  assert.equal(error.code, code, error.message);
  if (pattern) assert.match(error.message, pattern);
  return true;
};

// Settles within `ms` or fails (a stalled worker queue would otherwise hang the test).
const within = (promise, ms, what) => Promise.race([promise,
  new Promise((_, reject) => setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms).unref())]);

describe('originalIds', () => {
  const V = 8000;  // the bundled BERT's vocab_size
  const ids = [2, 4, 3];  // [CLS] [MASK] [SEP]

  it('an id outside the vocabulary is E_INPUT naming it, in the thread and through the worker', async () => {
    for (const bad of [99999, V, -5]) {
      const pattern = new RegExp(`originalIds\\[1\\] = ${bad} is not a token id of this model \\(0 to ${V - 1}\\)`);
      await assert.rejects(encoder.runIds(ids, { originalIds: [2, bad, 3] }), typed('E_INPUT', pattern), String(bad));
      await assert.rejects(client.runIds(ids, { originalIds: [2, bad, 3] }), typed('E_INPUT', pattern), String(bad));
    }
    // Refused before the run whatever the model kind (a decoder does not use them).
    await assert.rejects(decoder.runIds([5, 6, 7], { originalIds: [5, 99999, 7] }), typed('E_INPUT', /originalIds\[1\]/));
  });

  it('an id inside the vocabulary gives the original token its probability and rank', async () => {
    const r = await encoder.runIds(ids, { originalIds: [2, V - 1, 3] });
    const [prediction] = r.maskPredictions;
    assert.equal(prediction.actual.id, V - 1);
    assert.ok(prediction.actual.rank >= 1 && prediction.actual.prob >= 0 && prediction.actual.prob <= 1);
  });
});

describe('worker client arguments', () => {
  it('ids that are not an array of integers are refused as in the thread, not coerced', async () => {
    for (const ids of ['101,102', 5, undefined, null, { length: 3 }]) {
      await assert.rejects(within(client.runIds(ids), 10000, String(ids)), typed('E_INPUT', /ids must be an array of integers/), String(ids));
      await assert.rejects(encoder.runIds(ids), typed('E_INPUT', /ids must be an array of integers/), String(ids));
    }
    // Any iterable of integers still goes (a typed array, a Set).
    const fromSet = await client.runIds(new Set([2, 5, 3]));
    assert.deepEqual([...fromSet.ids], [2, 5, 3]);
  });

  it('an argument postMessage cannot clone is E_INPUT, and the jobs after it still run', async () => {
    const notCloneable = [{ textPair: () => 'a function' }, { textPair: Symbol('s') }, { headMask: [[new WeakMap()]] }];
    for (const options of notCloneable) {
      const refused = client.run('the cat', options);
      const next = client.run('the cat sat');
      await assert.rejects(within(refused, 10000, 'the refused job'), typed('E_INPUT', /cannot be sent to the worker/));
      const r = await within(next, 10000, 'the job after it');
      assert.equal(r.tokens.length, 5);
    }
    await assert.rejects(within(client.load(Symbol('model')), 10000, 'load'), typed('E_INPUT', /cannot be sent to the worker/));
  });
});

describe('callbacks that throw, in the thread', () => {
  // The caller's callback failed, not AttnScope: E_INPUT with the exception as cause (it was
  // E_INTERNAL, "a bug: please report it", for a load, and the bare exception for a generation).
  it('loadModel onProgress and generate onToken', async () => {
    const mine = new Error('my progress bar broke');
    await assert.rejects(loadModel('bundled', { onProgress: () => { throw mine; } }), (error) => {
      typed('E_INPUT', /^loadModel: onProgress threw: my progress bar broke$/)(error);
      assert.equal(error.cause, mine);
      return true;
    });
    const generation = decoder.generate('the', { maxNewTokens: 5, onToken: () => { throw mine; } });
    await assert.rejects(generation.result, (error) => {
      typed('E_INPUT', /^generate: onToken threw: my progress bar broke$/)(error);
      assert.equal(error.cause, mine);
      return true;
    });
    assert.equal((await decoder.generate('the', { maxNewTokens: 2, stopAtEos: false }).result).steps.length, 2);
  });
});

describe('worker client callbacks', () => {
  // They run in the worker's message event: a callback that was not a function, or that threw,
  // was an uncaught exception that ended the process.
  it('an onProgress or onToken that is not a function is E_INPUT; one that throws fails its job only', async () => {
    const other = createWorkerClient();
    try {
      await assert.rejects(other.load('bundled', { onProgress: 5 }), typed('E_INPUT', /onProgress must be a function/));
      const mine = new Error('my progress bar broke');
      await assert.rejects(other.load('bundled', { onProgress: () => { throw mine; } }), (error) => {
        typed('E_INPUT', /load: onProgress threw: my progress bar broke/)(error);
        assert.equal(error.cause, mine);
        return true;
      });
      await other.load('bundled-causal');
      await assert.rejects(other.generate('the', { onToken: 'print' }), typed('E_INPUT', /onToken must be a function/));
      await assert.rejects(other.generate('the', { maxNewTokens: 20, stopAtEos: false, onToken: (step) => { if (step.index === 2) throw new Error('no'); } }),
        typed('E_INPUT', /generate: onToken threw: no/));
      // The worker and its queue are intact: the next generation runs to its end.
      const next = await within(other.generate('the', { maxNewTokens: 3, stopAtEos: false }), 10000, 'the next generation');
      assert.equal(next.steps.length, 3);
      await assert.rejects(other.corpus(['the cat sat'], { onProgress: 5 }), typed('E_INPUT', /onProgress must be a function/));
    } finally {
      await other.terminate();
    }
  });
});

describe('signal', () => {
  // Anything but an AbortSignal could never abort: the caller would believe they can cancel. The
  // worker client threw a TypeError ("signal?.addEventListener is not a function").
  const notSignals = [5, 'abort', {}, { aborted: false }, true];

  it('a signal that is not an AbortSignal is E_INPUT, in the thread and through the worker', async () => {
    for (const signal of notSignals) {
      const refused = typed('E_INPUT', /signal must be an AbortSignal/);
      await assert.rejects(loadModel('bundled', { signal }), refused, String(signal));
      assert.throws(() => decoder.generate('the', { signal }), refused, String(signal));
      await assert.rejects(within(client.run('the cat', { signal }), 10000, 'run'), refused, String(signal));
      await assert.rejects(within(client.load('bundled', { signal }), 10000, 'load'), refused, String(signal));
    }
    // A real one, and none at all, still go.
    assert.equal((await client.run('the cat', { signal: new AbortController().signal, replacePending: true })).tokens.length, 4);
    assert.equal((await client.run('the cat', { signal: null })).tokens.length, 4);
  });
});

describe('every refusal is an AttnScopeError with a known code', () => {
  // [call, model] pairs a hostile caller might make; each must throw or reject typed.
  const calls = {
    'run(123)': (m) => m.run(123),
    'run options null': (m) => m.run('x', null),
    'run maxLength -1': (m) => m.run('x', { maxLength: -1 }),
    'run unknown option': (m) => m.run('x', { topk: 3 }),
    'run topK 1.5': (m) => m.run('x', { topK: 1.5 }),
    'run logitLens 0': (m) => m.run('x', { logitLens: 0 }),
    'run attribution tokenId out of range': (m) => m.run('x', { attribution: { tokenId: 99999 } }),
    'run attribution position out of range': (m) => m.run('x', { attribution: { position: 999 } }),
    'run reuse {}': (m) => m.run('x', { reuse: {} }),
    'runIds null': (m) => m.runIds(null),
    'runIds 1e10': (m) => m.runIds([1e10]),
    'runIds 0.5': (m) => m.runIds([0.5]),
    'runIds 99999': (m) => m.runIds([99999]),
    'runIds -1': (m) => m.runIds([-1]),
    'runIds attentionMask too short': (m) => m.runIds([2, 3], { attentionMask: [1] }),
    'runIds tokenTypes out of range': (m) => m.runIds([2, 3], { tokenTypes: [5, 5] }),
    'tokenize Symbol': (m) => m.tokenize(Symbol('x')),
    'tokenize textPair 5': (m) => m.tokenize('x', { textPair: 5 }),
    'decode 99999': (m) => m.decode([99999]),
    'decode a string': (m) => m.decode('abc'),
    'idToToken 99999': (m) => m.idToToken(99999),
    'idToToken "a"': (m) => m.idToToken('a'),
    'tokenToId 5': (m) => m.tokenToId(5),
    'generate maxNewTokens -1': (m) => m.generate('x', { maxNewTokens: -1 }).result,
    'generate temperature NaN': (m) => m.generate('x', { temperature: NaN }).result,
    'generate topP 2': (m) => m.generate('x', { topP: 2 }).result,
    'generate prompt 99999': (m) => m.generate([99999]).result,
    'generate prompt {}': (m) => m.generate({}).result,
    'generate onToken 5': (m) => m.generate('x', { onToken: 5 }).result,
  };
  for (const [label, model] of [['encoder', () => encoder], ['decoder', () => decoder]]) {
    it(`${label}: each hostile call`, async () => {
      for (const [name, call] of Object.entries(calls)) {
        let error = null;
        try {
          await call(model());
        } catch (e) {
          error = e;
        }
        if (error === null) continue;  // some calls are fine for one kind (an encoder's topK, a decoder's generate)
        assert.ok(error instanceof AttnScopeError && ERROR_CODES.includes(error.code),
          `${label} ${name}: ${error?.constructor?.name} ${error?.code}: ${error?.message}`);
      }
    });
  }
});
