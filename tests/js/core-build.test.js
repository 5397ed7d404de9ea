// The core wasm build (engine/build_features.h, dist/attnscope-core*.wasm): what js/api/wasm.js picks
// for a model (coreBuildRuns: not an encoder–decoder, not int8), that the engine's own test for
// an encoder–decoder config agrees with that list, and that a model run on the core build gives
// the full build's bits while encoder–decoders and q8 still load (from the full build). Node runs
// the full build unless ATTNSCOPE_CORE_BUILD=1, so the core side runs in a child Node.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

import { loadModel } from '../../js/index.js';
import { SEQ2SEQ_MODEL_TYPES, coreBuildRuns, encoderBuildRuns, getWasmModule } from '../../js/api/wasm.js';

const INDEX = new URL('../../js/index.js', import.meta.url).href;
const WASM = new URL('../../js/api/wasm.js', import.meta.url).href;
const TEXTS = { bundled: 'The bank of the [MASK] was flooded.', 'bundled-causal': 'The river bank was quiet and' };

const bits = (a) => Buffer.from(Float32Array.from(a).buffer).toString('base64');

test('coreBuildRuns: every model but an encoder–decoder or int8 weights', () => {
  const config = (type) => JSON.stringify({ model_type: type });
  for (const type of ['bert', 'distilbert', 'roberta', 'gpt2', 'llama', 'qwen2']) {
    assert.equal(coreBuildRuns(config(type), 'f32'), true, type);
    assert.equal(coreBuildRuns(config(type), 'auto'), true, type);
    assert.equal(coreBuildRuns(config(type), 'q8'), false, type);
  }
  for (const type of ['bart', 'marian', 't5']) assert.equal(coreBuildRuns(config(type), 'f16'), false, type);
  assert.equal(coreBuildRuns('{"hidden_size": 8}', 'f32'), true);    // no model_type: BERT's default
  assert.equal(coreBuildRuns('{not json', 'f32'), true);            // the core build's E_CONFIG
});

test('SEQ2SEQ_MODEL_TYPES is what the engine calls an encoder–decoder config', async () => {
  const wasm = await getWasmModule();
  for (const type of [...SEQ2SEQ_MODEL_TYPES, 'bert', 'gpt2', 'llama', 'mbart', 'T5', 'pegasus']) {
    assert.equal(wasm.isSeq2SeqConfig(JSON.stringify({ model_type: type })), SEQ2SEQ_MODEL_TYPES.includes(type), type);
  }
});

test('with ATTNSCOPE_CORE_BUILD=1 BERT and GPT-2 run on the core build with the full build\'s bits; T5 and q8 still load', async () => {
  const expected = {};
  for (const name of Object.keys(TEXTS)) {
    const model = await loadModel(name, { threads: 1 });
    try {
      const r = await model.run(TEXTS[name]);
      expected[name] = { hidden: bits(r.hidden), attentions: bits(r.attentions) };
    } finally {
      model.dispose();
    }
  }
  const script = `
    import { loadModel } from ${JSON.stringify(INDEX)};
    import { getWasmModule } from ${JSON.stringify(WASM)};
    const core = await getWasmModule({ threads: 1, core: true });
    const info = core.buildInfo();
    const out = { build: info.build, q8Kernel: info.q8Kernel ?? null, seq2seq: typeof core.createSeq2SeqModel, runs: {} };
    const bits = (a) => Buffer.from(Float32Array.from(a).buffer).toString('base64');
    for (const [name, text] of Object.entries(${JSON.stringify(TEXTS)})) {
      const before = core.heapStats().inUse;
      const model = await loadModel(name, { threads: 1 });
      const grew = core.heapStats().inUse - before;
      const r = await model.run(text);
      out.runs[name] = { grew, hidden: bits(r.hidden), attentions: bits(r.attentions) };
      model.dispose();
    }
    const t5 = await loadModel('bundled-seq2seq', { threads: 1 });
    out.t5 = t5.info.kind;
    t5.dispose();
    const q8 = await loadModel('bundled', { threads: 1, weightPrecision: 'q8' });
    out.q8 = q8.info.weightPrecision;
    q8.dispose();
    console.log(JSON.stringify(out));`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script],
    { encoding: 'utf8', timeout: 120000, env: { ...process.env, ATTNSCOPE_CORE_BUILD: '1' } });
  assert.equal(child.status, 0, child.stderr);
  const out = JSON.parse(child.stdout);
  assert.equal(out.build, 'core');
  assert.equal(out.q8Kernel, null);
  assert.equal(out.seq2seq, 'undefined');
  for (const name of Object.keys(TEXTS)) {
    // The model's weights went into the core module's heap: it ran there.
    assert.ok(out.runs[name].grew > 100_000, `${name}: the core heap grew by ${out.runs[name].grew} bytes`);
    assert.equal(out.runs[name].hidden, expected[name].hidden, `${name}: hidden`);
    assert.equal(out.runs[name].attentions, expected[name].attentions, `${name}: attentions`);
  }
  assert.equal(out.t5, 'encoder-decoder');
  assert.equal(out.q8, 'q8');
});

