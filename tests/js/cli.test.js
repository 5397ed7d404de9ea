// The `attnscope` CLI as a user runs it (a child process): run in json / npy / bertviz formats
// (values checked against PyTorch, .npy files read back by NumPy), tokenize over stdin (checked
// against @huggingface/tokenizers), bench, info, hub ids through the mock hub, and user errors:
// one line on stderr, a non-zero exit, no stack trace.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Tokenizer } from '@huggingface/tokenizers';

import { tinyBertFiles, tinyTokenizerJson, writeTinyBert } from './helpers/api-tiny-model.js';
import { startMockHub, unreachableUrl } from './helpers/api-mock-hub.js';
import { maxAbsDiff, torchReference } from './helpers/api-reference.js';

const CLI = fileURLToPath(new URL('../../js/cli/cli.js', import.meta.url));
const BUNDLED = fileURLToPath(new URL('../../model', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'attnscope-cli-'));
const tiny = writeTinyBert(join(work, 'tiny'), { seed: 11, layers: 2, heads: 4 });
let hub;

before(async () => {
  hub = await startMockHub({ 'org/tiny': tinyBertFiles({ seed: 11, layers: 2, heads: 4 }) });
});
after(async () => {
  await hub?.close();
  rmSync(work, { recursive: true, force: true });
});

/** Runs the CLI asynchronously (the mock hub lives in this process). */
function cli(args, { input, env } = {}) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}

function assertUserError({ code, stdout, stderr }, exitCode, pattern) {
  assert.equal(code, exitCode, `exit ${code}, stderr: ${stderr}`);
  assert.equal(stdout, '');
  assert.match(stderr, /^attnscope: /);
  assert.match(stderr, pattern);
  assert.doesNotMatch(stderr, /\n\s+at /, 'stack trace printed for a user error');
}

describe('attnscope run', () => {
  it('writes the JSON document for --ids and --token-types, matching PyTorch', async () => {
    const ids = [2, 5, 6, 7, 5, 8, 3, 11, 3];
    const types = [0, 0, 0, 0, 0, 0, 0, 1, 1];
    const { code, stdout, stderr } = await cli(['run', '--model', tiny, '--ids', ids.join(','), '--token-types', types.join(',')]);
    assert.equal(code, 0, stderr);
    const out = JSON.parse(stdout);
    assert.deepEqual(Object.keys(out), ['ids', 'token_type_ids', 'tokens', 'offsets', 'num_truncated', 'attentions', 'hidden']);
    assert.equal(out.num_truncated, 0);
    assert.equal(stderr, '');
    assert.deepEqual(out.ids, ids);
    assert.deepEqual(out.token_type_ids, types);
    assert.deepEqual(out.tokens, ['[CLS]', 'the', 'bank', 'of', 'the', 'river', '[SEP]', 'cat', '[SEP]']);
    const T = ids.length;
    assert.equal(out.attentions.length, 2);
    assert.equal(out.attentions[0].length, 4);
    assert.equal(out.attentions[0][0].length, T);
    assert.equal(out.attentions[0][0][0].length, T);
    assert.equal(out.hidden.length, T);
    assert.equal(out.hidden[0].length, 16);
    const ref = torchReference(tiny, { ids, tokenTypes: types });
    assert.ok(maxAbsDiff(out.attentions.flat(3), ref.attentions).max <= 1e-5);
    assert.ok(maxAbsDiff(out.hidden.flat(), ref.hidden).max <= 1e-4);
  });

  it('runs --text/--text-pair to --out with mask predictions', async () => {
    const file = join(work, 'out.json');
    const { code, stderr } = await cli(['run', '--model', tiny, '--text', 'The bank of the [MASK].',
      '--text-pair', 'a cat', '--top-k', '3', '--out', file]);
    assert.equal(code, 0, stderr);
    const out = JSON.parse(readFileSync(file, 'utf8'));
    assert.deepEqual(out.tokens, ['[CLS]', 'the', 'bank', 'of', 'the', '[MASK]', '.', '[SEP]', 'a', 'cat', '[SEP]']);
    assert.deepEqual(out.offsets.slice(0, 3), [[0, 0], [0, 3], [4, 8]]);
    assert.deepEqual(out.token_type_ids, [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1]);
    assert.equal(out.mask_predictions.length, 1);
    assert.equal(out.mask_predictions[0].position, 5);
    assert.equal(out.mask_predictions[0].top.length, 3);
  });

  it('writes .npy files NumPy reads back to the same values, and BertViz input', async () => {
    const dir = join(work, 'npy');
    const args = ['run', '--model', tiny, '--text', 'Hello, world!'];
    assert.equal((await cli([...args, '--format', 'npy', '--out', dir])).code, 0);
    const json = JSON.parse((await cli(args)).stdout);
    const check = execFileSync('/usr/bin/python3', ['-c', `
import json, sys, numpy as np
d = sys.argv[1]
a, h = np.load(d + '/attentions.npy'), np.load(d + '/hidden.npy')
print(json.dumps({"a_shape": a.shape, "a_dtype": str(a.dtype), "h_shape": h.shape, "a": a.tolist(), "h": h.tolist(),
  "ids": np.load(d + '/ids.npy').tolist(), "types": np.load(d + '/token_type_ids.npy').tolist(),
  "offsets": np.load(d + '/offsets.npy').tolist(), "tokens": np.load(d + '/tokens.npy').tolist()}))
`, dir]);
    const npy = JSON.parse(check);
    const T = json.tokens.length;
    assert.deepEqual(npy.a_shape, [2, 4, T, T]);
    assert.equal(npy.a_dtype, 'float32');
    assert.deepEqual(npy.h_shape, [T, 16]);
    assert.deepEqual(npy.tokens, json.tokens);
    assert.deepEqual(npy.ids, json.ids);
    assert.deepEqual(npy.types, json.token_type_ids);
    assert.deepEqual(npy.offsets, json.offsets);
    assert.ok(maxAbsDiff(npy.a.flat(3), json.attentions.flat(3)).max <= 1e-7);
    assert.ok(maxAbsDiff(npy.h.flat(), json.hidden.flat()).max <= 1e-6);

    const viz = JSON.parse((await cli(['run', '--model', tiny, '--text', 'the bank', '--text-pair', 'a river',
      '--format', 'bertviz'])).stdout);
    assert.deepEqual(Object.keys(viz), ['attention', 'tokens', 'sentence_b_start']);
    assert.equal(viz.attention.length, 2);      // layers
    assert.equal(viz.attention[0].length, 1);   // batch of one
    assert.equal(viz.attention[0][0].length, 4); // heads
    assert.equal(viz.attention[0][0][0].length, viz.tokens.length);
    assert.equal(viz.sentence_b_start, 4);      // [CLS] the bank [SEP] | a river [SEP]
  });

  it('loads a hub id through ATTNSCOPE_HUB_URL', async () => {
    const { code, stdout, stderr } = await cli(['run', '--model', 'org/tiny', '--ids', '2,5,3'], { env: { ATTNSCOPE_HUB_URL: hub.url } });
    assert.equal(code, 0, stderr);
    assert.deepEqual(JSON.parse(stdout).tokens, ['[CLS]', 'the', '[SEP]']);
  });
});

