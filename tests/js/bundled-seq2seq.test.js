// The bundled encoder-decoder (bundled-seq2seq, model-seq2seq/) through the public API and the CLI,
// against tests/fixtures/bundled-seq2seq/: a float64 PyTorch T5 forward of the shipped fp16 weights
// (make_seq2seq_fixtures.py's t5_forward) on held-out pairs, tokenized by @huggingface/tokenizers.
// Tolerances (max abs error): attentions 1e-4, logits 1e-3; greedy ids equal. The tokenizer is
// checked against @huggingface/tokenizers and Hugging Face's Rust `tokenizers` on every held-out
// source and target, and heldout.jsonl against MODEL.md's definition of its alignments.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Tokenizer } from '@huggingface/tokenizers';

import { Seq2SeqModel, bundledModelFile, bundledModelLocations, loadModel } from '../../js/index.js';
import { BUNDLED_SEQ2SEQ_MODEL } from '../../js/api/bundled-models.js';
import { readSafetensors } from './helpers/safetensors.js';
import { maxError } from './helpers/fixture-folder.js';

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const { Tokenizer: RustTokenizer } = require('tokenizers');

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = join(ROOT, 'js/cli/cli.js');
const MODEL_DIR = join(ROOT, 'model-seq2seq');
const FIXTURE = join(ROOT, 'tests/fixtures/bundled-seq2seq');
const fixture = JSON.parse(readFileSync(join(FIXTURE, 'inputs.json'), 'utf8'));
const heldout = readFileSync(join(MODEL_DIR, 'heldout.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
const MAX_BYTES = 8_000_000;  // the shipped folder's budget: ≤ 8 MB

function safetensorsHeader(path) {
  const buf = readFileSync(path);
  return JSON.parse(buf.subarray(8, 8 + Number(buf.readBigUInt64LE(0))));
}

let model;
before(async () => { model = await loadModel(BUNDLED_SEQ2SEQ_MODEL, { threads: 1 }); });
after(() => model?.dispose());

describe('bundled-seq2seq: the model', () => {
  it('loads from model-seq2seq/ as a T5 Seq2SeqModel, fp16, ≤ 8 MB, with the weights the fixture was made from', () => {
    assert.ok(model instanceof Seq2SeqModel);
    assert.equal(model.info.kind, 'encoder-decoder');
    assert.equal(model.config.modelType, 't5');
    assert.equal(model.info.location, MODEL_DIR);
    assert.equal(bundledModelLocations[BUNDLED_SEQ2SEQ_MODEL], MODEL_DIR);
    assert.equal(bundledModelFile(BUNDLED_SEQ2SEQ_MODEL, 'heldout.jsonl'), join(MODEL_DIR, 'heldout.jsonl'));
    const bytes = readdirSync(MODEL_DIR).reduce((sum, f) => sum + statSync(join(MODEL_DIR, f)).size, 0);
    assert.ok(bytes <= MAX_BYTES, `model-seq2seq/ is ${bytes} bytes`);
    const { __metadata__: metadata = {}, ...tensors } = safetensorsHeader(join(MODEL_DIR, 'model.safetensors'));
    assert.deepEqual([...new Set(Object.values(tensors).map((t) => t.dtype))], ['F16']);
    assert.deepEqual(metadata, fixture.weights_metadata,
      'model-seq2seq/ changed since the fixture was made: bash tools/train/ship_seq2seq.sh regenerates it');
  });

  for (const c of fixture.cases) {
    it(`${c.name}: attentions ≤ 1e-4 and logits ≤ 1e-3 of the float64 reference; greedy ids equal`, async (t) => {
      const e = readSafetensors(join(FIXTURE, c.expected));
      assert.deepEqual([...model.tokenize(c.source).ids], c.source_ids);
      assert.deepEqual([...model.tokenize(c.target).ids], c.target_ids);
      const r = await model.run(c.source, { target: c.target, logits: true });
      assert.deepEqual([...r.targetIds], c.decoder_input_ids);
      assert.deepEqual(r.encoderShape, e.encoder_attentions.shape);
      assert.deepEqual(r.decoderShape, e.decoder_attentions.shape);
      assert.deepEqual(r.crossShape, e.cross_attentions.shape);
      const errors = {};
      for (const [got, key] of [[r.encoderAttentions, 'encoder_attentions'], [r.decoderAttentions, 'decoder_attentions'],
        [r.crossAttentions, 'cross_attentions']]) {
        errors[key] = maxError(got, e[key].data);
        assert.ok(errors[key] <= 1e-4, `${key}: max error ${errors[key]}`);
      }
      const V = model.config.vocabSize;
      errors.logits = 0;
      c.logit_positions.forEach((p, k) => {
        const err = maxError(r.logits.subarray(p * V, (p + 1) * V), e.logits_at.data.subarray(k * V, (k + 1) * V));
        assert.ok(err <= 1e-3, `logits at position ${p}: max error ${err}`);
        errors.logits = Math.max(errors.logits, err);
      });
      t.diagnostic(`max |error|: ${Object.entries(errors).map(([k, v]) => `${k} ${v.toExponential(1)}`).join(', ')}`);
      // Every position's top 5: the reference's ids get the reference's logits (so the ranking
      // agrees except between near-equal logits).
      c.top_ids.forEach((ids, p) => ids.forEach((id, k) => {
        const err = Math.abs(r.logits[p * V + id] - e.top_logits.data[p * ids.length + k]);
        assert.ok(err <= 1e-3, `position ${p}, top ${k} (id ${id}): error ${err}`);
      }));
      const g = await model.generate(c.source, { temperature: 0, maxNewTokens: c.greedy.max_new_tokens });
      assert.deepEqual([...g.ids], c.greedy.ids);
    });
  }
});

describe('bundled-seq2seq: tokenizer and heldout.jsonl', () => {
  const tokenizerJson = readFileSync(join(MODEL_DIR, 'tokenizer.json'), 'utf8');
  const texts = heldout.flatMap((h) => [h.source, h.target]);

  it('the engine tokenizes every held-out source and target as @huggingface/tokenizers and Rust tokenizers do', async () => {
    const hf = new Tokenizer(JSON.parse(tokenizerJson), JSON.parse(readFileSync(join(MODEL_DIR, 'tokenizer_config.json'), 'utf8')));
    const rust = RustTokenizer.fromString(tokenizerJson);
    const mismatches = [];
    for (const text of texts) {
      const ours = model.tokenize(text);
      const js = hf.encode(text);
      const rs = await rust.encode(text);
      for (const [name, ids, tokens] of [['@huggingface/tokenizers', js.ids, js.tokens], ['tokenizers (Rust)', rs.getIds(), rs.getTokens()]]) {
        if (JSON.stringify([...ours.ids]) !== JSON.stringify([...ids]) || JSON.stringify(ours.tokens) !== JSON.stringify(tokens)) {
          mismatches.push(`${name}: ${JSON.stringify(text)}\n  theirs ${tokens.join(' ')}\n  ours   ${ours.tokens.join(' ')}`);
        }
      }
    }
    assert.ok(texts.length >= 400);
    assert.deepEqual(mismatches.slice(0, 5), []);
  });

  it('holds ≥ 200 pairs {source, target, alignment}: one source token index (</s> included) or null per target token, pointing at the same token', async () => {
    const rust = RustTokenizer.fromString(tokenizerJson);
    assert.ok(heldout.length >= 200, `${heldout.length} pairs`);
    let moved = 0;
    let total = 0;
    for (const h of heldout) {
      assert.deepEqual(Object.keys(h).sort(), ['alignment', 'source', 'target']);
      const src = (await rust.encode(h.source)).getIds();
      const tgt = (await rust.encode(h.target)).getIds();
      assert.equal(h.alignment.length, tgt.length, h.source);
      h.alignment.forEach((a, i) => {
        if (a === null) return;
        assert.ok(Number.isInteger(a) && a >= 0 && a < src.length, `${h.source}: alignment[${i}] = ${a}`);
        assert.equal(src[a], tgt[i], `${h.source}: target token ${i} is not source token ${a}`);
        total++;
        if (a !== i) moved++;
      });
    }
    // The task's point: the alignment crosses instead of running down the diagonal.
    assert.ok(moved / total > 0.2, `${moved} of ${total} aligned target tokens off the diagonal`);
  });
});

describe('bundled-seq2seq: the CLI', () => {
  it('info --model bundled-seq2seq gives its path; generate --temperature 0 gives the reference greedy ids', async () => {
    const info = JSON.parse((await run(process.execPath, [CLI, 'info', '--model', BUNDLED_SEQ2SEQ_MODEL, '--threads', '1'])).stdout);
    assert.equal(info.path, MODEL_DIR);
    assert.equal(info.kind, 'encoder-decoder');
    const c = fixture.cases[0];
    const { stdout } = await run(process.execPath, [CLI, 'generate', '--model', BUNDLED_SEQ2SEQ_MODEL, '--threads', '1',
      '--text', c.source, '--temperature', '0', '--max-new-tokens', String(c.greedy.max_new_tokens)]);
    const g = JSON.parse(stdout);
    assert.deepEqual(g.source_ids, c.source_ids);
    assert.deepEqual(g.ids, c.greedy.ids);
  });
});
