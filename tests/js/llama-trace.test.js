// The Llama family's trace and direct logit attribution through the WASM build and the public API
// (runIds with { trace, attribution }), against the independent float64 PyTorch reference of
// tests/fixtures/make_llama_trace_fixtures.py: every traced step (RMSNorms, q/k/v projections,
// Qwen3's head norms, rotated q and k, the grouped heads' context, o_proj, residuals, SwiGLU's gate,
// act(gate), up, product and down, model.norm) within 1e-4 of its largest reference value; each
// attribution part within 1e-4 · max(1, |logit|). The page's self-checks (js/formats/block-steps.js) on the
// same run all ≤ 1e-4, and a planted error in the rotation is caught.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { loadModel } from '../../js/index.js';
import { blockSelfChecks } from '../../js/formats/block-steps.js';
import { readSafetensors } from './helpers/safetensors.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/llama/', import.meta.url));
const models = readdirSync(FIXTURES).filter((d) => existsSync(join(FIXTURES, d, 'trace_t7.safetensors'))).sort();
// The reference's snake_case names → the trace's camelCase ones.
const camel = (name) => name.replace(/_([a-z])/g, (_, c) => c.toUpperCase());

function relativeError(got, want, what) {
  assert.equal(got?.length, want.length, `${what}: ${got?.length} values, reference ${want.length}`);
  let err = 0, scale = 0;
  for (let i = 0; i < want.length; i++) {
    err = Math.max(err, Math.abs(got[i] - want[i]));
    scale = Math.max(scale, Math.abs(want[i]));
  }
  return err / scale;
}

async function open(name) {
  const dir = join(FIXTURES, name);
  const config = readFileSync(join(dir, 'config.json'), 'utf8');
  const V = JSON.parse(config).vocab_size;
  // The fixtures ship no tokenizer; runs by ids need only token names (and the loader's specials).
  const vocab = `${Array.from({ length: V }, (_, i) => ['[PAD]', '[UNK]', '[CLS]', '[SEP]'][i] ?? `w${i}`).join('\n')}\n`;
  return loadModel({ config, weights: readFileSync(join(dir, 'model.safetensors')), vocab }, { threads: 1 });
}

describe('Llama-family trace and attribution through the WASM API', () => {
  it('finds the fixtures', () => assert.equal(models.length, 5));

  for (const name of models) {
    it(`${name}: every traced step and the attribution match the float64 reference`, async () => {
      const want = readSafetensors(join(FIXTURES, name, 'trace_t7.safetensors'));
      const fixture = JSON.parse(readFileSync(join(FIXTURES, name, 'attribution_t7.json'), 'utf8'));
      const model = await open(name);
      try {
        const r = await model.runIds(fixture.ids, { attentionMask: fixture.attention_mask, trace: true, attribution: true });
        const tr = r.trace;
        let worst = 0, checked = 0;
        for (const [key, { data }] of Object.entries(want)) {
          const got = key === 'embeddings_word' ? tr.embeddings.word : key === 'embeddings_output' ? tr.embeddings.output
            : key === 'final_norm' ? tr.finalNorm : tr.layers[Number(key.split('.')[1])][camel(key.split('.')[2])];
          const e = relativeError(got, data, key);
          assert.ok(e <= 1e-4, `${key}: relative error ${e}`);
          worst = Math.max(worst, e);
          checked++;
        }
        assert.equal(tr.embeddings.position, undefined, 'no position table');
        assert.equal(tr.layers[0].ffnPreActivation, undefined);
        assert.equal(Boolean(tr.layers[0].qHeadNorm), model.config.modelType === 'qwen3');
        console.log(`${name}: ${checked} traced tensors, max relative error ${worst.toExponential(2)}`);

        // Default attribution (top-1 token at the last position) and a fixed one with heads off.
        let worstPart = 0;
        for (const [k, w] of fixture.attributions.entries()) {
          const a = k === 0 ? r.attribution
            : (await model.runIds(fixture.ids, { headMask: w.head_mask, attribution: { position: w.position, tokenId: w.token_id } })).attribution;
          const scale = Math.max(1, Math.abs(w.logit));
          assert.equal(a.position, w.position);
          assert.equal(a.tokenId, w.token_id);
          assert.ok(Math.abs(a.logit - w.logit) <= 1e-4 * scale, `logit ${a.logit} vs ${w.logit}`);
          assert.deepEqual(a.parts.map((p) => p.kind), w.parts.map((p) => p.kind));
          a.parts.forEach((p, i) => {
            assert.deepEqual([p.layer, p.head], [w.parts[i].layer, w.parts[i].head]);
            assert.ok(Math.abs(p.value - w.parts[i].value) <= 1e-4 * scale, `part ${i} (${p.kind} ${p.layer}.${p.head}): ${p.value} vs ${w.parts[i].value}`);
          });
          assert.ok(Math.abs(a.sum - a.logit) <= 1e-4 * scale);
          worstPart = Math.max(worstPart, ...a.parts.map((p, i) => Math.abs(p.value - w.parts[i].value) / scale));
        }
        console.log(`${name}: attribution, max |part − reference| / max(1, |logit|) ${worstPart.toExponential(2)}`);

        // The page's self-checks on this run, every token; then a planted error in one rotation.
        for (let t = 0; t < fixture.ids.length; t++) {
          const checks = blockSelfChecks(tr, model.config, t, r);
          const perLayer = 9 + (model.config.modelType === 'qwen3' ? 2 : 0);
          assert.equal(checks.length, 1 + perLayer * model.config.numLayers + 1);
          for (const { step, maxDiff } of checks) assert.ok(maxDiff <= 1e-4, `token ${t} ${step}: ${maxDiff}`);
        }
        const Q = model.config.numHeads * model.config.headDim;
        tr.layers[1].qRotated[3 * Q + 1] += 0.01;
        const planted = blockSelfChecks(tr, model.config, 3, r).find((c) => c.step === 'layers.1.qRotated');
        assert.ok(planted.maxDiff > 0.009, `planted rotation error not seen: ${planted.maxDiff}`);
      } finally {
        model.dispose();
      }
    });
  }
});