// Truncation is announced: the dropped-token count is @huggingface/tokenizers' untruncated length
// minus the limit (the tiny model has 64 positions), in the JSON and as one stderr line.
describe('attnscope truncation', () => {
  const hf = new Tokenizer(tinyTokenizerJson(), { do_lower_case: true });
  const long = 'the bank of the river . '.repeat(30);
  const full = hf.encode(long).tokens.length;

  it('run --text: num_truncated in the JSON and one line on stderr', async () => {
    assert.ok(full > 64);
    const { code, stdout, stderr } = await cli(['run', '--model', tiny, '--text', long]);
    assert.equal(code, 0, stderr);
    const out = JSON.parse(stdout);
    assert.equal(out.tokens.length, 64);
    assert.equal(out.num_truncated, full - 64);
    assert.equal(stderr, `attnscope: the input was cut to 64 tokens (${full - 64} dropped)\n`);
    const shorter = await cli(['run', '--model', tiny, '--text', long, '--max-length', '10', '--format', 'bertviz']);
    assert.equal(shorter.code, 0, shorter.stderr);
    assert.equal(shorter.stderr, `attnscope: the input was cut to 10 tokens (${full - 10} dropped)\n`);
  });

  it('tokenize: num_truncated per line, a stderr line per cut input', async () => {
    const input = [long, 'the bank', long].map((t) => JSON.stringify(t)).join('\n');
    const { code, stdout, stderr } = await cli(['tokenize', '--model', tiny], { input });
    assert.equal(code, 0, stderr);
    const lines = stdout.trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(lines.map((l) => l.num_truncated), [full - 64, 0, full - 64]);
    assert.deepEqual(lines.map((l) => l.tokens.length), [64, 4, 64]);
    assert.deepEqual(stderr.trim().split('\n'), [1, 3].map((n) => `attnscope: stdin line ${n} was cut to 64 tokens (${full - 64} dropped)`));
    const one = await cli(['tokenize', '--model', tiny, '--text', long, '--max-length', '8']);
    assert.equal(JSON.parse(one.stdout).num_truncated, full - 8);
    assert.equal(one.stderr, `attnscope: the input was cut to 8 tokens (${full - 8} dropped)\n`);
  });
});

