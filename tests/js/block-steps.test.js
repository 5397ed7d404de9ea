// The block walk-through's self-check (js/formats/block-steps.js): recomputed from the engine's traced
// numbers and LayerNorm parameters, every residual sum, LayerNorm and feed-forward activation
// agrees within 1e-4 (the bound for the page) on an encoder (GELU, erf) and a decoder
// (GELU, tanh); a planted error in one step shows. The activations themselves are checked against
// values from C's libm (Python's math.erf / math.tanh), not against another JavaScript formula.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { loadModel } from '../../js/index.js';
import { activationFor, blockSelfChecks, erf } from '../../js/formats/block-steps.js';

// x → erf(x), GELU-erf(x), GELU-tanh(x): printed by Python 3 (math.erf, math.tanh, float64).
const LIBM = [
  [-3, -0.9999779095030014, -0.00404969409489031, -0.0036373920817729943],
  [-1.5, -0.9661051464753108, -0.10021080190328713, -0.10042842301976707],
  [-0.2, -0.22270258921047847, -0.0841480581121794, -0.08414857021789374],
  [1e-9, 1.1283791670955127e-9, 5.000000003989423e-10, 5.000000003989423e-10],
  [0.5, 0.5204998778130465, 0.34573123063700656, 0.34571400982514394],
  [1, 0.8427007929497149, 0.8413447460685429, 0.8411919906082768],
  [2, 0.9953222650189527, 1.9544997361036416, 1.954597694087775],
  [4, 0.9999999845827421, 3.9998733150326675, 3.9999297540518075],
  [5.5, 0.9999999999999927, 5.499999895557407, 5.499999994072359],
];

describe('activations', () => {
  it('erf and the two GELUs equal libm to 1e-14; the names map as engine/blocks.cpp maps them', () => {
    const close = (got, want, what) => assert.ok(Math.abs(got - want) <= 1e-14 * Math.max(1, Math.abs(want)), `${what}: ${got} vs ${want}`);
    for (const [x, e, gErf, gTanh] of LIBM) {
      close(erf(x), e, `erf(${x})`);
      for (const name of ['gelu', 'gelu_python']) close(activationFor(name)(x), gErf, `${name}(${x})`);
      for (const name of ['gelu_new', 'gelu_pytorch_tanh', 'gelu_fast']) close(activationFor(name)(x), gTanh, `${name}(${x})`);
      assert.equal(activationFor('relu')(x), Math.max(0, x));
    }
    assert.equal(erf(0), 0);
    assert.equal(erf(6), 1);
    assert.equal(erf(-40), -1);
    assert.ok(Number.isNaN(erf(NaN)));
    // erf is odd, and the two GELUs differ where they should (≈ 1.5e-4 at x = 1).
    for (const x of [0.3, 1.7, 3.2]) assert.equal(erf(-x), -erf(x));
    assert.ok(Math.abs(activationFor('gelu')(1) - activationFor('gelu_new')(1)) > 1e-4);
  });

  it('silu / swish (the Llama gate) is x·σ(x), as Python\'s libm computes it', () => {
    // python3: x / (1 + math.exp(-x))
    for (const [x, want] of [[-3, -0.14227761953270035], [-0.5, -0.1887703343990727], [0.5, 0.3112296656009273],
      [2, 1.7615941559557646], [5.5, 5.477614242562572]]) {
      for (const name of ['silu', 'swish']) {
        assert.ok(Math.abs(activationFor(name)(x) - want) <= 1e-15 * Math.max(1, Math.abs(want)), `${name}(${x})`);
      }
    }
  });
});

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
        const expectedSteps = model.config.isDecoder ? 1 + 5 * model.config.numLayers + 1 : 2 + 5 * model.config.numLayers;
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
        // The activation check reads the pre-activation of this token's F values (not a C-wide row).
        const F = model.config.intermediateSize;
        const gelu = blockSelfChecks(r.trace, model.config, 2).filter((c) => c.step.endsWith('.ffnIntermediate'));
        assert.equal(gelu.length, model.config.numLayers);
        // The last of token 2's F values moved 10 past its activation's output: act(y + 10) ≈ y + 10
        // there (GELU and ReLU are the identity that far right), 10 away from the engine's y.
        const last = 2 * F + F - 1, { ffnPreActivation: pre, ffnIntermediate: mid } = r.trace.layers[0];
        pre[last] = mid[last] + 10;
        const wrong = blockSelfChecks(r.trace, model.config, 2).find((c) => c.step === 'layers.0.ffnIntermediate');
        assert.ok(wrong.maxDiff > 9.9, `planted activation error not seen: ${wrong.maxDiff}`);
      } finally {
        model.dispose();
      }
    });
  }
});
