// The Llama family (llama, mistral, qwen2, qwen3) through the WASM build: the public API (runIds,
// generate, f16 weights), the worker client and the CLI, against the independent float64 PyTorch
// reference of tests/fixtures/make_llama_fixtures.py. Tolerances (max abs error): attentions 1e-4;
// hidden states, Q/K/V, value norms and next-token probabilities 1e-3; greedy ids equal; each
// streamed step's attention row equals a full forward's row (≤ 1e-5). Bad configs are refused with
// E_CONFIG naming the key.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { loadModel } from '../../js/index.js';
import { parameterCounts } from '../../js/api/memory-estimate.js';
import { createWorkerClient } from '../../js/worker/client.js';
import { softmax } from './helpers/api-reference.js';
import { readSafetensors } from './helpers/safetensors.js';
import { maxError, readFixture } from './helpers/fixture-folder.js';

const run = promisify(execFile);
const CLI = fileURLToPath(new URL('../../js/cli/cli.js', import.meta.url));
const FIXTURES = fileURLToPath(new URL('../fixtures/llama/', import.meta.url));
const TOLERANCE = { attentions: 1e-4, hidden_out: 1e-3, hidden_states: 1e-3, q: 1e-3, k: 1e-3, v: 1e-3, value_norms: 1e-3, next_probs: 1e-3, step_rows: 1e-5 };
const FIELDS = { attentions: 'attentions', hidden_out: 'hidden', hidden_states: 'hiddenStates', q: 'q', k: 'k', v: 'v', value_norms: 'valueNorms' };
const models = existsSync(FIXTURES) ? readdirSync(FIXTURES).filter((d) => existsSync(join(FIXTURES, d, 'inputs.json'))).sort() : [];
const worst = {};

const fixture = (name) => readFixture(join(FIXTURES, name));

describe('Llama-family golden fixtures through the WASM API', () => {
  it('finds the fixtures', () => assert.ok(models.length >= 5, `only ${models.length} fixtures in ${FIXTURES}`));

  for (const name of models) {
    // f16 matrices hold an F16 / BF16 file's values exactly (an F32 file's would be rounded: no
    // golden comparison), so those files run with both precisions.
    const precisions = fixture(name).inputs.dtype === 'F32' ? ['f32'] : ['f32', 'f16'];
    for (const precision of precisions) {
      it(`${name}: every case (${precision} weights)`, async () => {
        const f = fixture(name);
        const model = await loadModel({ config: f.config, weights: f.weights, vocab: f.vocab }, { weightPrecision: precision });
        try {
          const c = model.config;
          assert.equal(model.info.kind, 'decoder');
          assert.equal(c.family, 'llama');
          const kv = JSON.parse(f.config).num_key_value_heads;
          assert.equal(c.numKeyValueHeads, kv);
          assert.deepEqual(c.kvHeads, Array.from({ length: c.numHeads }, (_, h) => Math.floor(h / (c.numHeads / kv))));
          for (const testCase of f.inputs.cases) {
            const expected = readSafetensors(join(f.dir, testCase.expected));
            const result = await model.runIds(testCase.ids, {
              attentionMask: testCase.attention_mask, hiddenStates: true, qkv: true, valueNorms: true, topK: f.V, nextAll: true,
            });
            const T = testCase.ids.length;
            assert.deepEqual(result.shape, [c.numLayers, c.numHeads, T, T]);
            assert.deepEqual(result.kvHeads, c.kvHeads);
            const errors = (worst[`${f.inputs.dtype}/${precision}`] ??= {});
            for (const [tensor, field] of Object.entries(FIELDS)) {
              const max = maxError(result[field], expected[tensor].data);
              errors[tensor] = Math.max(errors[tensor] ?? 0, max);
              assert.ok(max <= TOLERANCE[tensor], `${testCase.name} ${tensor}: max error ${max}`);
            }
            for (let lh = 0; lh < c.numLayers * c.numHeads; lh++) {
              for (let i = 0; i < T; i++) for (let j = i + 1; j < T; j++) assert.equal(result.attentions[(lh * T + i) * T + j], 0);
            }
            for (const { position, top } of result.nextByPosition) {
              const probs = softmax(Array.from(expected.logits.data.subarray(position * f.V, (position + 1) * f.V)));
              const max = Math.max(...top.map(({ id, prob }) => Math.abs(prob - probs[id])));
              errors.next_probs = Math.max(errors.next_probs ?? 0, max);
              assert.ok(max <= TOLERANCE.next_probs, `${testCase.name} next at ${position}: max error ${max}`);
            }
          }
        } finally {
          model.dispose();
        }
      });
    }

    it(`${name}: greedy generation equals the reference; streamed rows equal a full forward`, async () => {
      const f = fixture(name);
      const model = await loadModel({ config: f.config, weights: f.weights, vocab: f.vocab });
      try {
        const { prompt, ids: expected } = f.inputs.greedy;
        const generation = model.generate(prompt, { maxNewTokens: expected.length - prompt.length, temperature: 0, stopAtEos: false });
        const rows = [];
        for await (const step of generation) rows.push(step);
        const r = await generation.result;
        assert.deepEqual([...r.ids], expected);
        assert.deepEqual(generation.prompt.kvHeads, model.config.kvHeads);
        const full = await model.runIds(r.ids);
        const [L, H, T] = full.shape;
        let max = 0;
        for (const step of rows) {
          assert.equal(step.attention.length, L * H * step.keys);  // one row per query head
          for (let lh = 0; lh < L * H; lh++) {
            for (let j = 0; j < step.keys; j++) max = Math.max(max, Math.abs(step.attention[lh * step.keys + j] - full.attentions[(lh * T + step.position) * T + j]));
          }
        }
        worst.step_rows = Math.max(worst.step_rows ?? 0, max);
        assert.ok(max <= TOLERANCE.step_rows, `streamed rows differ from a full forward by ${max}`);
      } finally {
        model.dispose();
      }
    });
  }

  after(() => {
    for (const [key, errors] of Object.entries(worst)) {
      console.log(`# llama max abs error ${key}: ${typeof errors === 'number' ? errors.toExponential(2) : Object.entries(errors).map(([k, v]) => `${k} ${v.toExponential(2)}`).join(', ')}`);
    }
  });
});