describe('attnscope tokenize, bench, info', () => {
  it('tokenizes one JSON string per stdin line like @huggingface/tokenizers', async () => {
    const texts = ['The bank of the river.', 'Unaffable cats!', '', 'é\u00e9 [MASK] \ud83d\ude00 ,world'];
    const { code, stdout, stderr } = await cli(['tokenize', '--model', tiny], { input: `${texts.map((t) => JSON.stringify(t)).join('\n')}\n` });
    assert.equal(code, 0, stderr);
    const lines = stdout.trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(lines.length, texts.length);
    const hf = new Tokenizer(tinyTokenizerJson(), { do_lower_case: true });
    lines.forEach((line, i) => {
      assert.deepEqual(Object.keys(line), ['tokens', 'token_texts', 'ids', 'token_type_ids', 'offsets', 'num_truncated']);
      assert.deepEqual(line.token_texts, line.tokens);  // WordPiece tokens are their own readable form
      assert.equal(line.num_truncated, 0);
      const expected = hf.encode(texts[i], { return_token_type_ids: true });
      assert.deepEqual(line.tokens, expected.tokens);
      assert.deepEqual(line.ids, expected.ids);
      assert.deepEqual(line.token_type_ids, expected.token_type_ids);
    });
    const one = await cli(['tokenize', '--model', tiny, '--text', 'the bank', '--text-pair', 'river']);
    assert.deepEqual(JSON.parse(one.stdout).tokens, ['[CLS]', 'the', 'bank', '[SEP]', 'river', '[SEP]']);
  });

  it('bench prints one JSON line with timings', async () => {
    const { code, stdout, stderr } = await cli(['bench', '--model', tiny, '--tokens', '32', '--runs', '3']);
    assert.equal(code, 0, stderr);
    const line = JSON.parse(stdout);
    assert.equal(line.tokens, 32);
    assert.ok(line.median_ms > 0 && line.min_ms > 0 && line.min_ms <= line.median_ms);
    assert.match(line.build, /wasm32\+simd128/);
    assert.equal(line.weight_precision, 'f32');
    const q8 = await cli(['bench', '--model', tiny, '--tokens', '32', '--runs', '1', '--weight-precision', 'q8', '--threads', '1']);
    assert.equal(q8.code, 0, q8.stderr);
    assert.equal(JSON.parse(q8.stdout).weight_precision, 'q8');
    assert.equal(JSON.parse(q8.stdout).threads, 1);
  });

  it('info describes a folder and, without --model, the bundled model', async () => {
    const { code, stdout } = await cli(['info', '--model', tiny]);
    assert.equal(code, 0);
    const info = JSON.parse(stdout);
    assert.equal(info.path, tiny);
    assert.equal(info.config.num_heads, 4);
    assert.equal(info.has_mlm_head, true);
    assert.ok(existsSync(join(BUNDLED, 'config.json')), 'no bundled model');
    const bundled = JSON.parse((await cli(['info'])).stdout);
    assert.equal(bundled.path, BUNDLED);
    assert.equal(bundled.source, 'bundled');
    assert.equal(bundled.weight_precision, 'f32');
    assert.equal(JSON.parse((await cli(['info', '--weight-precision', 'f16'])).stdout).weight_precision, 'f16');
    assert.equal(JSON.parse((await cli(['info', '--weight-precision', 'q8'])).stdout).weight_precision, 'q8');
    // auto: the bundled model's f32 weights are far below the ~300 MB line, so they stay f32.
    assert.equal(JSON.parse((await cli(['info', '--weight-precision', 'auto'])).stdout).weight_precision, 'f32');
  });
});

describe('attnscope errors', () => {
  it('usage errors exit 2 with one message', async () => {
    assertUserError(await cli(['frobnicate']), 2, /unknown command/);
    assertUserError(await cli(['run', '--model', tiny]), 2, /--ids and --text/);
    assertUserError(await cli(['run', '--model', tiny, '--ids', '1,x']), 2, /--ids/);
    assertUserError(await cli(['run', '--model', tiny, '--ids', '2,3', '--format', 'xml']), 2, /--format/);
    assertUserError(await cli(['run', '--model', tiny, '--ids', '2,3', '--format', 'npy']), 2, /--out/);
    assertUserError(await cli(['run', '--model', tiny, '--ids', '2,3', '--bogus']), 2, /bogus/);
    assertUserError(await cli(['bench', '--model', tiny, '--tokens', '0']), 2, /--tokens/);
    assertUserError(await cli(['info', '--model', tiny, '--weight-precision', 'f8']), 2, /--weight-precision/);
    assertUserError(await cli(['bench', '--model', tiny, '--tokens', '1000']), 2, /positions/);
    assert.equal((await cli([])).code, 2);
  });

  it('model and input errors exit 1 with the error code', async () => {
    assertUserError(await cli(['run', '--model', join(work, 'missing'), '--ids', '2,3']), 1, /E_NOT_FOUND/);
    assertUserError(await cli(['run', '--model', tiny, '--ids', '2,9999,3']), 1, /E_INPUT.*9999/);
    assertUserError(await cli(['run', '--model', await unreachableUrl(), '--ids', '2,3']), 1, /E_NETWORK/);
    assertUserError(await cli(['tokenize', '--model', tiny], { input: '"ok"\nnot json\n' }).then((r) => ({ ...r, stdout: '' })),
      1, /E_INPUT.*line 2/);
    assertUserError(await cli(['run', '--model', tiny, '--ids', '2,3', '--out', join(work, 'no', 'such', 'dir', 'x.json')]),
      1, /E_INPUT.*cannot write/);
  });
});
