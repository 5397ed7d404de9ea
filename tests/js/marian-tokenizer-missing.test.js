// A Marian folder as the hub has it — config.json, vocab.json, source.spm, target.spm, no
// tokenizer.json — is refused before its weights with an E_TOKENIZER that names the SentencePiece
// files it cannot read, not with a request for merges.txt (js/load.js readSeq2SeqTokenizer).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadModel } from '../../js/index.js';

const MARIAN = fileURLToPath(new URL('../fixtures/seq2seq/marian_f16/config.json', import.meta.url));

test('Marian without tokenizer.json: E_TOKENIZER naming source.spm / target.spm', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'attnscope-marian-'));
  try {
    copyFileSync(MARIAN, join(dir, 'config.json'));
    writeFileSync(join(dir, 'vocab.json'), JSON.stringify({ '</s>': 0, '<unk>': 1, '<pad>': 2 }));
    writeFileSync(join(dir, 'source.spm'), 'not read');
    writeFileSync(join(dir, 'target.spm'), 'not read');
    // No model.safetensors either: the refusal must come before the weights are looked for.
    await assert.rejects(loadModel(dir, { threads: 1 }), (e) => e.code === 'E_TOKENIZER' &&
      /SentencePiece/.test(e.message) && /source\.spm/.test(e.message) && !/merges\.txt/.test(e.message));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
