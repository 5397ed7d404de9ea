// Information flow (run(…, { flow: true }) → r.flow; `attnscope run --flow`) over wasm against the
// float64 PyTorch implementation of the definitions (tests/fixtures/make_flow_fixtures.py): random
// GPT-2, BERT (post-LN, padding, head mask), Llama-3 (grouped-query) and BART / T5 checkpoints
// through the API, and the bundled decoder through the CLI and the worker client on a held-out text. Every share within
// 1e-4 of the reference; each sum's shares add to 1; later keys have share 0 in a decoder.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { loadModel } from '../../js/index.js';
import { createWorkerClient } from '../../js/worker/client.js';
import { readFixture } from './helpers/fixture-folder.js';

const run = promisify(execFile);
const CLI = fileURLToPath(new URL('../../js/cli/cli.js', import.meta.url));
const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
const TOLERANCE = 1e-4;
const expectedFlow = (name) => JSON.parse(readFileSync(join(FIXTURES, 'flow', `${name.replace('/', '_')}.json`), 'utf8'));

// The API's flat arrays by the JSON's names (camelCase ↔ snake_case).
const FIELDS = ['tokens', 'residual', 'bias', 'heads', 'headsResidual', 'headsBias', 'mlp', 'mlpResidual'];
const snake = (name) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const crossName = (name) => `cross${name[0].toUpperCase()}${name.slice(1)}`;

function worst(got, nested, what) {
  const want = nested.flat(Infinity);
  assert.equal(got.length, want.length, `${what}: ${got.length} values, expected ${want.length}`);
  let max = 0;
  for (let i = 0; i < want.length; i++) max = Math.max(max, Math.abs(got[i] - want[i]));
  assert.ok(max <= TOLERANCE, `${what}: worst share error ${max}`);
  return max;
}

// Every field of a stack's flow (and the decoder's cross-attention fields where the reference has them).
function compareStack(flow, expected, label) {
  for (const name of FIELDS) worst(flow[name], expected[snake(name)], `${label} ${name}`);
  if (expected.cross_tokens)
    for (const name of FIELDS.slice(0, 6)) worst(flow[crossName(name)], expected[`cross_${snake(name)}`], `${label} cross ${name}`);
}

function checkSums(flow, label) {
  const { layers: L, headCount: H, queries: T, keys: K } = flow;
  for (let l = 0; l < L; l++)
    for (let i = 0; i < T; i++) {
      const row = l * T + i;
      let tokens = flow.residual[row] + flow.bias[row];
      let heads = flow.headsResidual[row] + flow.headsBias[row];
      for (let j = 0; j < K; j++) {
        tokens += flow.tokens[row * K + j];
        for (let h = 0; h < H; h++) heads += flow.heads[((l * H + h) * T + i) * K + j];
      }
      assert.ok(Math.abs(tokens - 1) < 1e-5 && Math.abs(heads - 1) < 1e-5, `${label} layer ${l} query ${i}: ${tokens}, ${heads}`);
      assert.ok(Math.abs(flow.mlp[row] + flow.mlpResidual[row] - 1) < 1e-5);
    }
}

