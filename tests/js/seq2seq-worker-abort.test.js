// An encoder–decoder's generation in the worker stops within a step of an abort: the loop yields
// to the worker's event loop between steps, so the 'abort' message is handled while it runs. (It
// used to be read only after the last step: the client rejected at once, but the worker went on to
// the end, and the next job waited for it.) Measured against the step pace, not the clock: the
// time until the worker has run the next job, in steps of this model on this machine.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createWorkerClient } from '../../js/worker-client.js';

const MODEL_DIR = join(fileURLToPath(new URL('../..', import.meta.url)), 'model-seq2seq');
const SOURCE = 'the cat sat on the mat';
const greedy = { temperature: 0, stopAtEos: false, candidates: 0 };

describe('encoder–decoder generation in the worker', () => {
  it('an abort stops it within a step: the next job does not wait for the aborted one', async () => {
    const client = createWorkerClient();
    try {
      await client.load(MODEL_DIR, { threads: 1 });
      // The pace: one step's time, from a generation as long as the one aborted below (later steps
      // attend over more keys, so a short generation's mean would understate them).
      const aborted = 400;
      const t0 = performance.now();
      await client.generate(SOURCE, { ...greedy, maxNewTokens: aborted });
      const step = (performance.now() - t0) / aborted;

      const controller = new AbortController();
      let received = 0;
      let abortedAt = 0;
      const generation = client.generate(SOURCE, {
        ...greedy, maxNewTokens: aborted, signal: controller.signal,
        onToken: () => {
          if (++received === 2) {
            abortedAt = performance.now();
            controller.abort();
          }
        },
      });
      await assert.rejects(generation, { code: 'E_ABORTED' });
      const next = await client.generate(SOURCE, { ...greedy, maxNewTokens: 4 });
      const waited = (performance.now() - abortedAt) / step;
      assert.equal(next.steps.length, 4);
      // Without the yield the worker would first finish the ~398 steps left (≥ 398 step times);
      // with it: the step in progress, the encoder and 4 steps, plus messaging.
      assert.ok(waited < 100, `the next job finished ${waited.toFixed(1)} step times after the abort`);
    } finally {
      await client.terminate();
    }
  });
});
