// The JavaScript API over the WASM build: every kind of model source (folder, file URL, object,
// Blob, base URL, hub id through a mock hub, the bundled model), run()/runIds() checked against
// a PyTorch reference and @huggingface/tokenizers, options, masked-LM predictions, progress,
// cancellation and memory (load/dispose cycles leave the wasm heap where it was).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Tokenizer } from '@huggingface/tokenizers';

import { loadModel, heapStats, bundledModelLocation, hubUrlFor, RunResult } from '../../js/index.js';
import { tinyBertFiles, tinyTokenizerJson, writeTinyBert, TINY_VOCAB } from './helpers/api-tiny-model.js';
import { startMockHub } from './helpers/api-mock-hub.js';
import { maxAbsDiff, softmax, torchReference } from './helpers/api-reference.js';

const work = mkdtempSync(join(tmpdir(), 'attnscope-api-'));
const tinyDir = writeTinyBert(join(work, 'tiny'), { seed: 7 });
const f16Dir = writeTinyBert(join(work, 'tiny-f16'), { seed: 8, dtype: 'F16', layers: 3, heads: 4 });
const noMlmDir = writeTinyBert(join(work, 'tiny-no-mlm'), { seed: 9, mlmHead: false });
const files = tinyBertFiles({ seed: 7 });
let hub;

before(async () => {
  const withTokenizerJson = { ...files, 'tokenizer.json': JSON.stringify(tinyTokenizerJson()) };
  delete withTokenizerJson['vocab.txt'];
  hub = await startMockHub({
    'org/tiny': files,
    'org/tiny-tokjson': withTokenizerJson,
    'org/tiny-slow': files,
  }, { slowFiles: new Set(['model.safetensors']), chunkDelayMs: 30 });
});
after(async () => {
  await hub?.close();
  rmSync(work, { recursive: true, force: true });
});

const SENTENCES = ['The bank of the river.', 'Hello, world!', 'the cat sat on the mat', 'Unaffable cats run!',
  'É the  [MASK]  river', '', 'bank'];

function hfTokenizer() {
  return new Tokenizer(tinyTokenizerJson(), { do_lower_case: true });
}

