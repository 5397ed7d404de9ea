// Every way loading or running can go wrong gives an AttnScopeError with the documented code
// and a message naming the problem — never a crash, a hang or silent garbage — and failed loads
// leave no memory behind in the wasm heap.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, truncateSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { loadModel, heapStats, AttnScopeError, ERROR_CODES } from '../../js/index.js';
import { safetensorsBytes, tinyBertFiles, tinyTokenizerJson, writeTinyBert } from './helpers/api-tiny-model.js';
import { startMockHub, unreachableUrl } from './helpers/api-mock-hub.js';

const work = mkdtempSync(join(tmpdir(), 'attnscope-errors-'));
const files = tinyBertFiles({ seed: 3 });
let hub;
let heapBefore;

before(async () => {
  // Every repository here claims a 5 GB model.safetensors (headers only, no body).
  hub = await startMockHub({ 'org/huge': files }, { fakeSizes: { 'model.safetensors': 5 * 1024 ** 3 } });
  // One load first: the heap comparison below must not count one-time allocations.
  (await loadModel({ config: files['config.json'], weights: files['model.safetensors'], vocab: files['vocab.txt'] })).dispose();
  heapBefore = (await heapStats()).inUse;
});
after(async () => {
  await hub?.close();
  rmSync(work, { recursive: true, force: true });
});

/** A folder with the tiny model's files, some replaced (null = removed). */
function folder(name, changes = {}) {
  const dir = writeTinyBert(join(work, name), { seed: 3 });
  for (const [file, contents] of Object.entries(changes)) {
    if (contents === null) unlinkSync(join(dir, file));
    else writeFileSync(join(dir, file), contents);
  }
  return dir;
}

async function rejectsWith(promise, code, pattern) {
  await assert.rejects(promise, (error) => {
    assert.ok(error instanceof AttnScopeError, `not an AttnScopeError: ${error?.stack ?? error}`);
    assert.equal(error.code, code, error.message);
    assert.ok(ERROR_CODES.includes(error.code));
    if (pattern) assert.match(error.message, pattern);
    return true;
  });
}

function throwsWith(fn, code, pattern) {
  assert.throws(fn, (error) => {
    assert.ok(error instanceof AttnScopeError, `not an AttnScopeError: ${error?.stack ?? error}`);
    assert.equal(error.code, code, error.message);
    if (pattern) assert.match(error.message, pattern);
    return true;
  });
}

const config = JSON.parse(files['config.json']);
const withConfig = (changes) => JSON.stringify({ ...config, ...changes });