describe('Llama family: the memory estimate counts the parameters the engine keeps', () => {
  for (const name of models) {
    it(name, async () => {
      const f = fixture(name);
      const n = Number(f.weights.readBigUInt64LE(0));
      const header = JSON.parse(f.weights.subarray(8, 8 + n));
      const count = (rank) => Object.entries(header)
        .filter(([key, t]) => key !== '__metadata__' && !key.endsWith('rotary_emb.inv_freq') && t.shape.length === rank)
        .reduce((sum, [, t]) => sum + t.shape.reduce((a, b) => a * b, 1), 0);
      const model = await loadModel({ config: f.config, weights: f.weights, vocab: f.vocab });
      try {
        const c = model.config;
        const { matrices, other } = parameterCounts(c);
        const untiedHead = JSON.parse(f.config).tie_word_embeddings === false ? f.V * c.hiddenSize : 0;
        assert.equal(matrices + untiedHead, count(2));  // every matrix, exactly
        // Vectors: an upper bound that counts every optional one (biases, q/k norms) as present.
        const Q = c.numHeads * c.headDim, KV = c.numKeyValueHeads * c.headDim;
        const optional = c.numLayers * (Q + 2 * KV + 2 * c.hiddenSize + 2 * c.intermediateSize + 2 * c.headDim);
        assert.ok(other >= count(1) && other - optional <= count(1), `other ${other} vs stored vectors ${count(1)}`);
      } finally {
        model.dispose();
      }
    });
  }
});

describe('Llama family: refused options and configs', () => {
  const f = fixture('qwen3_qknorm_f32');

  it('a head mask runs (trace and attribution are checked in llama-trace.test.js)', async () => {
    const model = await loadModel({ config: f.config, weights: f.weights, vocab: f.vocab });
    try {
      const r = await model.runIds([1, 2, 3], { headMask: Array.from({ length: 2 }, () => [1, 0, 1, 1]) });
      assert.deepEqual(r.shape, [2, 4, 3, 3]);
    } finally {
      model.dispose();
    }
  });

  for (const [change, key] of [
    [{ rope_scaling: { rope_type: 'yarn', factor: 4 } }, 'yarn'],
    [{ rope_scaling: { rope_type: 'dynamic', factor: 2 } }, 'dynamic'],
    [{ pretraining_tp: 2 }, 'pretraining_tp'],
    [{ num_key_value_heads: 3 }, 'num_key_value_heads'],
    [{ partial_rotary_factor: 0.5 }, 'partial_rotary_factor'],
    [{ hidden_act: 'gelu_accurate' }, 'gelu_accurate'],
  ]) {
    it(`config.json with ${JSON.stringify(change)} is E_CONFIG naming ${key}`, async () => {
      const config = JSON.stringify({ ...JSON.parse(f.config), ...change });
      await assert.rejects(loadModel({ config, weights: f.weights, vocab: f.vocab }), (e) => e.code === 'E_CONFIG' && e.message.includes(key));
    });
  }

  it('a run past a sliding window shorter than the positions is E_INPUT naming sliding_window', async () => {
    const m = fixture('mistral_mqa_f32');
    const config = JSON.stringify({ ...JSON.parse(m.config), sliding_window: 8 });
    const model = await loadModel({ config, weights: m.weights, vocab: m.vocab });
    try {
      assert.equal(model.config.maxTokens, 8);
      await assert.rejects(model.runIds(Array(9).fill(1)), (e) => e.code === 'E_INPUT' && /sliding_window/.test(e.message));
      assert.equal((await model.runIds(Array(8).fill(1))).shape[2], 8);
    } finally {
      model.dispose();
    }
  });
});