describe('loadModel sources', () => {
  it('loads a folder by absolute path, relative path and file: URL', async () => {
    for (const source of [tinyDir, `./${relative(process.cwd(), tinyDir)}`, pathToFileURL(tinyDir).href]) {
      const model = await loadModel(source);
      assert.equal(model.info.source, 'dir');
      assert.equal(model.info.location, tinyDir);
      assert.equal(model.config.numLayers, 2);
      assert.equal(model.config.hiddenSize, 16);
      assert.deepEqual(Object.keys(model.info.files).sort(),
        ['config.json', 'model.safetensors', 'tokenizer_config.json', 'vocab.txt']);
      model.dispose();
    }
  });

  it('loads from an object of strings, JSON objects, typed arrays, ArrayBuffers and Blobs', async () => {
    const weights = files['model.safetensors'];
    const variants = [
      { config: files['config.json'], weights, vocab: files['vocab.txt'] },
      { config: JSON.parse(files['config.json']), weights: weights.buffer.slice(0), tokenizer: tinyTokenizerJson() },
      { config: new Blob([files['config.json']]), weights: new Blob([weights]), vocab: new Blob([files['vocab.txt']]),
        tokenizerConfig: JSON.parse(files['tokenizer_config.json']) },
    ];
    const reference = await (await loadModel(tinyDir)).runIds([2, 5, 6, 3]);
    for (const source of variants) {
      const model = await loadModel(source);
      assert.equal(model.info.source, 'object');
      const result = await model.runIds([2, 5, 6, 3]);
      assert.deepEqual(result.attentions, reference.attentions);
      assert.deepEqual(model.tokenize('The bank').tokens, ['[CLS]', 'the', 'bank', '[SEP]']);
      model.dispose();
    }
  });

  it('loads the Files of a picked folder (File[] as from <input type=file webkitdirectory>)', async () => {
    const picked = Object.entries(files).map(([name, contents]) => new File([contents], name));
    picked.push(new File(['ignored'], 'README.md'));
    const model = await loadModel(picked);
    assert.equal(model.info.source, 'files');
    assert.deepEqual(model.tokenize('the river').tokens, ['[CLS]', 'the', 'river', '[SEP]']);
    model.dispose();
  });

  it('loads a base URL (string, URL object, or the URL of config.json)', async () => {
    const base = `${hub.url}/org/tiny/resolve/main/`;
    for (const source of [base, base.slice(0, -1), new URL(base), `${base}config.json`]) {
      const model = await loadModel(source);
      assert.equal(model.info.source, 'url');
      assert.equal(model.info.location, base);
      model.dispose();
    }
  });

  it('loads a hub id from the hub URL given as option or ATTNSCOPE_HUB_URL, with progress', async () => {
    const events = [];
    const model = await loadModel('org/tiny', { hubUrl: hub.url, onProgress: (p) => events.push(p) });
    assert.equal(model.info.source, 'hub');
    assert.equal(model.info.id, 'org/tiny');
    assert.equal(model.info.location, `${hub.url}/org/tiny/resolve/main/`);
    const weights = events.filter((e) => e.file === 'model.safetensors');
    assert.ok(weights.length >= 1);
    for (let i = 1; i < weights.length; i++) assert.ok(weights[i].loaded > weights[i - 1].loaded);
    assert.equal(weights.at(-1).loaded, files['model.safetensors'].length);
    assert.equal(weights.at(-1).total, files['model.safetensors'].length);
    for (const name of ['config.json', 'vocab.txt', 'tokenizer_config.json']) {
      assert.equal(events.filter((e) => e.file === name).at(-1).loaded, Buffer.byteLength(files[name]));
    }
    model.dispose();

    process.env.ATTNSCOPE_HUB_URL = hub.url;
    try {
      const again = await loadModel('org/tiny', { revision: 'v1.0' });
      assert.equal(again.info.location, `${hub.url}/org/tiny/resolve/v1.0/`);
      again.dispose();
    } finally {
      delete process.env.ATTNSCOPE_HUB_URL;
    }
    assert.equal(hubUrlFor('google-bert/bert-base-uncased'), 'https://huggingface.co/google-bert/bert-base-uncased/resolve/main/');
  });

  it('prefers tokenizer.json on the hub and then does not download vocab.txt', async () => {
    const before = hub.requests.length;
    const model = await loadModel('org/tiny-tokjson', { hubUrl: hub.url });
    const asked = hub.requests.slice(before).map((u) => u.split('/').pop());
    assert.deepEqual(asked, ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'model.safetensors']);
    assert.equal(model.info.tokenizer, 'tokenizer.json');
    const hf = hfTokenizer().encode('Unaffable rivers!', { return_token_type_ids: true });
    assert.deepEqual(model.tokenize('Unaffable rivers!').tokens, hf.tokens);
    model.dispose();
  });

  it('loads the bundled model by default and as "bundled"', async () => {
    assert.ok(existsSync(join(bundledModelLocation, 'config.json')), `no bundled model in ${bundledModelLocation}`);
    for (const source of [undefined, 'bundled']) {
      const model = await loadModel(source);
      assert.equal(model.info.source, 'bundled');
      assert.equal(model.info.location, bundledModelLocation);
      const result = await model.run('The bank of the [MASK].', { textPair: 'It flows to the sea.' });
      assert.equal(result.tokens[0], '[CLS]');
      assert.equal(result.tokens.at(-1), '[SEP]');
      assert.deepEqual(result.shape, [model.config.numLayers, model.config.numHeads, result.tokens.length, result.tokens.length]);
      if (source === undefined) {
        const position = result.tokens.indexOf('[MASK]');
        const ref = torchReference(bundledModelLocation, { ids: result.ids, tokenTypes: result.typeIds, maskPositions: [position] });
        const att = maxAbsDiff(result.attentions, ref.attentions);
        const hid = maxAbsDiff(result.hidden, ref.hidden);
        console.log(`# bundled model vs PyTorch: attentions ${att.max.toExponential(2)}, hidden ${hid.max.toExponential(2)}`);
        assert.ok(att.max <= 1e-4, `attentions differ by ${att.max}`);
        assert.ok(hid.max <= 1e-3, `hidden differs by ${hid.max}`);
        const probs = softmax(ref.mlm_logits);
        const best = probs.indexOf(Math.max(...probs));
        assert.equal(result.maskPredictions[0].top[0].id, best);
        assert.ok(Math.abs(result.maskPredictions[0].top[0].prob - probs[best]) < 1e-4);
      }
      model.dispose();
    }
  });

  it('a model dropped without dispose() is freed by the FinalizationRegistry (backstop)', () => {
    const script = `
      import { loadModel, heapStats } from ${JSON.stringify(new URL('../../js/index.js', import.meta.url).href)};
      (await loadModel(${JSON.stringify(tinyDir)})).dispose();
      const before = (await heapStats()).inUse;
      for (let i = 0; i < 5; i++) await loadModel(${JSON.stringify(tinyDir)}); // never disposed
      const leaked = (await heapStats()).inUse;
      // No deadline on the collector: collect and yield (the registry's callbacks run as tasks)
      // until the memory is back; only the child's timeout below ends a registry that never frees.
      let collections = 0;
      while ((await heapStats()).inUse !== before) {
        globalThis.gc();
        collections++;
        await new Promise((resolve) => setImmediate(resolve));
      }
      console.log(JSON.stringify({ before, leaked, after: (await heapStats()).inUse, collections }));`;
    const child = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 120000 });
    assert.equal(child.status, 0, child.signal ? `the models were never freed (killed by ${child.signal})` : child.stderr);
    const { before, leaked, after: afterGc } = JSON.parse(child.stdout);
    assert.ok(leaked > before, 'the models did allocate');
    assert.equal(afterGc, before);
  });
});

