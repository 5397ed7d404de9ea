// js/formats/block-steps.js seq2seqSelfChecks, the checks the encoder–decoder Block view shows beside each
// Add & Norm: on every encoder–decoder golden fixture (BART, Marian, T5 relu and gated; F32, F16,
// BF16) it names the steps each family has (T5: a norm before each sublayer and a final norm;
// BART, Marian: a norm after each Add), in the order a token meets them. Applied to the float64
// PyTorch intermediates of tests/fixtures/make_seq2seq_trace_fixtures.py (not the engine's), every
// check agrees to float32 rounding, so its formulas are the architectures'; applied to the engine's
// trace, every check is ≤ 1e-4; and an error put into one traced step is reported at that step.
// The encoder's walk likewise on the engine's encoderTrace (its steps, ≤ 1e-4, a planted error).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { loadModel } from '../../js/index.js';
import { seq2seqSelfChecks } from '../../js/formats/block-steps.js';
import { readSafetensors } from './helpers/safetensors.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/seq2seq/', import.meta.url));
const TRACES = fileURLToPath(new URL('../fixtures/seq2seq_trace/', import.meta.url));
const models = readFileSync(join(FIXTURES, 'models.txt'), 'utf8').split('\n').filter(Boolean);

async function open(name) {
  const dir = join(FIXTURES, name);
  const config = readFileSync(join(dir, 'config.json'), 'utf8');
  const V = JSON.parse(config).vocab_size;
  const vocab = `${Array.from({ length: V }, (_, i) => ['[PAD]', '[UNK]', '[CLS]', '[SEP]'][i] ?? `w${i}`).join('\n')}\n`;
  const model = await loadModel({ config, weights: readFileSync(join(dir, 'model.safetensors')), vocab }, { threads: 1 });
  const inputs = JSON.parse(readFileSync(join(dir, 'inputs.json'), 'utf8'));
  const run = await model.runIds(inputs.source_ids, { targetIds: inputs.target_ids, trace: true });
  return { model, hf: JSON.parse(config), run, reference: readSafetensors(join(TRACES, `${name}.safetensors`)) };
}

// The reference's intermediates in the decoderTrace's shape, with the engine's norm parameters
// (γ, β: the checkpoint's own numbers, which the engine only copies).
function referenceTrace(reference, engineTrace) {
  const get = (key) => reference[key]?.data;
  return {
    embeddings: get('embeddings'),
    finalNorm: get('finalNorm'),
    norms: engineTrace.norms,
    layers: engineTrace.layers.map((layer, l) => Object.fromEntries(Object.keys(layer).map((k) => [k, get(`layers.${l}.${k}`)]))),
  };
}

const expectedSteps = (L, t5, gated) => {
  const steps = [];
  for (let l = 0; l < L; l++) {
    for (const sub of ['selfAttention', 'crossAttention']) {
      steps.push(...(t5 ? [`${sub}InputNorm`, `${sub}Residual`] : [`${sub}Residual`, `${sub}Norm`]).map((s) => `layers.${l}.${s}`));
    }
    if (t5) steps.push(`layers.${l}.ffnInputNorm`);
    if (!gated) steps.push(`layers.${l}.ffnIntermediate`);
    steps.push(`layers.${l}.ffnResidual`, `layers.${l}.output`);
  }
  return t5 ? [...steps, 'finalNorm'] : steps;
};

describe('seq2seqSelfChecks (the encoder–decoder Block view\'s checks)', () => {
  for (const name of models) {
    it(`${name}: the family's steps; PyTorch's intermediates pass; the engine's ≤ 1e-4; an error is caught where it is`, async (t) => {
      const { model, hf, run, reference } = await open(name);
      try {
        const c = model.config;
        const t5 = hf.model_type === 't5';
        assert.equal(c.gatedFfn, t5 && hf.feed_forward_proj.startsWith('gated-'));
        const T = run.targetIds.length;
        let worstTorch = 0, worstEngine = 0;
        for (let token = 0; token < T; token++) {
          const engine = seq2seqSelfChecks(run.decoderTrace, c, token);
          assert.deepEqual(engine.map((x) => x.step), expectedSteps(c.decoderLayers, t5, c.gatedFfn));
          for (const { step, maxDiff } of engine) {
            assert.ok(maxDiff <= 1e-4, `engine ${step} at ${token}: ${maxDiff}`);
            worstEngine = Math.max(worstEngine, maxDiff);
          }
          // PyTorch's own numbers satisfy every check to float32 rounding of values up to ~10.
          for (const { step, maxDiff } of seq2seqSelfChecks(referenceTrace(reference, run.decoderTrace), c, token)) {
            assert.ok(maxDiff <= 1e-5, `PyTorch ${step} at ${token}: ${maxDiff}`);
            worstTorch = Math.max(worstTorch, maxDiff);
          }
        }
        // 0.01 added to one number of one traced step: that step's check (and the next one, which
        // reads it) reports it; the others do not move.
        const C = c.hiddenSize, token = T - 1, l = c.decoderLayers - 1;
        const step = t5 ? 'crossAttentionResidual' : 'crossAttentionNorm';
        const before = seq2seqSelfChecks(run.decoderTrace, c, token);
        run.decoderTrace.layers[l][step][token * C + 3] += 0.01;
        const after = seq2seqSelfChecks(run.decoderTrace, c, token);
        const moved = after.filter((x, n) => Math.abs(x.maxDiff - before[n].maxDiff) > 1e-6).map((x) => x.step);
        assert.equal(moved[0], `layers.${l}.${step}`);
        assert.ok(after.find((x) => x.step === `layers.${l}.${step}`).maxDiff >= 0.0099);
        // The encoder's walk (no cross-attention sublayer) on its own trace: its steps, each ≤ 1e-4 at
        // every source position, and an error put into one step caught there.
        const S = run.sourceIds.length, Le = c.encoderLayers;
        const encoderSteps = expectedSteps(Le, t5, c.gatedFfn).filter((x) => !x.includes('crossAttention'));
        let worstEncoder = 0;
        for (let token = 0; token < S; token++) {
          const checks = seq2seqSelfChecks(run.encoderTrace, c, token, 'encoder');
          assert.deepEqual(checks.map((x) => x.step), encoderSteps);
          for (const { step, maxDiff } of checks) {
            assert.ok(maxDiff <= 1e-4, `engine encoder ${step} at ${token}: ${maxDiff}`);
            worstEncoder = Math.max(worstEncoder, maxDiff);
          }
        }
        run.encoderTrace.layers[0].selfAttentionResidual[(S - 1) * C + 5] += 0.01;
        const planted = seq2seqSelfChecks(run.encoderTrace, c, S - 1, 'encoder').find((x) => x.step === 'layers.0.selfAttentionResidual');
        assert.ok(planted.maxDiff >= 0.0099, `planted encoder error not seen: ${planted.maxDiff}`);
        t.diagnostic(`${name}: checks on PyTorch's trace ≤ ${worstTorch.toExponential(1)}, on the engine's ≤ ${worstEngine.toExponential(1)}` +
          ` (encoder ≤ ${worstEncoder.toExponential(1)})`);
      } finally {
        model.dispose();
      }
    });
  }
});