describe('Llama family through the worker client', () => {
  it('runIds gives the same attentions and kvHeads as the API', async () => {
    const f = fixture('llama3_gqa2_f32');
    const client = createWorkerClient();
    const model = await loadModel({ config: f.config, weights: f.weights, vocab: f.vocab });
    try {
      await client.load({ config: f.config, weights: f.weights, vocab: f.vocab });
      const ids = f.inputs.cases[1].ids;
      const [viaWorker, direct] = [await client.runIds(ids), await model.runIds(ids)];
      assert.deepEqual(viaWorker.kvHeads, [0, 0, 1, 1]);
      assert.deepEqual([...viaWorker.attentions], [...direct.attentions]);
      assert.deepEqual(viaWorker.next, direct.next);
    } finally {
      model.dispose();
      await client.terminate();
    }
  });

  it('maps on demand stay in the worker; each head fetched equals PyTorch float64', async () => {
    const f = fixture('llama3_gqa2_f32');
    const client = createWorkerClient();
    try {
      await client.load({ config: f.config, weights: f.weights, vocab: f.vocab });
      const testCase = f.inputs.cases.find((c) => c.name === 't40_max_positions');
      const expected = readSafetensors(join(f.dir, testCase.expected)).attentions.data;
      const r = await client.runIds(testCase.ids, { maps: 'on-demand' });
      assert.equal(r.mapsInWorker, true);
      const [L, H, T] = r.shape;
      const heads = Array.from({ length: L * H }, (_, k) => [Math.floor(k / H), k % H]);
      const maps = await r.attentionsOf(heads);
      heads.forEach(([l, h], k) => {
        const max = maxError(maps[k], expected.subarray(k * T * T, (k + 1) * T * T));
        assert.ok(max <= TOLERANCE.attentions, `layer ${l} head ${h}: max error ${max}`);
      });
    } finally {
      await client.terminate();
    }
  });
});

describe('CLI on Llama-family folders', () => {
  let root;
  before(() => { root = mkdtempSync(join(tmpdir(), 'attnscope-llama-')); });
  after(() => rmSync(root, { recursive: true, force: true }));

  for (const name of ['llama3_gqa2_f32', 'mistral_mqa_f32', 'qwen2_bias_f16']) {
    it(`${name}: run --ids writes attentions [L][H][T][T], kv_heads, hidden after the final norm, next; generate --temperature 0 gives the greedy ids`, async () => {
      const f = fixture(name);
      const dir = join(root, name);
      cpSync(join(f.dir, 'config.json'), join(dir, 'config.json'));
      cpSync(join(f.dir, 'model.safetensors'), join(dir, 'model.safetensors'));
      writeFileSync(join(dir, 'vocab.txt'), f.vocab);
      const testCase = f.inputs.cases[1];
      const expected = readSafetensors(join(f.dir, testCase.expected));
      const out = join(dir, 'f.json');
      await run(process.execPath, [CLI, 'run', '--model', dir, '--ids', testCase.ids.join(','), '--out', out]);
      const r = JSON.parse(readFileSync(out, 'utf8'));
      const config = JSON.parse(f.config);
      const [L, H, T] = [config.num_hidden_layers, config.num_attention_heads, testCase.ids.length];
      assert.deepEqual(r.ids, testCase.ids);
      assert.equal(r.attentions.length, L);
      for (const layer of r.attentions) {
        assert.equal(layer.length, H);
        for (const head of layer) {
          assert.equal(head.length, T);
          head.forEach((row, i) => row.forEach((p, j) => { if (j > i) assert.equal(p, 0); }));
        }
      }
      assert.ok(maxError(r.attentions.flat(3), expected.attentions.data) <= TOLERANCE.attentions);
      assert.equal(r.kv_heads.length, H);
      assert.equal(r.hidden.length, T);
      assert.ok(maxError(r.hidden.flat(), expected.hidden_out.data) <= TOLERANCE.hidden_out);
      const probs = softmax(Array.from(expected.logits.data.subarray((T - 1) * f.V, T * f.V)));
      assert.equal(r.next[0].id, probs.indexOf(Math.max(...probs)));
      for (const { id, token, prob } of r.next) {
        assert.equal(typeof token, 'string');
        assert.ok(Math.abs(prob - probs[id]) <= TOLERANCE.next_probs);
      }

      const { prompt, ids } = f.inputs.greedy;
      const { stdout } = await run(process.execPath, [CLI, 'generate', '--model', dir, '--ids', prompt.join(','),
        '--max-new-tokens', String(ids.length - prompt.length), '--temperature', '0', '--no-stop-at-eos']);
      assert.deepEqual(JSON.parse(stdout).ids, ids);
    });
  }
});