describe('run and runIds', () => {
  it("weightPrecision 'f16': PyTorch on f16-rounded matrices agrees; an f16 checkpoint gives f32's results exactly", async () => {
    const text = 'The bank of the [MASK] river.';
    for (const dir of [tinyDir, f16Dir]) {
      const f16 = await loadModel(dir, { weightPrecision: 'f16' });
      const f32 = await loadModel(dir);
      assert.equal(f16.info.weightPrecision, 'f16');
      assert.equal(f32.info.weightPrecision, 'f32');
      const half = await f16.run(text, { topK: 3 });
      const full = await f32.run(text, { topK: 3 });
      const maskPositions = [...half.ids].flatMap((id, i) => (id === 4 ? [i] : []));
      const ref = torchReference(dir, { ids: half.ids, tokenTypes: half.typeIds, maskPositions, f16Matrices: true });
      const att = maxAbsDiff(half.attentions, ref.attentions);
      const hid = maxAbsDiff(half.hidden, ref.hidden);
      assert.ok(att.max <= 1e-5, `${dir}: attentions differ by ${att.max} at ${att.at}`);
      assert.ok(hid.max <= 1e-4, `${dir}: hidden differs by ${hid.max} at ${hid.at}`);
      const probs = softmax(ref.mlm_logits);
      half.maskPredictions[0].top.forEach((t) => assert.ok(Math.abs(t.prob - probs[t.id]) < 1e-5));
      if (dir === f16Dir) {
        assert.deepEqual(half.attentions, full.attentions);  // same weights, same arithmetic
        assert.deepEqual(half.hidden, full.hidden);
      } else {
        assert.ok(maxAbsDiff(half.attentions, full.attentions).max > 0, 'f32 weights rounded to f16 change something');
      }
      f16.dispose();
      f32.dispose();
    }
    await assert.rejects(loadModel(tinyDir, { weightPrecision: 'f8' }), (e) => e.code === 'E_INPUT' && /weightPrecision/.test(e.message));
  });

  it("weightPrecision 'f16' takes about half the wasm heap of 'f32'", async () => {
    const dir = writeTinyBert(join(work, 'wide'), { seed: 3, hidden: 256, heads: 4, intermediate: 1024, layers: 4 });
    const inUse = async (options) => {
      const before = (await heapStats()).inUse;
      const model = await loadModel(dir, options);
      const grown = (await heapStats()).inUse - before;
      model.dispose();
      return grown;
    };
    const full = await inUse({});
    const half = await inUse({ weightPrecision: 'f16' });
    console.log(`# 4 × 256 model weights in wasm heap: f32 ${full} B, f16 ${half} B (${(half / full).toFixed(3)}×)`);
    assert.ok(half < 0.6 * full, `f16 ${half} B vs f32 ${full} B`);
  });

  it('matches a PyTorch reference (attentions, hidden, MLM probabilities) for F32 and F16 checkpoints', async () => {
    for (const dir of [tinyDir, f16Dir]) {
      const model = await loadModel(dir);
      const text = 'The bank of the [MASK] river.';
      const pair = 'a cat [MASK] on the mat';
      const result = await model.run(text, { textPair: pair, topK: 4 });
      const maskPositions = [...result.ids].flatMap((id, i) => (id === 4 ? [i] : []));
      assert.equal(maskPositions.length, 2);
      const ref = torchReference(dir, { ids: result.ids, tokenTypes: result.typeIds, maskPositions });
      const att = maxAbsDiff(result.attentions, ref.attentions);
      const hid = maxAbsDiff(result.hidden, ref.hidden);
      assert.ok(att.max <= 1e-5, `attentions differ by ${att.max} at ${att.at}`);
      assert.ok(hid.max <= 1e-4, `hidden differs by ${hid.max} at ${hid.at}`);
      assert.equal(result.maskPredictions.length, 2);
      const V = TINY_VOCAB.length;
      result.maskPredictions.forEach((prediction, r) => {
        assert.equal(prediction.position, maskPositions[r]);
        const probs = softmax(ref.mlm_logits.slice(r * V, (r + 1) * V));
        const expected = probs.map((p, id) => ({ id, p })).sort((a, b) => b.p - a.p).slice(0, 4);
        assert.deepEqual(prediction.top.map((t) => t.id), expected.map((e) => e.id));
        prediction.top.forEach((t, i) => {
          assert.ok(Math.abs(t.prob - expected[i].p) < 1e-5, `prob ${t.prob} vs ${expected[i].p}`);
          assert.equal(t.token, TINY_VOCAB[t.id]);
        });
      });
      model.dispose();
    }
  });

  it('tokenizes exactly like @huggingface/tokenizers, with offsets into the input', async () => {
    const model = await loadModel(tinyDir);
    const hf = hfTokenizer();
    for (const text of SENTENCES) {
      for (const pair of [undefined, 'the river bank']) {
        const ours = model.tokenize(text, { textPair: pair });
        const theirs = hf.encode(text, { text_pair: pair ?? null, return_token_type_ids: true });
        assert.deepEqual(ours.tokens, theirs.tokens, text);
        assert.deepEqual([...ours.ids], theirs.ids, text);
        assert.deepEqual([...ours.typeIds], theirs.token_type_ids, text);
        const run = await model.run(text, { textPair: pair });
        assert.deepEqual(run.tokens, ours.tokens);
        assert.deepEqual(run.offsets, ours.offsets);
        // Offsets: special tokens (0,0); every word piece is the lower-cased input at its span.
        ours.tokens.forEach((token, i) => {
          const [start, end] = [ours.offsets[2 * i], ours.offsets[2 * i + 1]];
          const special = token === '[CLS]' || (token === '[SEP]' && end === 0);
          assert.equal(ours.specialTokensMask[i], special ? 1 : 0, `${text} token ${i}`);
          if (special) return assert.deepEqual([start, end], [0, 0]);
          const source = i < ours.typeIds.indexOf(1) || ours.typeIds[i] === 0 ? text : pair;
          const piece = source.slice(start, end).toLowerCase().normalize('NFD').replace(/\p{Mn}/gu, '');
          assert.ok(end > start, `${text}: empty span for ${token}`);
          if (token !== '[UNK]') assert.equal(piece, token.replace(/^##/, '').toLowerCase(), `${text}: ${token} at ${start}..${end}`);
        });
      }
    }
    model.dispose();
  });

  it('returns attentions as rows that sum to 1, with attention(layer, head) a view into them', async () => {
    const model = await loadModel(f16Dir);
    const result = await model.run('the cat sat on the mat');
    assert.ok(result instanceof RunResult);
    const [L, H, T] = result.shape;
    assert.deepEqual([L, H], [3, 4]);
    assert.equal(result.attentions.length, L * H * T * T);
    assert.equal(result.hidden.length, T * 16);
    for (let l = 0; l < L; l++) {
      for (let h = 0; h < H; h++) {
        const head = result.attention(l, h);
        assert.equal(head.buffer, result.attentions.buffer);
        assert.deepEqual(head, result.attentions.slice((l * H + h) * T * T, (l * H + h + 1) * T * T));
        for (let i = 0; i < T; i++) {
          const sum = head.subarray(i * T, (i + 1) * T).reduce((a, b) => a + b, 0);
          assert.ok(Math.abs(sum - 1) < 1e-5, `layer ${l} head ${h} row ${i} sums to ${sum}`);
        }
      }
    }
    assert.throws(() => result.attention(L, 0), { code: 'E_INPUT' });
    assert.throws(() => result.attention(0, -1), { code: 'E_INPUT' });
    model.dispose();
  });

  it('returns hidden states, q/k/v and value norms when asked, with consistent shapes', async () => {
    const model = await loadModel(f16Dir);
    const plain = await model.run('hello world');
    assert.equal(plain.hiddenStates, undefined);
    assert.equal(plain.q, undefined);
    assert.equal(plain.valueNorms, undefined);
    const result = await model.run('hello world', { hiddenStates: true, qkv: true, valueNorms: true });
    const [L, H, T] = result.shape;
    const C = 16;
    const dh = C / H;
    assert.equal(result.hiddenStates.length, (L + 1) * T * C);
    assert.deepEqual(result.hiddenStates.subarray(L * T * C), result.hidden);
    for (const name of ['q', 'k', 'v']) assert.equal(result[name].length, L * H * T * dh, name);
    assert.equal(result.valueNorms.length, L * H * T);
    assert.ok(result.valueNorms.every((x) => x >= 0 && Number.isFinite(x)));
    // The attentions do not depend on what else was requested.
    assert.deepEqual(result.attentions, plain.attentions);
    model.dispose();
  });

  it('a result keeps its numbers when the model runs again (the engine reuses its own buffers)', async () => {
    const model = await loadModel(f16Dir);
    const first = await model.run('the cat sat on the mat', { qkv: true });
    const copies = Object.fromEntries(['attentions', 'hidden', 'q'].map((k) => [k, first[k].slice()]));
    await model.run('a completely different and rather longer sentence about dogs', { qkv: true });
    await model.run('dogs');
    for (const [k, v] of Object.entries(copies)) assert.deepEqual(first[k], v, k);
    model.dispose();
  });

  it('reuse: a later run writes into an earlier result, with the numbers of a fresh run', async () => {
    const model = await loadModel(f16Dir);
    const longText = 'the cat sat on the mat and the dog sat on the log';
    const long = await model.run(longText, { hiddenStates: true });
    const buffer = long.attentions.buffer;
    const fresh = await model.run('hello world', { hiddenStates: true });
    const reused = await model.run('hello world', { hiddenStates: true, reuse: long });
    assert.equal(reused.attentions.buffer, buffer, "the earlier result's memory is written, not new memory");
    for (const name of ['attentions', 'hidden', 'hiddenStates']) assert.deepEqual(reused[name], fresh[name], name);
    assert.deepEqual(reused.attention(1, 2), fresh.attention(1, 2));
    assert.match(long.released, /reuse/);
    assert.equal(long.attentions.length, 0);
    assert.throws(() => long.attention(0, 0), { code: 'E_DISPOSED' });
    await assert.rejects(model.run('x', { reuse: long }), { code: 'E_INPUT' });
    await assert.rejects(model.run('x', { reuse: { attentions: new Float32Array(4) } }), { code: 'E_INPUT' });
    // A result too small for the next run: new memory, still the right numbers.
    const small = await model.run('hi');
    const smallBuffer = small.attentions.buffer;
    const grown = await model.run(longText, { reuse: small });
    assert.notEqual(grown.attentions.buffer, smallBuffer);
    assert.deepEqual(grown.attentions, (await model.run(longText)).attentions);
    model.dispose();
  });

  it('truncates to maxLength (default: the model positions) and reports numTruncated', async () => {
    const model = await loadModel(tinyDir); // 64 positions
    const long = Array(100).fill('the cat').join(' ');
    const result = await model.run(long);
    assert.equal(result.tokens.length, 64);
    assert.equal(result.numTruncated, 200 + 2 - 64);
    const short = await model.run(long, { maxLength: 10 });
    assert.equal(short.tokens.length, 10);
    assert.equal(short.tokens.at(-1), '[SEP]');
    model.dispose();
  });

  it('runIds: token types and attention mask are applied; tokens come from the vocabulary', async () => {
    const model = await loadModel(tinyDir);
    const ids = [2, 5, 6, 3, 11, 3];
    const tokenTypes = [0, 0, 0, 0, 1, 1];
    const result = await model.runIds(ids, { tokenTypes, attentionMask: [1, 1, 1, 1, 0, 0] });
    assert.deepEqual(result.tokens, ['[CLS]', 'the', 'bank', '[SEP]', 'cat', '[SEP]']);
    assert.deepEqual([...result.typeIds], tokenTypes);
    const [L, H, T] = result.shape;
    for (let l = 0; l < L; l++) for (let h = 0; h < H; h++) {
      const head = result.attention(l, h);
      for (let i = 0; i < T; i++) assert.deepEqual([head[i * T + 4], head[i * T + 5]], [0, 0]);
    }
    const typed = await model.runIds(ids, { tokenTypes });
    const ref = torchReference(tinyDir, { ids, tokenTypes });
    assert.ok(maxAbsDiff(typed.attentions, ref.attentions).max <= 1e-5);
    // The caller's arrays are copied, not captured.
    const input = Int32Array.from(ids);
    const fromTyped = await model.runIds(input);
    fromTyped.ids[0] = 99;
    assert.equal(input[0], 2);
    model.dispose();
  });

  it('gives mask predictions only with an MLM head, [MASK] tokens and topK > 0', async () => {
    const model = await loadModel(tinyDir);
    assert.equal((await model.run('the river bank')).maskPredictions, undefined);
    assert.equal((await model.run('the [MASK] bank', { topK: 0 })).maskPredictions, undefined);
    const top = (await model.run('the [MASK] bank', { topK: 100 })).maskPredictions[0].top;
    assert.equal(top.length, TINY_VOCAB.length); // k is capped at the vocabulary
    assert.ok(Math.abs(top.reduce((a, t) => a + t.prob, 0) - 1) < 1e-5);
    for (let i = 1; i < top.length; i++) assert.ok(top[i].prob <= top[i - 1].prob);
    model.dispose();
    const headless = await loadModel(noMlmDir);
    assert.equal(headless.info.hasMlmHead, false);
    assert.equal((await headless.run('the [MASK] bank')).maskPredictions, undefined);
    headless.dispose();
  });

  it('follows the mask token that tokenizer_config.json names', async () => {
    const vocab = TINY_VOCAB.map((t) => (t === '[MASK]' ? '<mask>' : t));
    const f = tinyBertFiles({ vocab, seed: 7 });
    const model = await loadModel({ config: f['config.json'], weights: f['model.safetensors'], vocab: f['vocab.txt'],
      tokenizerConfig: { do_lower_case: true, mask_token: '<mask>' } });
    const result = await model.run('the <mask> bank');
    assert.deepEqual(result.tokens, ['[CLS]', 'the', '<mask>', 'bank', '[SEP]']);
    assert.deepEqual(result.maskPredictions.map((p) => p.position), [2]);
    model.dispose();
  });

  it('accepts any JavaScript string: lone surrogates become U+FFFD, offsets stay in range', async () => {
    const model = await loadModel(tinyDir);
    for (const text of ['bank \uD800 river', '\uDC00the', 'cat \uD83D\uDE00 mat', 'a\u0000b\u200Bc']) {
      const result = await model.run(text);
      for (const x of result.offsets) assert.ok(x >= 0 && x <= text.length, `${JSON.stringify(text)}: ${result.offsets}`);
    }
    model.dispose();
  });
});

describe('memory and cancellation', () => {
  it('50 load/dispose cycles leave the wasm heap where it was', async () => {
    (await loadModel()).dispose(); // warm-up: one-time allocations (tables, caches)
    const before = (await heapStats()).inUse;
    for (let i = 0; i < 50; i++) {
      const model = await loadModel(i % 2 ? f16Dir : undefined); // the bundled model, a tiny F16 one
      await model.run('the bank of the [MASK] river', { hiddenStates: true, qkv: true, valueNorms: true });
      model.dispose();
      model.dispose(); // idempotent
    }
    const afterCycles = (await heapStats()).inUse;
    console.log(`# heap in use before ${before} B, after 50 load/run/dispose cycles ${afterCycles} B`);
    assert.equal(afterCycles, before);
  });

  // The timeout only guards against a hang; the test's claim is about bytes, not milliseconds.
  it('an AbortSignal cancels a download in progress and frees its buffer', { timeout: 60000 }, async () => {
    const before = (await heapStats()).inUse;
    const controller = new AbortController();
    let loaded = 0;
    const pending = loadModel('org/tiny-slow', {
      hubUrl: hub.url,
      signal: controller.signal,
      onProgress: (p) => {
        if (p.file !== 'model.safetensors') return;
        loaded = p.loaded;
        if (p.loaded >= 2048) controller.abort();
      },
    });
    await assert.rejects(pending, { code: 'E_ABORTED' });
    // Cancelled mid-download (the slow hub sends 1 KB at a time), not once the file was in.
    assert.ok(loaded < files['model.safetensors'].length, `read ${loaded} bytes of ${files['model.safetensors'].length} before stopping`);
    assert.equal((await heapStats()).inUse, before);
    const requestsBefore = hub.requests.length;
    await assert.rejects(loadModel('org/tiny', { hubUrl: hub.url, signal: AbortSignal.abort() }), { code: 'E_ABORTED' });
    assert.equal(hub.requests.length, requestsBefore, 'an aborted signal must not start a download');
  });
});
