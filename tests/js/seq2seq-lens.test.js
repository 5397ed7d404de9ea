// An encoder–decoder's decoder side: the logit lens, direct logit attribution and value norms
// through the API (runIds with logitLens, attribution, valueNorms and the three head masks) and the
// CLI, against the float64 PyTorch reference of tests/fixtures/make_seq2seq_lens_fixtures.py (the
// bundled T5, a BART, a Marian and an untied gated T5 v1.1).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { loadModel } from '../../js/index.js';
import { readFixture } from './helpers/fixture-folder.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURES = join(ROOT, 'tests', 'fixtures', 'seq2seq_lens');
const CLI = join(ROOT, 'js', 'cli', 'cli.js');
const cases = readdirSync(FIXTURES).filter((f) => f.endsWith('.json')).map((f) => [f.slice(0, -5), JSON.parse(readFileSync(join(FIXTURES, f), 'utf8'))]);

async function load(fixture) {
  const folder = join(ROOT, fixture.folder);
  if (fixture.folder === 'model-seq2seq') return loadModel(folder, { threads: 1 });
  const f = readFixture(folder);
  return loadModel({ config: f.config, weights: f.weights, vocab: f.vocab }, { threads: 1 });
}

// Largest |a − b| relative to the larger of max |b| and 1.
function relativeError(got, expected) {
  const flat = (v) => (Array.isArray(v) ? v.flat(Infinity) : Array.from(v));
  const a = flat(got), b = flat(expected);
  assert.equal(a.length, b.length);
  const scale = Math.max(1, ...b.map(Math.abs));
  return Math.max(...a.map((x, i) => Math.abs(x - b[i]))) / scale;
}

test('the lens, attribution and value norms of every fixture as the float64 reference computes them', async () => {
  assert.ok(cases.length >= 4);
  for (const [name, fx] of cases) {
    const model = await load(fx);
    try {
      const c = model.config;
      const r = await model.runIds(fx.source_ids, {
        targetIds: fx.target_ids, headMask: fx.masks.head_mask, decoderHeadMask: fx.masks.decoder_head_mask,
        crossAttnHeadMask: fx.masks.cross_attn_head_mask, logitLens: fx.top_k, attribution: true, valueNorms: true, topK: 0,
      });
      const T = fx.target_ids.length + 1, S = fx.source_ids.length;
      // The lens: [Ld + 1][T], the top tokens' ids equal, their probabilities within 1e-5.
      assert.equal(r.logitLens.length, c.decoderLayers + 1, name);
      fx.logit_lens.forEach((row, l) => row.forEach((want, t) => {
        const got = r.logitLens[l][t];
        assert.deepEqual(got.top.map((e) => e.id), want.top_ids, `${name}: lens row ${l} position ${t}`);
        got.top.forEach((e, i) => assert.ok(Math.abs(e.prob - want.top_probs[i]) <= 1e-5, `${name}: lens ${l},${t} prob ${i}: ${e.prob} vs ${want.top_probs[i]}`));
        assert.equal(got.nextRank === null, t === T - 1, `${name}: a next token everywhere but the last position`);
      }));
      // Attribution: the same parts in the same order, each within 1e-4 of the logit's size; they add up to it.
      const a = r.attribution, want = fx.attribution;
      assert.equal(a.position, want.position);
      assert.equal(a.tokenId, want.token_id);
      assert.deepEqual(a.parts.map((p) => [p.kind, p.layer, p.head]), want.parts.map((p) => [p.kind, p.layer, p.head]), name);
      const scale = Math.max(1, Math.abs(want.logit));
      a.parts.forEach((p, i) => assert.ok(Math.abs(p.value - want.parts[i].value) <= 1e-4 * scale,
        `${name}: part ${i} (${p.kind} ${p.layer} ${p.head}): ${p.value} vs ${want.parts[i].value}`));
      assert.ok(Math.abs(a.logit - want.logit) <= 1e-4 * scale, `${name}: logit ${a.logit} vs ${want.logit}`);
      assert.ok(Math.abs(a.sum - a.logit) <= 1e-4 * scale, `${name}: the parts add up to the logit`);
      // Value norms: [Le][He][S], [Ld][Hd][T], [Ld][Hd][S].
      assert.equal(r.encoderValueNorms.length, c.encoderLayers * c.encoderHeads * S);
      assert.equal(r.crossValueNorms.length, c.decoderLayers * c.decoderHeads * S);
      assert.ok(relativeError(r.encoderValueNorms, fx.encoder_value_norms) <= 1e-4, `${name}: encoder value norms`);
      assert.ok(relativeError(r.decoderValueNorms, fx.decoder_value_norms) <= 1e-4, `${name}: decoder value norms`);
      assert.ok(relativeError(r.crossValueNorms, fx.cross_value_norms) <= 1e-4, `${name}: cross value norms`);
    } finally {
      model.dispose();
    }
  }
});

test('the bundled T5 through the CLI: --logit-lens, --attribution, --value-norms as the API gives them', async () => {
  const fx = Object.fromEntries(cases).bundled_t5;
  const { stdout } = await promisify(execFile)(process.execPath, [CLI, 'run', '--model', 'bundled-seq2seq', '--ids',
    fx.source_ids.join(','), '--target-ids', fx.target_ids.join(','), '--logit-lens', '3', '--attribution', '--value-norms',
    '--threads', '1'], { maxBuffer: 64 * 1024 ** 2 });
  const j = JSON.parse(stdout);
  const model = await load(fx);
  try {
    const r = await model.runIds(fx.source_ids, { targetIds: fx.target_ids, logitLens: 3, attribution: true, valueNorms: true });
    assert.deepEqual(j.logit_lens.map((row) => row.map((e) => e.top.map((t) => t.id))),
      r.logitLens.map((row) => row.map((e) => e.top.map((t) => t.id))));
    assert.equal(j.logit_lens[0][0].next_rank, r.logitLens[0][0].nextRank);
    assert.deepEqual(j.attribution.parts.map((p) => p.kind), r.attribution.parts.map((p) => p.kind));
    assert.ok(relativeError(j.attribution.parts.map((p) => p.value), r.attribution.parts.map((p) => p.value)) <= 1e-6);
    assert.equal(j.attribution.token_id, r.attribution.tokenId);
    const c = model.config;
    assert.ok(relativeError(j.cross_value_norms.flat(2), r.crossValueNorms) <= 1e-6);
    assert.deepEqual([j.decoder_value_norms.length, j.decoder_value_norms[0].length, j.decoder_value_norms[0][0].length],
      [c.decoderLayers, c.decoderHeads, fx.target_ids.length + 1]);
    assert.equal(j.encoder_value_norms[0][0].length, fx.source_ids.length);
  } finally {
    model.dispose();
  }
});
