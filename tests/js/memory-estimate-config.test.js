// The memory estimate never reports NaN: a config missing a size key, or with one that is not a
// positive integer, is E_CONFIG naming the key, for every family, whether the estimate is called
// directly or by loadModel before anything but config.json is read (a T5 config without d_model
// used to be "E_TOO_LARGE: needs about NaN MB").
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { loadModel } from '../../js/index.js';
import {
  checkFitsWasm32, checkSeq2SeqFitsWasm32, estimateMemory, estimateSeq2SeqMemory, resolveSeq2SeqPrecision,
  resolveWeightPrecision,
} from '../../js/api/memory-estimate.js';

// config.json as on the hub (t5-small, facebook/bart-base, Helsinki-NLP/opus-mt-en-de): the keys
// each family's size needs.
const SEQ2SEQ = {
  t5: [{ model_type: 't5', vocab_size: 32128, d_model: 512, d_kv: 64, d_ff: 2048, num_layers: 6, num_heads: 8 },
    ['vocab_size', 'd_model', 'd_kv', 'd_ff', 'num_layers', 'num_heads']],
  bart: [{ model_type: 'bart', vocab_size: 50265, d_model: 768, encoder_layers: 6, decoder_layers: 6, encoder_attention_heads: 12,
    decoder_attention_heads: 12, encoder_ffn_dim: 3072, decoder_ffn_dim: 3072, max_position_embeddings: 1024 }],
  marian: [{ model_type: 'marian', vocab_size: 58101, d_model: 512, encoder_layers: 6, decoder_layers: 6, encoder_attention_heads: 8,
    decoder_attention_heads: 8, encoder_ffn_dim: 2048, decoder_ffn_dim: 2048, max_position_embeddings: 512 }],
};
SEQ2SEQ.bart[1] = SEQ2SEQ.marian[1] = Object.keys(SEQ2SEQ.bart[0]).filter((k) => k !== 'model_type');

// Parsed configs (camelCase, as model.config gives them) of bert-base and a Llama shape.
const PARSED = {
  bert: { family: 'bert', vocabSize: 30522, hiddenSize: 768, numLayers: 12, numHeads: 12, intermediateSize: 3072,
    maxPositionEmbeddings: 512, typeVocabSize: 2, maxTokens: 512 },
  llama: { family: 'llama', vocabSize: 32000, hiddenSize: 2048, numLayers: 22, numHeads: 32, numKeyValueHeads: 4, headDim: 64,
    intermediateSize: 5632, maxPositionEmbeddings: 2048, maxTokens: 2048, isDecoder: true },
};

const BAD_VALUES = [undefined, null, Number.NaN, Infinity, 0, -4, 1.5, '512', 2 ** 40];

// The error names the key; NaN or Infinity appear only as the value given ("got NaN"), never as
// an estimate.
const namesKey = (key) => (error) => {
  assert.equal(error.code, 'E_CONFIG', `${key}: ${error.code}: ${error.message}`);
  assert.match(error.message, new RegExp(`"${key}"`));
  assert.doesNotMatch(error.message.replace(/got (NaN|Infinity)$/, ''), /NaN|Infinity|undefined/);
  return true;
};

test('encoder-decoders: every size key missing or not a positive integer is E_CONFIG naming it', () => {
  for (const [family, [config, keys]] of Object.entries(SEQ2SEQ)) {
    assert.ok(Number.isFinite(estimateSeq2SeqMemory(config, 'f32').total), family);
    for (const key of keys) {
      for (const value of BAD_VALUES) {
        const bad = { ...config, [key]: value };
        if (value === undefined) delete bad[key];
        const what = `${family} ${key} = ${String(value)}`;
        for (const precision of ['f32', 'f16', 'q8']) {
          assert.throws(() => estimateSeq2SeqMemory(bad, precision), namesKey(key), what);
          assert.throws(() => checkSeq2SeqFitsWasm32(bad, precision), namesKey(key), what);
        }
        assert.throws(() => resolveSeq2SeqPrecision(bad, 'auto'), namesKey(key), what);
      }
    }
  }
  // Keys transformers' configs themselves leave out keep their defaults (t5-small's config.json
  // has no num_decoder_layers): the same estimate as with the default written out.
  const t5 = SEQ2SEQ.t5[0];
  assert.deepEqual(estimateSeq2SeqMemory(t5, 'f32'),
    estimateSeq2SeqMemory({ ...t5, num_decoder_layers: 6, relative_attention_num_buckets: 32, n_positions: 512 }, 'f32'));
  for (const notAnObject of [null, 'x', 3, []]) {
    assert.throws(() => estimateSeq2SeqMemory(notAnObject, 'f32'), (e) => e.code === 'E_CONFIG');
  }
});

test('encoders and decoders: every size of a parsed config missing or not a positive integer is E_CONFIG naming it', () => {
  for (const [family, config] of Object.entries(PARSED)) {
    assert.ok(Number.isFinite(estimateMemory(config, 'f32').total), family);
    const keys = ['vocabSize', 'hiddenSize', 'numLayers', 'numHeads', 'intermediateSize', 'maxPositionEmbeddings',
      ...(family === 'llama' ? ['numKeyValueHeads', 'headDim'] : [])];
    for (const key of keys) {
      for (const value of BAD_VALUES) {
        const bad = { ...config, [key]: value };
        if (value === undefined) delete bad[key];
        const what = `${family} ${key} = ${String(value)}`;
        for (const precision of ['f32', 'f16', 'q8']) {
          assert.throws(() => estimateMemory(bad, precision), namesKey(key), what);
          assert.throws(() => checkFitsWasm32(bad, precision), namesKey(key), what);
        }
        assert.throws(() => resolveWeightPrecision(bad, 'auto'), namesKey(key), what);
      }
    }
  }
});

let work;
before(() => { work = mkdtempSync(join(tmpdir(), 'attnscope-estimate-config-')); });
after(() => rmSync(work, { recursive: true, force: true }));

test('loadModel: the bundled T5 without d_model (or with a bad one) is E_CONFIG naming d_model, not E_TOO_LARGE', async () => {
  const source = fileURLToPath(new URL('../../model-seq2seq', import.meta.url));
  const dir = join(work, 't5');
  cpSync(source, dir, { recursive: true, dereference: true });  // a copy, even of a symlinked folder
  const config = JSON.parse(readFileSync(join(source, 'config.json'), 'utf8'));
  for (const value of [undefined, null, 'abc', -1, 0, 2.5]) {
    const bad = { ...config, d_model: value };
    if (value === undefined) delete bad.d_model;
    writeFileSync(join(dir, 'config.json'), JSON.stringify(bad));
    await assert.rejects(loadModel(dir), namesKey('d_model'), `d_model = ${String(value)}`);
  }
  for (const key of ['num_heads', 'd_kv', 'd_ff', 'num_layers', 'vocab_size']) {
    const bad = { ...config };
    delete bad[key];
    writeFileSync(join(dir, 'config.json'), JSON.stringify(bad));
    await assert.rejects(loadModel(dir), namesKey(key), `no ${key}`);
  }
});
