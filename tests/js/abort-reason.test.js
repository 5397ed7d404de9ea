// An abort's reason (AbortController.abort(reason)) is kept in the E_ABORTED error: its text in
// the message ("cancelled: <reason>") and the reason itself as `cause`, for a load, a generation
// and a run, in the thread and through the worker client (whose worker only hears "abort").
// A signal aborted without a reason still says just "cancelled".
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { AttnScopeError, loadModel } from '../../js/index.js';
import { createWorkerClient } from '../../js/worker/client.js';

const keepsReason = (reason, text) => (error) => {
  assert.ok(error instanceof AttnScopeError, `${error?.constructor?.name}: ${error?.message}`);
  assert.equal(error.code, 'E_ABORTED', error.message);
  assert.equal(error.message, `cancelled: ${text}`);
  assert.equal(error.cause, reason);
  return true;
};

const REASONS = [['the user left', 'the user left'], [new Error('a newer text came'), 'a newer text came']];

describe('in the thread', () => {
  let decoder;
  before(async () => { decoder = await loadModel('bundled-causal'); });
  after(() => decoder?.dispose());

  it('generate: the reason of an abort between two steps', async () => {
    for (const [reason, text] of REASONS) {
      const controller = new AbortController();
      const generation = decoder.generate('the cat', {
        maxNewTokens: 50, stopAtEos: false, signal: controller.signal,
        onToken: (step) => { if (step.index === 1) controller.abort(reason); },
      });
      await assert.rejects(generation.result, keepsReason(reason, text));
    }
  });

  it('loadModel: the reason of an abort during the download', async () => {
    for (const [reason, text] of REASONS) {
      const controller = new AbortController();
      await assert.rejects(loadModel('bundled', {
        signal: controller.signal, onProgress: ({ file }) => { if (file === 'model.safetensors') controller.abort(reason); },
      }), keepsReason(reason, text));
    }
  });

  it('an abort without a reason says "cancelled", with the platform\'s AbortError as cause', async () => {
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(loadModel('bundled', { signal: controller.signal }), (error) => {
      assert.equal(error.code, 'E_ABORTED');
      assert.equal(error.message, 'cancelled');
      assert.equal(error.cause, controller.signal.reason);
      return true;
    });
  });
});

describe('through the worker client', () => {
  let client;
  before(() => { client = createWorkerClient(); });
  after(() => client?.terminate());

  it('load: the reason of an abort during the download', async () => {
    for (const [reason, text] of REASONS) {
      const controller = new AbortController();
      await assert.rejects(client.load('bundled', {
        signal: controller.signal, onProgress: ({ file }) => { if (file === 'model.safetensors') controller.abort(reason); },
      }), keepsReason(reason, text));
    }
  });

  it('generate: the reason of an abort while the worker generates', async () => {
    await client.load('bundled-causal');
    for (const [reason, text] of REASONS) {
      const controller = new AbortController();
      await assert.rejects(client.generate('the cat', {
        maxNewTokens: 50, stopAtEos: false, signal: controller.signal,
        onToken: (step) => { if (step.index === 1) controller.abort(reason); },
      }), keepsReason(reason, text));
    }
  });

  it('run: the reason of an abort while queued, or before the call', async () => {
    for (const [reason, text] of REASONS) {
      const controller = new AbortController();
      const running = client.run('the cat sat on the mat');
      const queued = client.run('the dog', { signal: controller.signal });
      controller.abort(reason);
      await assert.rejects(queued, keepsReason(reason, text));
      await running;
      await assert.rejects(client.run('the dog', { signal: AbortSignal.abort(reason) }), keepsReason(reason, text));
    }
  });
});
