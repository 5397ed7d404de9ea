// The CLI's answers to bad input , as a user meets them: each gets one line on stderr in
// the CLI's own words (its flag names and the valid range), exit 2 like the other bad flag values,
// no stack trace, nothing on stdout — never Node's option-parser message, the API's camelCase field
// names or a silent run of nothing. Also the output conventions the issue names: an encoder–decoder's
// generated `text` without its special tokens (checked against @huggingface/tokenizers' decode with
// skip_special_tokens), and `info` in snake_case like every other CLI JSON, with no field lost.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Tokenizer } from '@huggingface/tokenizers';

import { loadModel } from '../../js/index.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = join(ROOT, 'js/cli/cli.js');
const SEQ2SEQ_DIR = join(ROOT, 'model-seq2seq');
const seq2seqFixture = JSON.parse(readFileSync(join(ROOT, 'tests/fixtures/bundled-seq2seq/inputs.json'), 'utf8'));

function cli(args) {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args, '--threads', '1'], (error, stdout, stderr) =>
      resolve({ code: error ? error.code : 0, stdout, stderr }));
  });
}

function assertUsageError({ code, stdout, stderr }, pattern) {
  assert.equal(code, 2, `exit ${code}, stderr: ${stderr}`);
  assert.equal(stdout, '');
  assert.match(stderr, /^attnscope: /);
  assert.match(stderr, pattern);
  assert.doesNotMatch(stderr, /ambiguous|Did you forget|ERR_PARSE_ARGS/, "Node's parser message");
  assert.doesNotMatch(stderr, /\n\s+at /, 'a stack trace for a user error');
}

const GENERATE = ['generate', '--model', 'bundled-causal', '--text', 'The river'];

describe('attnscope generate: sampling flags out of range', () => {
  it('--max-new-tokens -5 names the flag and its range', async () => {
    assertUsageError(await cli([...GENERATE, '--max-new-tokens', '-5']), /--max-new-tokens must be an integer >= 0, got "-5"/);
    assertUsageError(await cli([...GENERATE, '--max-new-tokens', '2.5']), /--max-new-tokens must be an integer >= 0, got "2.5"/);
  });

  it('--temperature -1 names the flag and its range', async () => {
    assertUsageError(await cli([...GENERATE, '--temperature', '-1']), /--temperature must be a number >= 0 \(0 is greedy\), got "-1"/);
    assertUsageError(await cli([...GENERATE, '--temperature', 'hot']), /--temperature must be a number >= 0 \(0 is greedy\), got "hot"/);
  });

  it('--top-p 5 says the range in CLI words, not the API\'s field name', async () => {
    for (const value of ['5', '0', '-0.5']) {
      const r = await cli([...GENERATE, '--top-p', value]);
      assertUsageError(r, new RegExp(`--top-p must be a number > 0 and <= 1 \\(1 keeps every token\\), got "${value}"`));
      assert.doesNotMatch(r.stderr, /topP/);
    }
  });

  it('other negative numbers get the CLI\'s message too', async () => {
    assertUsageError(await cli([...GENERATE, '--top-k', '-1']), /--top-k must be an integer >= 0, got "-1"/);
    assertUsageError(await cli([...GENERATE, '--seed', '-3']), /--seed must be an integer >= 0, got "-3"/);
    assertUsageError(await cli(['snapshot', '--text', 'a b', '--layer', '-1', '--out', '/dev/null']), /--layer must be an integer >= 0, got "-1"/);
  });

  it('a flag with no value says so', async () => {
    assertUsageError(await cli(['generate', '--model', 'bundled-causal', '--text']), /--text needs a value/);
    assertUsageError(await cli(['generate', '--model', 'bundled-causal', '--text', '--max-new-tokens', '3']), /--text needs a value/);
  });

  it('a text that starts with a dash is a text', async () => {
    const r = await cli(['tokenize', '--model', 'bundled-causal', '--text', '-5 degrees']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).tokens.join('').replace(/Ġ/g, ' '), '-5 degrees');
  });
});

