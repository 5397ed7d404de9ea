// The WASM build, driven through the public API (loadModel + runIds), against the engine golden
// fixtures: outputs of an independent float64 PyTorch forward pass (tests/fixtures/engine/README.md).
// Tolerances (max abs error): attentions 1e-4; hidden states, Q/K/V, value norms 1e-3; the
// masked-LM and next-token probabilities (softmax of the reference logits) 1e-3. Decoders also:
// greedy generation equals the reference's greedy ids, and each streamed step's attention row equals
// the full forward's row (≤ 1e-5). Prints the max errors per dtype.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { loadModel } from '../../js/index.js';
import { softmax } from './helpers/api-reference.js';
import { readSafetensors } from './helpers/safetensors.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/engine/', import.meta.url));
const TOLERANCE = { trace: 1e-3, attentions: 1e-4, hidden_out: 1e-3, hidden_states: 1e-3, q: 1e-3, k: 1e-3, v: 1e-3, value_norms: 1e-3, mlm_probs: 1e-3, next_probs: 1e-3, step_rows: 1e-5 };
// fixture tensor name → RunResult field
const FIELDS = { attentions: 'attentions', hidden_out: 'hidden', hidden_states: 'hiddenStates', q: 'q', k: 'k', v: 'v', value_norms: 'valueNorms' };
const worst = {}; // dtype → quantity → max error


const snake = (name) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const concat = (arrays) => {
  const out = new Float32Array(arrays.reduce((n, a) => n + a.length, 0));
  let at = 0;
  for (const a of arrays) { out.set(a, at); at += a.length; }
  return out;
};

/** Largest error and the (index tuple) where it happens, for a useful failure message. */
function compare(got, expected, shape) {
  assert.equal(got.length, expected.length, `length ${got.length} vs ${expected.length}`);
  let max = 0;
  let at = 0;
  for (let i = 0; i < got.length; i++) {
    const d = Math.abs(got[i] - expected[i]);
    if (!(d <= max)) { max = d; at = i; }
  }
  const index = [];
  let rest = at;
  for (let d = shape.length - 1; d >= 0; d--) { index.unshift(rest % shape[d]); rest = Math.floor(rest / shape[d]); }
  return { max, where: `[${index.join(', ')}] expected ${expected[at]} got ${got[at]}` };
}

// The fixtures ship no vocabulary: any V distinct tokens will do for runIds. The token at
// `maskId` is named [MASK] so the API reports masked-LM predictions at those positions.
function vocabFor(size, maskId) {
  const names = Array.from({ length: size }, (_, i) => `w${i}`);
  const free = names.map((_, i) => i).filter((i) => i !== maskId);
  ['[PAD]', '[UNK]', '[CLS]', '[SEP]'].forEach((t, j) => { names[free[j]] = t; });
  names[maskId] = '[MASK]';
  return `${names.join('\n')}\n`;
}

const models = existsSync(FIXTURES) ? readdirSync(FIXTURES).filter((d) => existsSync(join(FIXTURES, d, 'inputs.json'))) : [];

