// `attnscope run --trace` on BERT, DistilBERT and GPT-2 checkpoint folders: the JSON's trace holds
// every step of every block, each within 1e-3 of the float64 PyTorch reference of
// tests/fixtures/make_engine_fixtures.py, and each layer's output is that layer's hidden state.
// Through the API on the wasm build: asking for the trace changes no output bit (its FFN
// pre-activation is a second, unfused GEMM; the fused one still makes every output).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { readSafetensors } from './helpers/safetensors.js';
import { loadModel } from '../../js/index.js';

const run = promisify(execFile);
const CLI = fileURLToPath(new URL('../../js/cli/cli.js', import.meta.url));
const FIXTURES = fileURLToPath(new URL('../fixtures/engine/', import.meta.url));


const flat = (nested) => Float32Array.from(nested.flat(Infinity));
function maxDiff(got, want) {
  assert.equal(got.length, want.length);
  let max = 0;
  for (let i = 0; i < got.length; i++) max = Math.max(max, Math.abs(got[i] - want[i]));
  return max;
}

describe('run --trace', () => {
  let work;
  before(() => { work = mkdtempSync(join(tmpdir(), 'attnscope-trace-')); });
  after(() => rmSync(work, { recursive: true, force: true }));

  for (const [model, kind] of [['bert_mlm_f32', 'encoder'], ['distilbert_mlm_f32', 'encoder'], ['gpt2_lm_f32', 'decoder']]) {
    it(`${model}: every step matches PyTorch (≤ 1e-3); layer outputs are the hidden states`, async () => {
      const dir = join(work, model);
      cpSync(join(FIXTURES, model), dir, { recursive: true });
      const V = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).vocab_size;
      writeFileSync(join(dir, 'vocab.txt'), `${Array.from({ length: V }, (_, i) => ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'][i] ?? `w${i}`).join('\n')}\n`);
      const inputs = JSON.parse(readFileSync(join(dir, 'inputs.json'), 'utf8'));
      const testCase = inputs.cases[1];  // t7_types: 7 tokens (two segments where the model has them)
      const out = join(dir, 'f.json');
      const args = [CLI, 'run', '--model', dir, '--ids', testCase.ids.join(','), '--trace', '--out', out];
      if (kind === 'encoder' && model.startsWith('bert')) args.push('--token-types', testCase.token_types.join(','));
      await run(process.execPath, args);
      const { trace, hidden } = JSON.parse(readFileSync(out, 'utf8'));
      const expected = readSafetensors(join(dir, testCase.expected));

      const embeddingSteps = Object.keys(trace.embeddings);
      assert.deepEqual(embeddingSteps, model.startsWith('bert')
        ? ['word', 'position', 'token_type', 'sum', 'output'] : ['word', 'position', 'sum', 'output']);
      for (const step of embeddingSteps) {
        assert.ok(maxDiff(flat(trace.embeddings[step]), expected[`trace_embeddings_${step}`].data) <= 1e-3, `embeddings.${step}`);
      }
      const layerSteps = kind === 'encoder'
        ? ['attention_output', 'attention_residual', 'attention_norm', 'ffn_pre_activation', 'ffn_intermediate', 'ffn_output', 'ffn_residual', 'output']
        : ['attention_input_norm', 'attention_output', 'attention_residual', 'ffn_input_norm', 'ffn_pre_activation', 'ffn_intermediate', 'ffn_output', 'ffn_residual', 'output'];
      const hiddenStates = expected.hidden_states;
      const [, T, C] = hiddenStates.shape;
      trace.layers.forEach((layer, l) => {
        assert.deepEqual(Object.keys(layer), layerSteps, `layer ${l} steps`);
        for (const step of layerSteps) {
          const reference = expected[`trace_${step}`];
          const size = reference.data.length / trace.layers.length;
          assert.ok(maxDiff(flat(layer[step]), reference.data.subarray(l * size, (l + 1) * size)) <= 1e-3, `layers[${l}].${step}`);
        }
        // A decoder's last hidden state is after the final LayerNorm (Hugging Face's convention).
        if (kind === 'encoder' || l < trace.layers.length - 1) {
          assert.ok(maxDiff(flat(layer.output), hiddenStates.data.subarray((l + 1) * T * C, (l + 2) * T * C)) <= 1e-3, `layers[${l}].output = hidden_states[${l + 1}]`);
        }
      });
      const last = kind === 'encoder' ? trace.layers.at(-1).output : trace.final_norm;
      assert.deepEqual(flat(last), flat(hidden));
    });
  }

  it('--trace with --format npy or bertviz is refused, not dropped', async () => {
    await assert.rejects(run(process.execPath, [CLI, 'run', '--text', 'a', '--trace', '--format', 'bertviz', '--out', join(work, 'b.json')]),
      (e) => e.code === 2 && /--trace .* --format json/.test(e.stderr));
  });
});

describe('run({ trace: true }) on the wasm build', () => {
  for (const [source, threads] of [['bundled', 1], ['bundled-causal', 1], ['bundled', 2]]) {  // 2: the threaded build
    it(`${source}, ${threads} thread(s): every output is bit-identical with and without the trace; ffnPreActivation is T × F`, async () => {
      const model = await loadModel(source, { threads });
      try {
        const options = { hiddenStates: true, qkv: true, valueNorms: true };
        const text = 'There is a prince who lives far away.';
        const plain = await model.run(text, options);
        const traced = await model.run(text, { ...options, trace: true });
        assert.equal(plain.trace, undefined);
        for (const name of ['attentions', 'hidden', 'hiddenStates', 'q', 'k', 'v', 'valueNorms']) {
          assert.ok(plain[name].length > 0, name);
          assert.deepEqual(traced[name], plain[name], `${name} changed by the trace`);
        }
        const { intermediateSize: F, numLayers: L } = model.config;
        const T = traced.ids.length;
        assert.equal(traced.trace.layers.length, L);
        for (const layer of traced.trace.layers) {
          assert.equal(layer.ffnPreActivation.length, T * F);
          assert.equal(layer.ffnIntermediate.length, T * F);
          // GELU keeps positives near themselves and squashes negatives towards 0 (x < 0: |gelu(x)| =
          // |x|·Φ(x) < |x| / 2), so the two differ. Not "< -1": a freshly grown layer's
          // pre-activations are small (the bundled decoder's layers 4-7).
          assert.ok(layer.ffnPreActivation.some((v, i) => v < -0.05 && Math.abs(layer.ffnIntermediate[i]) < 0.5 * -v));
        }
      } finally {
        model.dispose();
      }
    });
  }
});
