// The block walk-through's self-check (js/block-steps.js): recomputed from the engine's traced
// numbers and LayerNorm parameters, every residual sum and LayerNorm agrees within 1e-4 (the
// issue's bound for the page) on an encoder and a decoder; a planted error in one step shows.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { loadModel } from '../../js/index.js';
import { blockSelfChecks } from '../../js/block-steps.js';

describe('block self-checks', () => {
  for (const source of ['bundled', 'bundled-causal']) {
    it(`${source}: every recomputed step within 1e-4 of the engine; a wrong step is caught`, async () => {
      const model = await loadModel(source);
      try {
        const r = await model.run('There is a prince.', { trace: true });
        const T = r.ids.length;
        const norms = r.trace.layerNorms;
        assert.equal(norms.layers.length, model.config.numLayers);
        assert.equal(Boolean(norms.final), model.config.isDecoder);
        assert.equal(Boolean(norms.embeddings), !model.config.isDecoder);
        const expectedSteps = model.config.isDecoder ? 1 + 4 * model.config.numLayers + 1 : 2 + 4 * model.config.numLayers;
        for (let t = 0; t < T; t++) {
          const checks = blockSelfChecks(r.trace, model.config, t);
          assert.equal(checks.length, expectedSteps);
          for (const { step, maxDiff } of checks) assert.ok(maxDiff <= 1e-4, `token ${t} ${step}: ${maxDiff}`);
        }
        // Plant an error: the check of the step it feeds must see it.
        const C = model.config.hiddenSize;
        r.trace.layers[1].attentionOutput[C + 3] += 0.01;
        const planted = blockSelfChecks(r.trace, model.config, 1).find((c) => c.step === 'layers.1.attentionResidual');
        assert.ok(planted.maxDiff > 0.009, `planted error not seen: ${planted.maxDiff}`);
      } finally {
        model.dispose();
      }
    });
  }
});