test('encoderBuildRuns: BERT and DistilBERT only, never int8', () => {
  const config = (type) => JSON.stringify({ model_type: type });
  for (const type of ['bert', 'distilbert']) {
    assert.equal(encoderBuildRuns(config(type), 'f32'), true, type);
    assert.equal(encoderBuildRuns(config(type), 'q8'), false, type);
  }
  for (const type of ['roberta', 'gpt2', 'llama', 't5']) assert.equal(encoderBuildRuns(config(type), 'f32'), false, type);
  assert.equal(encoderBuildRuns('{"hidden_size": 8}', 'f32'), false);   // the core build infers the type
  assert.equal(encoderBuildRuns('{not json', 'f32'), false);
});

test('encoderBuildRuns: where relaxed SIMD is there, only a small model (the build has no relaxed twin)', () => {
  const bertBase = JSON.stringify({ model_type: 'bert', vocab_size: 30522, hidden_size: 768, num_hidden_layers: 12, intermediate_size: 3072 });
  const distilBase = JSON.stringify({ model_type: 'distilbert', vocab_size: 30522, dim: 768, n_layers: 6, hidden_dim: 3072 });
  // bert-tiny's shape: 4.4 M parameters in its matrices
  const bertTiny = JSON.stringify({ model_type: 'bert', vocab_size: 30522, hidden_size: 128, num_hidden_layers: 2, intermediate_size: 512 });
  const bundled = readFileSync(new URL('../../model/config.json', import.meta.url), 'utf8');
  for (const config of [bertBase, distilBase]) {
    assert.equal(encoderBuildRuns(config, 'f32', { relaxed: true }), false);
    assert.equal(encoderBuildRuns(config, 'f16', { relaxed: true }), false);
    assert.equal(encoderBuildRuns(config, 'f32', { relaxed: false }), true);
  }
  for (const config of [bertTiny, bundled]) assert.equal(encoderBuildRuns(config, 'f32', { relaxed: true }), true);
});