describe('loading errors', () => {
  it('E_NETWORK: unreachable host, server errors, truncated download', async () => {
    const nowhere = await unreachableUrl();
    await rejectsWith(loadModel(nowhere), 'E_NETWORK', /cannot reach .*ECONNREFUSED/);
    const failing = await startMockHub({ 'org/tiny': files }, { failFiles: { 'config.json': 503 } });
    await rejectsWith(loadModel('org/tiny', { hubUrl: failing.url }), 'E_NETWORK', /503/);
    await failing.close();
    const cut = await startMockHub({ 'org/tiny': files }, { truncateFiles: new Set(['model.safetensors']) });
    await rejectsWith(loadModel('org/tiny', { hubUrl: cut.url }), 'E_NETWORK', /model\.safetensors/);
    await cut.close();
  });

  it('E_NOT_FOUND: unknown hub repository, missing weights, missing folder or file', async () => {
    await rejectsWith(loadModel('nobody/nothing', { hubUrl: hub.url }), 'E_NOT_FOUND', /config\.json.*401/);
    await rejectsWith(loadModel(`${hub.url}/nowhere/`), 'E_NOT_FOUND', /404/);
    const noWeights = await startMockHub({ 'org/x': { 'config.json': files['config.json'], 'vocab.txt': files['vocab.txt'] } });
    await rejectsWith(loadModel('org/x', { hubUrl: noWeights.url }), 'E_NOT_FOUND', /model\.safetensors.*safetensors/);
    await noWeights.close();
    await rejectsWith(loadModel(join(work, 'does-not-exist')), 'E_NOT_FOUND', /does-not-exist/);
    await rejectsWith(loadModel(folder('no-config', { 'config.json': null })), 'E_NOT_FOUND', /config\.json/);
    await rejectsWith(loadModel({ config: files['config.json'], vocab: files['vocab.txt'] }), 'E_NOT_FOUND', /model\.safetensors/);
  });

  it('E_CONFIG: not a supported model, a GPT-2 option the engine lacks, broken JSON, impossible sizes — before the weights are fetched', async () => {
    const cases = [
      [withConfig({ model_type: 'mamba' }), /mamba/],
      [JSON.stringify({ model_type: 'gpt2', vocab_size: 30, n_embd: 8, n_head: 2, n_layer: 1, n_positions: 8,
        scale_attn_by_inverse_layer_idx: true }), /scale_attn_by_inverse_layer_idx/],
      ['{"model_type": "bert", ', null],
      [withConfig({ hidden_size: 15 }), /hidden_size|num_attention_heads|divisible/],
      [withConfig({ hidden_act: 'swish' }), /swish/],
      [withConfig({ num_hidden_layers: -1 }), null],
      [Buffer.from([0xff, 0xfe, 0x7b, 0x7d]), /UTF-8/],
    ];
    for (const [text, pattern] of cases) {
      await rejectsWith(loadModel({ config: text, weights: files['model.safetensors'], vocab: files['vocab.txt'] }),
        'E_CONFIG', pattern);
    }
    const gpt = await startMockHub({ 'org/gpt': { ...files, 'config.json': withConfig({ model_type: 'mamba' }) } });
    await rejectsWith(loadModel('org/gpt', { hubUrl: gpt.url }), 'E_CONFIG');
    assert.ok(!gpt.requests.some((u) => u.endsWith('model.safetensors')), 'weights fetched despite a bad config');
    await gpt.close();
  });

  // The mock hub announces 5 GB and never sends the body: a loader that read it would hang (the
  // timeout guards that); the message shows the refusal came from the announced size.
  it('E_TOO_LARGE: a model beyond the 4 GB wasm32 space is refused before allocating', { timeout: 60000 }, async () => {
    await rejectsWith(loadModel('org/huge', { hubUrl: hub.url }), 'E_TOO_LARGE', /model\.safetensors is .*4 GB/);
    const dir = folder('huge');
    truncateSync(join(dir, 'model.safetensors'), 5 * 1024 ** 3); // sparse: no disk used
    await rejectsWith(loadModel(dir), 'E_TOO_LARGE', /MB/);
  });

  it('E_TOKENIZER: no tokenizer files, a vocabulary that does not fit the model, broken tokenizer.json', async () => {
    const base = { config: files['config.json'], weights: files['model.safetensors'] };
    await rejectsWith(loadModel(base), 'E_TOKENIZER', /tokenizer\.json or vocab\.txt/);
    const bigVocab = `${files['vocab.txt']}${Array.from({ length: 10 }, (_, i) => `extra${i}`).join('\n')}\n`;
    await rejectsWith(loadModel({ ...base, vocab: bigVocab }), 'E_TOKENIZER', /vocab_size/);
    // The one check of tokenizer against config (js/api/load.js) runs before the weights are fetched.
    const mismatched = await startMockHub({ 'org/mismatched': { ...files, 'vocab.txt': bigVocab } });
    await rejectsWith(loadModel('org/mismatched', { hubUrl: mismatched.url }), 'E_TOKENIZER', /tokenizer and model do not match/);
    assert.ok(!mismatched.requests.some((u) => u.endsWith('model.safetensors')), 'weights fetched despite a mismatched vocabulary');
    await mismatched.close();
    await rejectsWith(loadModel({ ...base, tokenizer: '{"model": ' }), 'E_TOKENIZER');
    const wordLevel = tinyTokenizerJson();  // a model type the engine does not reproduce
    wordLevel.model = { type: 'WordLevel', unk_token: '[UNK]', vocab: { '[UNK]': 0 } };
    await rejectsWith(loadModel({ ...base, tokenizer: wordLevel }), 'E_TOKENIZER', /WordLevel/);
    const unigram = tinyTokenizerJson();  // a Unigram model whose unk_id is outside its vocabulary
    unigram.model = { type: 'Unigram', unk_id: 5, vocab: [['[UNK]', 0]] };
    await rejectsWith(loadModel({ ...base, tokenizer: unigram }), 'E_TOKENIZER', /unk_id/);
    const charsmap = tinyTokenizerJson();  // a Precompiled charsmap whose trie size lies
    charsmap.normalizer = { type: 'Precompiled', precompiled_charsmap: Buffer.from([255, 0, 0, 0, 1, 2]).toString('base64') };
    await rejectsWith(loadModel({ ...base, tokenizer: charsmap }), 'E_TOKENIZER', /Precompiled/);
    await rejectsWith(loadModel({ ...base, vocab: Buffer.from([0x61, 0x0a, 0xc3, 0x28, 0x0a]) }), 'E_TOKENIZER', /UTF-8/);
    await rejectsWith(loadModel({ ...base, vocab: files['vocab.txt'], tokenizerConfig: '[1, 2' }), 'E_TOKENIZER');
    const broken = await startMockHub({ 'org/broken': { ...files, 'tokenizer.json': '{"model": ' } });
    await rejectsWith(loadModel('org/broken', { hubUrl: broken.url }), 'E_TOKENIZER');
    assert.ok(!broken.requests.some((u) => u.endsWith('model.safetensors')), 'weights fetched despite a broken tokenizer');
    await broken.close();
  });

  it('E_SAFETENSORS: truncated, garbage, or a header that lies about the data', async () => {
    const weights = files['model.safetensors'];
    const load = (bytes) => loadModel({ config: files['config.json'], weights: bytes, vocab: files['vocab.txt'] });
    await rejectsWith(load(weights.subarray(0, weights.length - 100)), 'E_SAFETENSORS');
    await rejectsWith(load(new Uint8Array(3)), 'E_SAFETENSORS');
    await rejectsWith(load(new TextEncoder().encode('this is not a safetensors file at all')), 'E_SAFETENSORS');
    const lying = safetensorsBytes({ 'bert.embeddings.word_embeddings.weight': { shape: [2, 2], data: new Float32Array(4) } });
    const header = new TextDecoder().decode(lying.subarray(8, 8 + Number(new DataView(lying.buffer).getBigUint64(0, true))));
    const bigger = header.replace('"shape":[2,2]', '"shape":[100000,100000]');
    const forged = new Uint8Array(lying.length);
    forged.set(lying);
    forged.set(new TextEncoder().encode(bigger.padEnd(header.length)), 8);
    await rejectsWith(load(forged), 'E_SAFETENSORS');
  });

  it('E_WEIGHTS: a missing tensor or a wrong shape is named', async () => {
    const tensors = tinyTensors();
    delete tensors['bert.encoder.layer.1.attention.self.key.weight'];
    await rejectsWith(loadModel({ config: files['config.json'], weights: safetensorsBytes(tensors), vocab: files['vocab.txt'] }),
      'E_WEIGHTS', /layer\.1\.attention\.self\.key\.weight/);
    await rejectsWith(loadModel({ config: withConfig({ intermediate_size: 30 }), weights: files['model.safetensors'],
      vocab: files['vocab.txt'] }), 'E_WEIGHTS', /intermediate/);
  });

  it('E_INPUT: sources and options that make no sense', async () => {
    await rejectsWith(loadModel(42), 'E_INPUT');
    await rejectsWith(loadModel('not a model id!'), 'E_INPUT', /cannot tell/);
    await rejectsWith(loadModel({ config: '{}', weigths: new Uint8Array(1) }), 'E_INPUT', /weigths/);
    await rejectsWith(loadModel({ config: files['config.json'], weights: 'not bytes', vocab: files['vocab.txt'] }), 'E_INPUT');
    await rejectsWith(loadModel(undefined, { onProgress: 'yes' }), 'E_INPUT');
  });

  it('leaves the wasm heap as it was after all those failures', async () => {
    assert.equal((await heapStats()).inUse, heapBefore);
  });
});