describe('engine golden fixtures through the WASM API', () => {
  // models.txt is the list make_engine_fixtures.py writes with the checkpoints: every one of them
  // must be here (a test that silently ran on fewer would pass), and nothing else.
  it('finds every fixture the fixture script lists', () => {
    const listed = readFileSync(join(FIXTURES, 'models.txt'), 'utf8').split('\n').filter(Boolean);
    assert.deepEqual([...models].sort(), [...listed].sort());
  });

  for (const name of models) {
    const dir = join(FIXTURES, name);
    const inputs = JSON.parse(readFileSync(join(dir, 'inputs.json'), 'utf8'));
    const config = readFileSync(join(dir, 'config.json'), 'utf8');
    const weights = readFileSync(join(dir, 'model.safetensors'));
    const vocabSize = JSON.parse(config).vocab_size;
    for (const testCase of inputs.cases) {
      it(`${name} / ${testCase.name} (${inputs.dtype})`, async () => {
        const expected = readSafetensors(join(dir, testCase.expected));
        const maskPosition = Math.floor(testCase.ids.length / 2);
        const maskId = testCase.ids[maskPosition];
        const model = await loadModel({ config, weights, vocab: vocabFor(vocabSize, maskId) });
        try {
          assert.equal(model.info.hasMlmHead, inputs.has_mlm_head);
          const result = await model.runIds(testCase.ids, {
            tokenTypes: testCase.token_types, attentionMask: testCase.attention_mask,
            hiddenStates: true, qkv: true, valueNorms: true, trace: true, topK: vocabSize,
            ...(inputs.is_decoder ? { nextAll: true } : {}),
            ...(testCase.head_mask ? { headMask: testCase.head_mask } : {}),
          });
          if (testCase.head_mask) assert.deepEqual([...result.headMask], testCase.head_mask.flat());
          else assert.equal(result.headMask, undefined);
          const errors = (worst[inputs.dtype] ??= {});
          for (const [tensor, field] of Object.entries(FIELDS)) {
            assert.ok(expected[tensor], `the fixture ${testCase.expected} has no "${tensor}"`);
            const { max, where } = compare(result[field], expected[tensor].data, expected[tensor].shape);
            errors[tensor] = Math.max(errors[tensor] ?? 0, max);
            assert.ok(max <= TOLERANCE[tensor], `${tensor}: max error ${max} at ${where}`);
          }
          // The trace: each step against the reference (fixture names trace_<step>, stacked over layers).
          const traced = { ...Object.fromEntries(Object.entries(result.trace.embeddings).map(([k, v]) => [`embeddings_${snake(k)}`, v])) };
          for (const step of Object.keys(result.trace.layers[0])) {
            traced[snake(step)] = concat(result.trace.layers.map((layer) => layer[step]));
          }
          if (result.trace.finalNorm) traced.final_norm = result.trace.finalNorm;
          const expectedSteps = Object.keys(expected).filter((n) => n.startsWith('trace_')).map((n) => n.slice(6));
          assert.deepEqual(Object.keys(traced).sort(), expectedSteps.sort(), 'the trace has exactly the reference\'s steps');
          for (const step of expectedSteps) {
            const { max, where } = compare(traced[step], expected[`trace_${step}`].data, expected[`trace_${step}`].shape);
            errors.trace = Math.max(errors.trace ?? 0, max);
            assert.ok(max <= TOLERANCE.trace, `trace ${step}: max error ${max} at ${where}`);
          }
          if (inputs.has_mlm_head) {
            const logits = expected.mlm_logits.data;
            const positions = testCase.ids.flatMap((id, i) => (id === maskId ? [i] : []));
            assert.deepEqual(result.maskPredictions.map((p) => p.position), positions);
            for (const prediction of result.maskPredictions) {
              const probs = softmax(Array.from(logits.subarray(prediction.position * vocabSize, (prediction.position + 1) * vocabSize)));
              assert.equal(prediction.top.length, vocabSize);
              let max = 0;
              for (const { id, prob } of prediction.top) max = Math.max(max, Math.abs(prob - probs[id]));
              errors.mlm_probs = Math.max(errors.mlm_probs ?? 0, max);
              assert.ok(max <= TOLERANCE.mlm_probs, `MLM probabilities at ${prediction.position}: max error ${max}`);
            }
          } else {
            assert.equal(result.maskPredictions, undefined);
          }
          if (inputs.is_decoder) {
            const T = testCase.ids.length;
            const [L, H] = result.shape;
            for (let lh = 0; lh < L * H; lh++) {
              for (let i = 0; i < T; i++) {
                for (let j = i + 1; j < T; j++) assert.equal(result.attentions[(lh * T + i) * T + j], 0, `causal mask at [${lh}][${i}][${j}]`);
              }
            }
            const logits = expected.logits.data;
            assert.equal(result.nextByPosition.length, T);
            for (const { position, top, actual } of result.nextByPosition) {
              const probs = softmax(Array.from(logits.subarray(position * vocabSize, (position + 1) * vocabSize)));
              let max = 0;
              for (const { id, prob } of top) max = Math.max(max, Math.abs(prob - probs[id]));
              if (actual) max = Math.max(max, Math.abs(actual.prob - probs[actual.id]));
              errors.next_probs = Math.max(errors.next_probs ?? 0, max);
              assert.ok(max <= TOLERANCE.next_probs, `next-token probabilities at ${position}: max error ${max}`);
              if (actual) assert.equal(actual.rank, probs.filter((p, id) => p > probs[actual.id] || (p === probs[actual.id] && id < actual.id)).length);
            }
            assert.deepEqual(result.next, result.nextByPosition[T - 1].top);
          }
        } finally {
          model.dispose();
        }
      });
    }
  }

  for (const name of models) {
    const dir = join(FIXTURES, name);
    const inputs = JSON.parse(readFileSync(join(dir, 'inputs.json'), 'utf8'));
    if (!inputs.is_decoder) continue;
    it(`${name}: greedy generation equals the reference; streamed rows equal a full forward`, async () => {
      const config = readFileSync(join(dir, 'config.json'), 'utf8');
      const vocabSize = JSON.parse(config).vocab_size;
      const model = await loadModel({ config, weights: readFileSync(join(dir, 'model.safetensors')), vocab: vocabFor(vocabSize, 0) });
      try {
        const { prompt, ids: expected } = inputs.greedy;
        const generation = model.generate(prompt, { maxNewTokens: expected.length - prompt.length, temperature: 0, stopAtEos: false });
        const rows = [];
        for await (const step of generation) rows.push(step);
        const r = await generation.result;
        assert.deepEqual([...r.ids], expected);
        assert.equal(r.promptLength, prompt.length);
        assert.equal(r.steps.length, expected.length - prompt.length);
        // Each step's attention row (the new token as the query) against a full forward over it all.
        const full = await model.runIds(r.ids);
        const [L, H, T] = full.shape;
        let max = 0;
        for (const step of rows) {
          assert.equal(step.keys, step.position + 1);
          for (let lh = 0; lh < L * H; lh++) {
            for (let j = 0; j < step.keys; j++) {
              max = Math.max(max, Math.abs(step.attention[lh * step.keys + j] - full.attentions[(lh * T + step.position) * T + j]));
            }
          }
        }
        (worst[inputs.dtype] ??= {}).step_rows = Math.max(worst[inputs.dtype].step_rows ?? 0, max);
        assert.ok(max <= TOLERANCE.step_rows, `streamed attention rows differ from a full forward by ${max}`);
      } finally {
        model.dispose();
      }
    });
  }

  after(() => {
    for (const [dtype, errors] of Object.entries(worst)) {
      console.log(`# max abs error ${dtype}: ${Object.entries(errors).map(([k, v]) => `${k} ${v.toExponential(2)}`).join(', ')}`);
    }
  });
});