describe('information flow', () => {
  for (const name of ['engine/gpt2_lm_f32', 'engine/bert_mlm_f32', 'llama/llama3_gqa2_f32']) {
    it(`${name}: run(…, { flow: true }) matches the float64 reference`, async () => {
      const f = readFixture(join(FIXTURES, name));
      const model = await loadModel({ config: f.config, weights: f.weights, vocab: f.vocab }, { threads: 1 });
      try {
        for (const c of expectedFlow(name).cases) {
          const r = await model.runIds(c.ids, {
            flow: true, attentionMask: c.attention_mask, ...(c.token_types ? { tokenTypes: c.token_types } : {}),
            ...(c.head_mask ? { headMask: c.head_mask } : {}),
          });
          assert.deepEqual([r.flow.layers, r.flow.queries, r.flow.keys], [r.shape[0], c.ids.length, c.ids.length]);
          compareStack(r.flow, c.flow, `${name}/${c.name}`);
          if (c.name !== 't7_all_masked') checkSums(r.flow, `${name}/${c.name}`);
        }
        // Without the option, no flow (and no cost).
        assert.equal((await model.runIds([2, 5, 6])).flow, undefined);
      } finally {
        model.dispose();
      }
    });
  }

  for (const name of ['seq2seq/bart_f32', 'seq2seq/t5_relu_tied_f32']) {
    it(`${name}: the encoder, decoder and cross-attention flow match the float64 reference`, async () => {
      const f = readFixture(join(FIXTURES, name));
      const model = await loadModel({ config: f.config, weights: f.weights, vocab: f.vocab }, { threads: 1 });
      try {
        for (const c of expectedFlow(name).cases) {
          const masks = c.head_masks ? {
            headMask: c.head_masks.head_mask, decoderHeadMask: c.head_masks.decoder_head_mask,
            crossAttnHeadMask: c.head_masks.cross_attn_head_mask,
          } : {};
          const r = await model.runIds(c.source_ids, { targetIds: c.decoder_input_ids.slice(1), flow: true, ...masks });
          assert.equal(r.flow.crossKeys, c.source_ids.length);
          compareStack(r.flow, c.flow, `${name}/${c.name} decoder`);
          compareStack(r.flow.encoder, c.flow.encoder, `${name}/${c.name} encoder`);
          checkSums(r.flow, `${name}/${c.name} decoder`);
          checkSums(r.flow.encoder, `${name}/${c.name} encoder`);
        }
        await assert.rejects(model.runIds([5, 6], { flow: 'yes' }), (e) => e.code === 'E_INPUT' && /flow must be true or false/.test(e.message));
      } finally {
        model.dispose();
      }
    });
  }

  it('npx attnscope run --model bundled-causal --text … --flow writes the reference flow', async () => {
    const [c] = expectedFlow('bundled-causal').cases;
    const { stdout } = await run(process.execPath, [CLI, 'run', '--model', 'bundled-causal', '--text', c.text, '--flow'],
      { maxBuffer: 1 << 28 });
    const out = JSON.parse(stdout);
    assert.deepEqual(out.ids, c.ids);
    const T = c.ids.length;
    for (const [name, shape] of [['tokens', [8, T, T]], ['residual', [8, T]], ['bias', [8, T]], ['mlp', [8, T]],
      ['mlp_residual', [8, T]], ['heads', [8, 4, T, T]], ['heads_residual', [8, T]], ['heads_bias', [8, T]]]) {
      assert.deepEqual([out.flow[name].length, out.flow[name][0].length], shape.slice(0, 2), name);
      worst(out.flow[name].flat(Infinity), c.flow[name], `CLI ${name}`);
    }
    for (let l = 0; l < 8; l++)
      for (let i = 0; i < T; i++)
        for (let j = i + 1; j < T; j++) assert.equal(out.flow.tokens[l][i][j], 0, 'a later key has share 0');
  });

  it('the worker client returns the same flow as the API', async () => {
    const [c] = expectedFlow('bundled-causal').cases;
    const client = createWorkerClient();
    try {
      await client.load('bundled-causal', { threads: 1 });
      const remote = await client.run(c.text, { flow: true });
      for (const name of FIELDS) worst(remote.flow[name], c.flow[snake(name)], `worker ${name}`);
    } finally {
      await client.terminate();
    }
  });

  it('--flow is JSON only', async () => {
    await assert.rejects(run(process.execPath, [CLI, 'run', '--model', 'bundled-causal', '--text', 'The river', '--flow',
      '--format', 'npy', '--out', '/tmp/never']), (e) => /--flow writes the information flow into the JSON/.test(e.stderr));
  });
});
