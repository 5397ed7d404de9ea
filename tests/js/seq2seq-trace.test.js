// The decoder trace of the encoder-decoder families (runIds(…, { trace: true }).decoderTrace: what
// the Block view walks a target token through — self-attention, cross-attention and feed-forward,
// each with its Add & Norm) through the WASM API and the worker, against the float64 PyTorch
// intermediates of tests/fixtures/make_seq2seq_trace_fixtures.py: the same steps (no more, no
// fewer, per family), each within 1e-4 of the reference (activations; the golden tests' hidden
// tolerance is 1e-3). Tracing changes nothing else (bit-identical attentions and hidden), and a
// reader can recompute each Add and Norm from the trace and its norms (as js/formats/block-steps.js does
// for the other families) and each head's Σ α·v from the attentions and the values.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { loadModel } from '../../js/index.js';
import { createWorkerClient } from '../../js/worker/client.js';
import { readSafetensors } from './helpers/safetensors.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/seq2seq/', import.meta.url));
const TRACES = fileURLToPath(new URL('../fixtures/seq2seq_trace/', import.meta.url));
const models = readFileSync(join(FIXTURES, 'models.txt'), 'utf8').split('\n').filter(Boolean);
const TOLERANCE = 1e-4;

const fixture = (name) => {
  const dir = join(FIXTURES, name);
  const config = readFileSync(join(dir, 'config.json'), 'utf8');
  const V = JSON.parse(config).vocab_size;
  return {
    config, weights: readFileSync(join(dir, 'model.safetensors')),
    vocab: `${Array.from({ length: V }, (_, i) => ['[PAD]', '[UNK]', '[CLS]', '[SEP]'][i] ?? `w${i}`).join('\n')}\n`,  // token names only
    inputs: JSON.parse(readFileSync(join(dir, 'inputs.json'), 'utf8')),
    reference: readSafetensors(join(TRACES, `${name}.safetensors`)),
  };
};

const maxError = (got, want) => {
  assert.equal(got.length, want.length);
  let m = 0;
  for (let i = 0; i < got.length; i++) m = Math.max(m, Math.abs(got[i] - want[i]));
  return m;
};

// The norms as the families define them: LayerNorm (β present) or T5's RMSNorm, per row of C.
function normRows(x, { gamma, beta }, C, eps) {
  const out = new Float32Array(x.length);
  for (let r = 0; r < x.length / C; r++) {
    const row = x.subarray(r * C, (r + 1) * C);
    const mean = beta ? row.reduce((a, b) => a + b, 0) / C : 0;
    const variance = row.reduce((a, b) => a + (b - mean) ** 2, 0) / C;
    for (let c = 0; c < C; c++) out[r * C + c] = ((row[c] - mean) / Math.sqrt(variance + eps)) * gamma[c] + (beta ? beta[c] : 0);
  }
  return out;
}

const add = (a, b) => a.map((x, i) => x + b[i]);

