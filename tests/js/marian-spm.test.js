// A Marian folder as the hub has it — config.json, model.safetensors, vocab.json, source.spm,
// target.spm, tokenizer_config.json, no tokenizer.json — loads through the API and the CLI and
// tokenizes as MarianTokenizer does. The folder (tests/fixtures/tokenizer/marian/) is a tiny
// random Marian model from make_marian_model.py beside the SentencePiece files of
// make_marian_spm.py; reference.json holds SentencePiece's own source ids (MarianTokenizer's rules
// around python3-sentencepiece), the greedy ids of an independent float64 forward over them, and
// their text as MarianTokenizer decodes it (target.spm).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadModel } from '../../js/index.js';
import { loadTokenizer } from '../../js/api/tokenizer.js';

const DIR = fileURLToPath(new URL('../fixtures/tokenizer/marian/', import.meta.url));
const CLI = fileURLToPath(new URL('../../js/cli/cli.js', import.meta.url));
const reference = JSON.parse(readFileSync(join(DIR, 'reference.json'), 'utf8'));

function cli(...args) {
  const res = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', maxBuffer: 1 << 26 });
  assert.equal(res.status, 0, res.stderr);
  return JSON.parse(res.stdout);
}

test('API: a Marian folder loads; source and target text go through their own .spm', async () => {
  const model = await loadModel(DIR, { threads: 1 });
  try {
    assert.equal(model.info.tokenizer, 'source.spm+target.spm+vocab.json');
    assert.equal(model.info.separateTargetTokenizer, true);
    assert.ok(model.info.files['source.spm'] > 0 && model.info.files['target.spm'] > 0);
    for (const r of reference.runs) {
      assert.deepEqual([...model.tokenize(r.source).ids], r.source_ids, r.source);
      const g = await model.generate(r.source, { maxNewTokens: r.greedy.length - 1, temperature: 0, stopAtEos: false });
      assert.deepEqual([...g.sourceIds], r.source_ids);
      assert.deepEqual([...g.ids], r.greedy, r.source);
      assert.equal(g.text, r.greedy_text_skip_special);  // decode(skip_special_tokens=True)
    }
    assert.deepEqual([...model.tokenizeTarget(reference.target).ids], reference.target_ids);
    // The source side reads the same text differently (its own charsmap and whitespace rules).
    assert.notDeepEqual([...model.tokenize(reference.target).ids], reference.target_ids);
    const run = await model.run(reference.runs[0].source, { target: reference.target });
    assert.deepEqual([...run.targetIds], [model.config.decoderStartTokenId, ...reference.target_ids]);
    assert.equal(run.sourceTokens[0], '>>de<<');
  } finally {
    model.dispose();
  }
});

test('API: loadTokenizer on the Marian files alone (no weights)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'attnscope-marian-'));
  try {
    for (const f of ['vocab.json', 'source.spm', 'target.spm', 'tokenizer_config.json']) copyFileSync(join(DIR, f), join(dir, f));
    const t = await loadTokenizer(dir);
    assert.equal(t.info.tokenizer, 'source.spm+target.spm+vocab.json');
    assert.deepEqual([...t.tokenize(reference.runs[0].source).ids], reference.runs[0].source_ids);
    assert.deepEqual([...t.tokenizeTarget(reference.target).ids], reference.target_ids);
    assert.equal(t.decode(reference.runs[0].greedy), reference.runs[0].greedy_text);
    t.dispose();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('CLI: tokenize (source and --side target), run --text/--target, generate --text', () => {
  const r0 = reference.runs[0];
  assert.deepEqual(cli('tokenize', '--model', DIR, '--text', r0.source).ids, r0.source_ids);
  assert.deepEqual(cli('tokenize', '--model', DIR, '--text', reference.target, '--side', 'target').ids, reference.target_ids);
  const run = cli('run', '--model', DIR, '--text', r0.source, '--target', reference.target, '--threads', '1');
  assert.equal(run.cross_attentions.length > 0, true);
  const gen = cli('generate', '--model', DIR, '--text', r0.source, '--max-new-tokens', String(r0.greedy.length - 1),
    '--temperature', '0', '--no-stop-at-eos', '--threads', '1');
  assert.deepEqual(gen.source_ids, r0.source_ids);
  assert.deepEqual(gen.ids, r0.greedy);
  assert.equal(gen.text, r0.greedy_text_skip_special);
});

test('bad Marian files: E_TOKENIZER naming the file, before the weights are read', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'attnscope-marian-'));
  try {
    copyFileSync(join(DIR, 'config.json'), join(dir, 'config.json'));
    copyFileSync(join(DIR, 'vocab.json'), join(dir, 'vocab.json'));
    copyFileSync(join(DIR, 'source.spm'), join(dir, 'source.spm'));
    // No model.safetensors: each refusal must come before the weights are looked for.
    await assert.rejects(loadModel(dir, { threads: 1 }), (e) => e.code === 'E_TOKENIZER' && /target\.spm/.test(e.message));
    // Truncated inside its last field (the charsmap): a cut between fields would be a valid shorter protobuf.
    const target = readFileSync(join(DIR, 'target.spm'));
    writeFileSync(join(dir, 'target.spm'), target.subarray(0, target.length - 1000));
    await assert.rejects(loadModel(dir, { threads: 1 }), (e) => e.code === 'E_TOKENIZER' &&
      /target\.spm is not a SentencePiece model/.test(e.message) && /truncated/.test(e.message));
    writeFileSync(join(dir, 'target.spm'), 'not a model');
    await assert.rejects(loadModel(dir, { threads: 1 }), (e) => e.code === 'E_TOKENIZER' && /target\.spm/.test(e.message));
    rmSync(join(dir, 'source.spm'));
    rmSync(join(dir, 'target.spm'));
    await assert.rejects(loadModel(dir, { threads: 1 }), (e) => e.code === 'E_TOKENIZER' &&
      /vocab\.json \+ source\.spm \+ target\.spm/.test(e.message));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