// In a child Node with ATTNSCOPE_ENCODER_BUILD=1: the bundled BERT runs on the encoder build
// (dist/attnscope-encoder.wasm, SIMD128: no relaxed twin) within rounding of the full build; the
// build refuses a decoder's config and a BPE tokenizer with E_CONFIG naming what it left out; and
// a BERT whose tokenizer.json is BPE loads anyway, on the core build (js/api/load.js).
test('with ATTNSCOPE_ENCODER_BUILD=1 BERT runs on the encoder build; a decoder or a BPE tokenizer is refused by it clearly', async () => {
  const model = await loadModel('bundled', { threads: 1 });
  let expected;
  try {
    expected = [...(await model.run(TEXTS.bundled)).attentions];
  } finally {
    model.dispose();
  }
  const script = `
    import { readFileSync } from 'node:fs';
    import { loadModel } from ${JSON.stringify(INDEX)};
    import { getWasmModule } from ${JSON.stringify(WASM)};
    const encoder = await getWasmModule({ threads: 1, encoder: true });
    const out = { build: encoder.buildInfo().build, seq2seq: typeof encoder.createSeq2SeqModel };
    const before = encoder.heapStats().inUse;
    const bert = await loadModel('bundled', { threads: 1 });
    out.grew = encoder.heapStats().inUse - before;
    out.attentions = [...(await bert.run(${JSON.stringify(TEXTS.bundled)})).attentions];
    bert.dispose();
    const refusal = (fn) => { try { fn(); return null; } catch (e) { return { code: e.code, message: e.message }; } };
    out.gpt2 = refusal(() => encoder.parseConfig(readFileSync(new URL('../model-causal/config.json', ${JSON.stringify(INDEX)}), 'utf8')));
    const bpe = JSON.stringify({ model: { type: 'BPE', vocab: { a: 0, b: 1, ab: 2 }, merges: ['a b'] } });
    out.bpe = refusal(() => encoder.checkTokenizer('', bpe, '', '', '', '', ''));
    const wordPiece = (normalizer) => JSON.stringify({ normalizer, model: { type: 'WordPiece', vocab: { '[UNK]': 0, a: 1 } } });
    out.nfc = refusal(() => encoder.checkTokenizer('', wordPiece({ type: 'NFC' }), '', '', '', '', ''));
    out.regex = refusal(() => encoder.checkTokenizer('', wordPiece({ type: 'Replace', pattern: { Regex: 'a+' }, content: 'a' }), '', '', '', '', ''));
    out.plain = encoder.checkTokenizer('', wordPiece({ type: 'Replace', pattern: { String: 'aa' }, content: 'a' }), '', '', '', '', '');
    const dir = new URL('../model/', ${JSON.stringify(INDEX)});
    const core = await getWasmModule({ threads: 1, core: true });
    const coreBefore = core.heapStats().inUse;
    const bpeBert = await loadModel({ config: readFileSync(new URL('config.json', dir), 'utf8'),
      weights: readFileSync(new URL('model.safetensors', dir)), tokenizer: bpe }, { threads: 1 });
    out.fallback = { tokens: (await bpeBert.run('abab')).tokens, coreGrew: core.heapStats().inUse - coreBefore };
    bpeBert.dispose();
    console.log(JSON.stringify(out));`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script],
    { encoding: 'utf8', timeout: 120000, env: { ...process.env, ATTNSCOPE_ENCODER_BUILD: '1', ATTNSCOPE_CORE_BUILD: '1' } });
  assert.equal(child.status, 0, child.stderr);
  const out = JSON.parse(child.stdout);
  assert.equal(out.build, 'encoder');
  assert.equal(out.seq2seq, 'undefined');
  assert.ok(out.grew > 100_000, `the encoder heap grew by ${out.grew} bytes`);
  assert.equal(out.attentions.length, expected.length);
  // The full build may run the relaxed GEMM (fused multiply-add): rounding apart, the same maps.
  const diff = Math.max(...out.attentions.map((v, i) => Math.abs(v - expected[i])));
  assert.ok(diff <= 1e-5, `encoder vs full build attention: max |diff| ${diff}`);
  assert.equal(out.gpt2?.code, 'E_CONFIG');
  assert.match(out.gpt2.message, /decoder model_type "gpt2".* is not in the encoder wasm build/);
  assert.equal(out.bpe?.code, 'E_CONFIG');
  assert.match(out.bpe.message, /BPE tokenizer model is not in the encoder wasm build/);
  assert.match(out.nfc?.message, /NFC normalizer is not in the encoder wasm build/);
  assert.match(out.regex?.message, /Regex pattern \(normalizer Replace pattern\) is not in the encoder wasm build/);
  assert.equal(out.plain, 2);   // a WordPiece tokenizer with a String Replace: the encoder build's own
  assert.deepEqual(out.fallback.tokens, ['ab', 'ab']);
  assert.ok(out.fallback.coreGrew > 100_000, `the core heap grew by ${out.fallback.coreGrew} bytes`);
});