describe('encoder-decoder decoder trace', () => {
  for (const name of models) {
    it(`${name}: every step equals the float64 reference; Add & Norm and Σαv recomputable`, async (test) => {
      const f = fixture(name);
      const model = await loadModel({ config: f.config, weights: f.weights, vocab: f.vocab }, { threads: 1 });
      try {
        const options = { targetIds: f.inputs.target_ids };
        const plain = await model.runIds(f.inputs.source_ids, options);
        const r = await model.runIds(f.inputs.source_ids, { ...options, trace: true });
        assert.equal(plain.decoderTrace, undefined);
        for (const key of ['encoderAttentions', 'decoderAttentions', 'crossAttentions', 'hidden']) assert.deepEqual(r[key], plain[key], key);
        const t = r.decoderTrace, ref = f.reference, c = model.config;
        const C = c.hiddenSize, [L, H, T, S] = r.crossShape, W = H * c.decoderHeadDim;

        // The same steps as the reference, no more and no fewer.
        const ours = new Set(['embeddings', ...(t.finalNorm ? ['finalNorm'] : [])]);
        t.layers.forEach((layer, l) => Object.keys(layer).forEach((k) => ours.add(`layers.${l}.${k}`)));
        const isContext = (key) => /Context$/.test(key);  // Σαv: the reader's, checked below
        assert.deepEqual([...ours].sort(), Object.keys(ref).filter((k) => !isContext(k)).sort());
        let worst = 0;
        for (const key of ours) {
          const [, l, step] = key.split('.');
          const got = key === 'embeddings' ? t.embeddings : key === 'finalNorm' ? t.finalNorm : t.layers[Number(l)][step];
          const err = maxError(got, ref[key].data);
          assert.ok(err <= TOLERANCE, `${key}: max error ${err}`);
          worst = Math.max(worst, err);
        }
        assert.ok(maxError(t.finalNorm ?? t.layers[L - 1].output, r.hidden) === 0, 'the trace ends in hidden');

        // Each Add and each Norm from the trace's own numbers and norms.
        const eps = c.layerNormEps;
        let input = t.embeddings;
        t.layers.forEach((y, l) => {
          const n = t.norms.layers[l];
          let x = input;
          for (const [kind, norm] of [['selfAttention', n.selfAttention], ['crossAttention', n.crossAttention]]) {
            if (y[`${kind}InputNorm`]) assert.ok(maxError(normRows(x, norm, C, eps), y[`${kind}InputNorm`]) <= 1e-5, `${l} ${kind} input norm`);
            assert.ok(maxError(add(x, y[`${kind}Output`]), y[`${kind}Residual`]) <= 1e-5, `${l} ${kind} add`);
            x = y[`${kind}Residual`];
            if (y[`${kind}Norm`]) {
              assert.ok(maxError(normRows(x, norm, C, eps), y[`${kind}Norm`]) <= 1e-5, `${l} ${kind} norm`);
              x = y[`${kind}Norm`];
            }
          }
          if (y.ffnInputNorm) assert.ok(maxError(normRows(x, n.ffn, C, eps), y.ffnInputNorm) <= 1e-5, `${l} ffn input norm`);
          assert.ok(maxError(add(x, y.ffnOutput), y.ffnResidual) <= 1e-5, `${l} ffn add`);
          const out = y.ffnInputNorm ? y.ffnResidual : normRows(y.ffnResidual, n.ffn, C, eps);
          assert.ok(maxError(out, y.output) <= 1e-5, `${l} output`);
          if (t.norms.final && l === L - 1) assert.ok(maxError(normRows(y.output, t.norms.final, C, eps), t.finalNorm) <= 1e-5, 'final norm');
          input = y.output;
          // Each head's Σ α·v from the run's attentions and the trace's values ([keys][H·dh], head h
          // at columns h·dh…) equals the reference's context, for both attentions.
          const dh = c.decoderHeadDim;
          for (const [probs, values, keys, kind] of [[r.decoderAttentions, y.selfValues, T, 'self'], [r.crossAttentions, y.crossValues, S, 'cross']]) {
            assert.equal(values.length, keys * W);
            const ctx = new Float32Array(T * W);
            for (let h = 0; h < H; h++) {
              for (let i = 0; i < T; i++) {
                for (let j = 0; j < keys; j++) {
                  const a = probs[((l * H + h) * T + i) * keys + j];
                  for (let d = 0; d < dh; d++) ctx[i * W + h * dh + d] += a * values[j * W + h * dh + d];
                }
              }
            }
            const err = maxError(ctx, ref[`layers.${l}.${kind}Context`].data);
            assert.ok(err <= TOLERANCE, `${l} ${kind} Σαv: max error ${err}`);
          }
        });
        test.diagnostic(`${name}: ${ours.size} traced arrays, max error ${worst.toExponential(2)}`);
      } finally {
        model.dispose();
      }
    });
  }

  it('through the worker: runSeq2SeqIds passes trace and returns the same trace', async () => {
    const f = fixture('t5_relu_tied_f32');
    const client = createWorkerClient();
    const source = { config: f.config, weights: f.weights, vocab: f.vocab };
    const model = await loadModel(source, { threads: 1 });
    try {
      await client.load(source, { threads: 1 });
      const options = { targetIds: f.inputs.target_ids, trace: true };
      const [viaWorker, direct] = [await client.runSeq2SeqIds(f.inputs.source_ids, options), await model.runIds(f.inputs.source_ids, options)];
      assert.equal(viaWorker.decoderTrace.layers.length, direct.decoderTrace.layers.length);
      viaWorker.decoderTrace.layers.forEach((layer, l) => {
        for (const [key, value] of Object.entries(direct.decoderTrace.layers[l])) assert.deepEqual([...layer[key]], [...value], key);
      });
      await assert.rejects(client.runSeq2SeqIds(f.inputs.source_ids, { trace: 'yes' }), (e) => e.code === 'E_INPUT' && /trace/.test(e.message));
    } finally {
      model.dispose();
      await client.terminate();
    }
  });
});