describe('attnscope: an empty --text is refused', () => {
  const EMPTY = /--text is empty: give the text to (run|tokenize|generate from|draw)/;
  for (const text of ['', '   ']) {
    it(`run, tokenize, snapshot and generate refuse --text ${JSON.stringify(text)}`, async () => {
      assertUsageError(await cli(['run', '--text', text]), EMPTY);
      assertUsageError(await cli(['tokenize', '--text', text]), EMPTY);
      assertUsageError(await cli(['snapshot', '--text', text, '--out', '/dev/null']), EMPTY);
      assertUsageError(await cli(['generate', '--model', 'bundled-causal', '--text', text]), EMPTY);
      assertUsageError(await cli(['generate', '--model', 'bundled-seq2seq', '--text', text]), EMPTY);
    });
  }

  it('an empty --text-pair and --target are refused as well', async () => {
    assertUsageError(await cli(['run', '--text', 'the bank', '--text-pair', '']), /--text-pair is empty/);
    assertUsageError(await cli(['tokenize', '--text', 'the bank', '--text-pair', '']), /--text-pair is empty/);
    assertUsageError(await cli(['run', '--model', 'bundled-seq2seq', '--text', 'the cat sat', '--target', ' ']), /--target is empty/);
  });
});

describe('attnscope generate on an encoder–decoder', () => {
  it('gives text without special tokens and the ids as they are', async () => {
    const c = seq2seqFixture.cases[0];
    const r = await cli(['generate', '--model', 'bundled-seq2seq', '--text', c.source, '--temperature', '0',
      '--max-new-tokens', String(c.greedy.max_new_tokens)]);
    assert.equal(r.code, 0, r.stderr);
    const g = JSON.parse(r.stdout);
    assert.deepEqual(g.ids, c.greedy.ids, 'the reference greedy ids, decoder_start_token_id and </s> kept');
    const hf = new Tokenizer(JSON.parse(readFileSync(join(SEQ2SEQ_DIR, 'tokenizer.json'), 'utf8')),
      JSON.parse(readFileSync(join(SEQ2SEQ_DIR, 'tokenizer_config.json'), 'utf8')));
    assert.equal(g.text, hf.decode(c.greedy.ids, { skip_special_tokens: true }));
    assert.doesNotMatch(g.text, /<pad>|<\/s>/);
    assert.ok(g.text.length > 0);
  });
});

describe('attnscope info', () => {
  const snake = (name) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  // Measured at load, so they differ between two loads: present, not equal.
  const MEASURED = new Set(['loadMs', 'memoryBytes', 'wasmMemoryBytes']);
  // Every key at every depth is snake_case (but "files", which maps file names to sizes: names are
  // data); and every field of the API's model.info is there under its snake_case name with the same
  // value (location is the CLI's "path").
  function checkSameFields(api, cli, where) {
    if (where === 'info.files') {
      assert.deepEqual(cli, api, where);
      return;
    }
    if (Array.isArray(api)) {
      assert.ok(Array.isArray(cli), where);
      assert.equal(cli.length, api.length, where);
      api.forEach((v, i) => checkSameFields(v, cli[i], `${where}[${i}]`));
    } else if (api && typeof api === 'object') {
      assert.ok(cli && typeof cli === 'object', where);
      for (const key of Object.keys(cli)) assert.match(key, /^[a-z0-9_]+$/, `${where}.${key} is not snake_case`);
      for (const [key, value] of Object.entries(api)) {
        const name = where === 'info' && key === 'location' ? 'path' : snake(key);
        assert.ok(name in cli, `${where}.${name} (the API's ${key}) is missing`);
        if (where === 'info' && MEASURED.has(key)) {
          assert.equal(typeof cli[name], 'number', name);
          continue;
        }
        checkSameFields(value, cli[name], `${where}.${name}`);
      }
    } else {
      assert.equal(cli, api, where);
    }
  }

  for (const model of ['bundled', 'bundled-causal', 'bundled-seq2seq']) {
    it(`${model}: one convention (snake_case), no field lost`, async () => {
      const r = await cli(['info', '--model', model]);
      assert.equal(r.code, 0, r.stderr);
      const out = JSON.parse(r.stdout);
      const loaded = await loadModel(model, { threads: 1 });
      try {
        checkSameFields(JSON.parse(JSON.stringify(loaded.info)), out, 'info');
      } finally {
        loaded.dispose();
      }
    });
  }
});