// The encoder build leaves out the analyses (engine/build_features.h): a BERT loaded there moves to
// the core build before its first logit lens, flow, attribution or patching grid (js/api/model.js)
// and answers with the full build's numbers (to rounding: the full build may fuse multiply-adds);
// a run made before the move keeps its maps. Loaded with analyses: true, it starts on the core build.
test('with ATTNSCOPE_ENCODER_BUILD=1 a BERT moves to the core build for the analyses, with the same numbers', async () => {
  const ANALYSES = { logitLens: 3, flow: true };
  const PATCH = { clean: 'The bank of the [MASK] was flooded.', corrupted: 'The bank of the [MASK] was robbed.', answer: 'river', wrong: 'money' };
  const numbers = async (bert) => {
    const r = await bert.run(TEXTS.bundled, ANALYSES);
    const lens = r.logitLens.flatMap((row) => row.map((cell) => cell.finalProb));
    const ids = r.logitLens.flatMap((row) => row.flatMap((cell) => cell.top.map((t) => t.id)));
    const flow = Object.values(r.flow).filter((v) => ArrayBuffer.isView(v)).flatMap((v) => [...v]);
    const patch = (await bert.patch({ ...PATCH, answer: bert.tokenToId(PATCH.answer), wrong: bert.tokenToId(PATCH.wrong) })).scores.flat();
    // (A BERT's attribution is refused, by the full build and the core one alike: not a pre-norm decoder.)
    const attribution = await bert.run(TEXTS.bundled, { attribution: true }).then(() => null, (e) => e.message);
    return { lens, ids, flow, attribution, patch };
  };
  const model = await loadModel('bundled', { threads: 1 });
  let expected;
  try {
    expected = await numbers(model);
  } finally {
    model.dispose();
  }
  const script = `
    import { loadModel } from ${JSON.stringify(INDEX)};
    import { getWasmModule } from ${JSON.stringify(WASM)};
    const encoder = await getWasmModule({ threads: 1, encoder: true });
    const core = await getWasmModule({ threads: 1, core: true });
    const out = { analyses: encoder.buildInfo().analyses, coreAnalyses: core.buildInfo().analyses };
    const bert = await loadModel('bundled', { threads: 1 });
    const before = (await bert.run(${JSON.stringify(TEXTS.bundled)}));
    const coreBefore = core.heapStats().inUse;
    const numbers = ${numbers.toString()};
    const ANALYSES = ${JSON.stringify(ANALYSES)}, PATCH = ${JSON.stringify(PATCH)}, TEXTS = ${JSON.stringify(TEXTS)};
    Object.assign(out, await numbers(bert));
    out.coreGrew = core.heapStats().inUse - coreBefore;
    out.mapAfterMove = before.attention(1, 2).length;
    bert.dispose();
    const encoderBefore = encoder.heapStats().inUse, coreBeforeDirect = core.heapStats().inUse;
    const direct = await loadModel('bundled', { threads: 1, analyses: true });
    out.direct = { encoderGrew: encoder.heapStats().inUse - encoderBefore, coreGrew: core.heapStats().inUse - coreBeforeDirect };
    direct.dispose();
    out.badOption = await loadModel('bundled', { analyses: 'yes' }).then(() => null, (e) => e.code + ': ' + e.message);
    console.log(JSON.stringify(out));`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script],
    { encoding: 'utf8', timeout: 120000, env: { ...process.env, ATTNSCOPE_ENCODER_BUILD: '1', ATTNSCOPE_CORE_BUILD: '1' } });
  assert.equal(child.status, 0, child.stderr);
  const out = JSON.parse(child.stdout);
  assert.equal(out.analyses, false);
  assert.equal(out.coreAnalyses, true);
  assert.ok(out.coreGrew > 100_000, `the core heap grew by ${out.coreGrew} bytes: the model did not move`);
  assert.ok(out.mapAfterMove > 0);
  assert.ok(out.direct.coreGrew > 100_000 && out.direct.encoderGrew < 10_000, JSON.stringify(out.direct));
  assert.equal(out.badOption, 'E_INPUT: analyses must be true or false, got "yes"');
  assert.deepEqual(out.ids, expected.ids);
  assert.match(expected.attribution, /needs a pre-norm decoder/);
  assert.equal(out.attribution, expected.attribution);
  for (const name of ['lens', 'flow', 'patch']) {
    assert.equal(out[name].length, expected[name].length, name);
    assert.ok(out[name].length > 0, name);
    const diff = Math.max(...out[name].map((v, i) => Math.abs(v - expected[name][i])));
    assert.ok(diff <= 1e-4, `${name}: encoder-then-core vs full build: max |diff| ${diff}`);
  }
});
