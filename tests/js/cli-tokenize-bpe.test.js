// `attnscope tokenize --model DIR` on folders holding only byte-level BPE tokenizer files (no
// config.json, no weights): GPT-2's tokenizer.json, GPT-2's vocab.json + merges.txt, and a
// RoBERTa-style tokenizer.json. Every single-text input of the parity corpus (one stdin line each)
// must give @huggingface/tokenizers' ids (adapted to Rust's \s, see helpers/tokenizer-bpe.js) and,
// for GPT-2, js-tiktoken's; readable token texts carry no byte-level characters ('Ġ').
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { ROOT, loadCorpus } from './helpers/tokenizer-corpus.js';
import {
  BPE_EXTRA_SINGLES, BPE_INVALID_UTF8, gpt2Sources, gpt2TokenizerJson, makeBpeOracle, makeTiktokenGpt2,
  robertaTokenizerJson, writeFiles,
} from './helpers/tokenizer-bpe.js';

const CLI = path.join(ROOT, 'js/cli/cli.js');
const texts = [
  ...loadCorpus().singles, ...BPE_EXTRA_SINGLES,
  ...BPE_INVALID_UTF8.map((h) => new TextDecoder().decode(Buffer.from(h, 'hex'))),
];
const sources = gpt2Sources();
const dirs = [];
after(() => { for (const d of dirs) fs.rmSync(d, { recursive: true, force: true }); });

// One JSON string per line; U+2028/U+2029 escaped so that no line reader could split on them.
const jsonLine = (t) => JSON.stringify(t).replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');

function tokenizeAll(dir) {
  const input = texts.map(jsonLine).join('\n') + '\n';
  const res = spawnSync(process.execPath, [CLI, 'tokenize', '--model', dir], { input, encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.equal(res.status, 0, res.stderr);
  const lines = res.stdout.trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(lines.length, texts.length);
  return lines;
}

const CASES = [
  { name: "GPT-2's tokenizer.json", json: gpt2TokenizerJson(sources), template: 'none', tiktoken: true,
    files: (j) => ({ 'tokenizer.json': j }) },
  { name: "GPT-2's vocab.json + merges.txt", json: gpt2TokenizerJson(sources), template: 'none', tiktoken: true,
    files: () => ({ 'vocab.json': sources.vocab, 'merges.txt': sources.mergesTxt }) },
  { name: 'a RoBERTa-style tokenizer.json', json: robertaTokenizerJson(sources), template: 'roberta',
    files: (j) => ({ 'tokenizer.json': j }) },
];

for (const c of CASES) {
  test(`attnscope tokenize on ${c.name} alone matches Hugging Face`, () => {
    const dir = writeFiles(c.files(c.json)).dir;
    dirs.push(dir);
    const lines = tokenizeAll(dir);
    const oracle = makeBpeOracle(c.json, c.template);
    const tiktoken = c.tiktoken ? makeTiktokenGpt2() : null;
    const inputs = texts;
    const mismatches = [];
    inputs.forEach((text, i) => {
      const want = oracle.encode(text).ids;
      if (JSON.stringify(lines[i].ids) !== JSON.stringify(want)) mismatches.push(`${JSON.stringify(text)}: ${lines[i].ids} vs ${want}`);
      if (tiktoken && JSON.stringify(lines[i].ids) !== JSON.stringify(tiktoken(text))) mismatches.push(`${JSON.stringify(text)}: js-tiktoken differs`);
      if (lines[i].token_texts.some((t) => t.includes('\u0120'))) mismatches.push(`${JSON.stringify(text)}: 'Ġ' in token_texts`);
    });
    assert.deepEqual(mismatches.slice(0, 5), [], `${mismatches.length} of ${inputs.length} inputs differ`);
  });
}

test('attnscope tokenize --text-pair --max-length on a RoBERTa-style folder matches Hugging Face', () => {
  const json = robertaTokenizerJson(sources);
  const dir = writeFiles({ 'tokenizer.json': json }).dir;
  dirs.push(dir);
  const oracle = makeBpeOracle(json, 'roberta');
  for (const [text, pair, maxLength] of [['The capital is <mask>.', 'Paris,  I think.', 0], ["It's   here", '안녕하세요 👩‍👩‍👧', 9]]) {
    const args = ['tokenize', '--model', dir, '--text', text, '--text-pair', pair, ...(maxLength ? ['--max-length', String(maxLength)] : [])];
    const res = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
    assert.equal(res.status, 0, res.stderr);
    const got = JSON.parse(res.stdout);
    const want = oracle.encode(text, pair, maxLength);
    assert.deepEqual(got.ids, want.ids);
    assert.deepEqual(got.token_type_ids, want.token_type_ids);
    assert.equal(got.num_truncated, want.num_truncated);
  }
});