describe('run errors', () => {
  let model;
  before(async () => {
    model = await loadModel({ config: files['config.json'], weights: files['model.safetensors'], vocab: files['vocab.txt'] });
  });
  after(() => model.dispose());

  it('E_INPUT for bad text, ids, token types, masks and options', async () => {
    await rejectsWith(model.run(42), 'E_INPUT', /text must be a string/);
    await rejectsWith(model.run('x', { textPair: 7 }), 'E_INPUT', /textPair/);
    await rejectsWith(model.run('x', { topK: -1 }), 'E_INPUT', /topK/);
    await rejectsWith(model.run('x', { maxLength: 1.5 }), 'E_INPUT', /maxLength/);
    await rejectsWith(model.run('x', null), 'E_INPUT');
    await rejectsWith(model.runIds([]), 'E_INPUT');
    await rejectsWith(model.runIds([2, 999, 3]), 'E_INPUT', /999/);
    await rejectsWith(model.runIds([2, -1, 3]), 'E_INPUT');
    await rejectsWith(model.runIds([2, 1.5, 3]), 'E_INPUT', /1\.5/);
    await rejectsWith(model.runIds('2,3'), 'E_INPUT');
    await rejectsWith(model.runIds([2, 5, 3], { tokenTypes: [0, 2, 0] }), 'E_INPUT');
    await rejectsWith(model.runIds([2, 5, 3], { tokenTypes: [0, 0] }), 'E_INPUT');
    await rejectsWith(model.runIds([2, 5, 3], { attentionMask: [1, 2, 1] }), 'E_INPUT');
    await rejectsWith(model.runIds(Array(65).fill(5)), 'E_INPUT', /64|position/);
    throwsWith(() => model.idToToken(10_000), 'E_INPUT');
    throwsWith(() => model.tokenize('x', { maxLength: -2 }), 'E_INPUT');
    // The model still works after all of that.
    assert.equal((await model.run('the bank')).tokens.length, 4);
  });

  it('E_DISPOSED after dispose()', async () => {
    const doomed = await loadModel({ config: files['config.json'], weights: files['model.safetensors'], vocab: files['vocab.txt'] });
    doomed.dispose();
    assert.equal(doomed.disposed, true);
    await rejectsWith(doomed.run('x'), 'E_DISPOSED');
    await rejectsWith(doomed.runIds([2, 3]), 'E_DISPOSED');
    throwsWith(() => doomed.tokenize('x'), 'E_DISPOSED');
  });
});

// The tiny model's tensors, to rebuild a checkpoint with one removed.
function tinyTensors() {
  const bytes = files['model.safetensors'];
  const view = new DataView(bytes.buffer, bytes.byteOffset);
  const n = Number(view.getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n)));
  const tensors = {};
  for (const [name, { shape, data_offsets: [start, end] }] of Object.entries(header)) {
    tensors[name] = { shape, data: new Float32Array(bytes.slice(8 + n + start, 8 + n + end).buffer) };
  }
  return tensors;
}
