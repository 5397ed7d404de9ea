// Generation in the worker stops within a step of an abort, for every family: the one generation
// loop (js/analysis/generate.js) yields to the worker's event loop between steps, so the 'abort' message is
// handled while it runs. (An encoder–decoder's used to read it only after its last step: the client
// rejected at once, but the worker went on to the end, and the next job waited for it.) Counted in
// the worker's own steps: the client hands every step the worker posts to onToken until the
// worker's answer arrives, so `received` is what the worker produced.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createWorkerClient } from '../../js/worker/client.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FAMILIES = [
  ['encoder–decoder', join(ROOT, 'model-seq2seq'), 'the cat sat on the mat'],
  ['decoder', join(ROOT, 'model-causal'), 'the cat sat on'],
];
const greedy = { temperature: 0, stopAtEos: false, candidates: 0 };
const LONG = 200;  // steps an aborted generation would run without the yield

// The worst of a few client → worker → client round trips (a tokenize job), in ms: how long an
// abort message may take to reach the worker on this machine now.
async function roundTrip(client) {
  let worst = 0;
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    await client.tokenize('the');
    worst = Math.max(worst, performance.now() - t0);
  }
  return worst;
}

describe('generation in the worker', () => {
  for (const [family, folder, prompt] of FAMILIES) {
    it(`${family}: an abort after step k stops the worker after step k + 1 (plus the steps a message takes to arrive)`, async () => {
      const client = createWorkerClient();
      try {
        await client.load(folder, { threads: 1 });
        // The step pace: one step's time over a generation as long as the ones aborted below.
        const t0 = performance.now();
        await client.generate(prompt, { ...greedy, maxNewTokens: 20 });
        const step = (performance.now() - t0) / 20;
        for (const k of [1, 3]) {
          // A loaded machine can hold a message back for many steps now and then: the bound is
          // tried up to five times (without the yield every try produces all LONG steps). The round
          // trip is measured before each try only: after an abort that did not reach the loop it
          // would wait for the whole generation and excuse it.
          const tries = [];
          for (let attempt = 0; attempt < 5; attempt++) {
            const lag = Math.ceil((await roundTrip(client)) / step);
            const controller = new AbortController();
            let received = 0;
            const generation = client.generate(prompt, {
              ...greedy, maxNewTokens: LONG, signal: controller.signal,
              onToken: () => { if (++received === k) controller.abort(); },
            });
            await assert.rejects(generation, { code: 'E_ABORTED' });
            tries.push({ received, lag });
            if (received <= k + 1 + lag) break;
          }
          const best = tries[tries.length - 1];
          assert.ok(best.received <= k + 1 + best.lag, `aborted after step ${k}: the worker produced ` +
            `${tries.map((t) => `${t.received} steps (a round trip: ${t.lag} steps)`).join(', ')}; a step ${step.toFixed(2)} ms`);
        }
        // The worker is free at once: the next job runs.
        const next = await client.generate(prompt, { ...greedy, maxNewTokens: 2 });
        assert.equal(next.steps.length, 2);
      } finally {
        await client.terminate();
      }
    });
  }
});
