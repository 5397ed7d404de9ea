// Shared inputs of the tokenizer parity tests (native tool now, the WASM build later): the
// corpus (tests/fixtures/tokenizer/corpus.json), the vocabularies, the settings matrix, the
// Hugging Face files each configuration is loaded from, and a runner for the native tool.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { bertTokenizerJson } from './tokenizer-hf.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const FIXTURES = path.join(ROOT, 'tests/fixtures/tokenizer');

export const VOCABS = {
  small: path.join(FIXTURES, 'small_vocab.txt'),   // hand-written, ~170 entries (with duplicates)
  brown: path.join(FIXTURES, 'brown_vocab.txt'),   // make_vocab.mjs, 12k entries
};

// Settings as tokenizer_config.json spells them (do_lower_case, strip_accents,
// tokenize_chinese_chars) and as the BertNormalizer of tokenizer.json does.
export const SETTINGS = [
  { name: 'uncased', do_lower_case: true, strip_accents: null, tokenize_chinese_chars: true },
  { name: 'cased', do_lower_case: false, strip_accents: null, tokenize_chinese_chars: true },
  { name: 'uncased-keep-accents', do_lower_case: true, strip_accents: false, tokenize_chinese_chars: true },
  { name: 'cased-strip-accents-no-cjk', do_lower_case: false, strip_accents: true, tokenize_chinese_chars: false },
];

export function normalizerSettings(s) {
  return { lowercase: s.do_lower_case, strip_accents: s.strip_accents, handle_chinese_chars: s.tokenize_chinese_chars };
}

export function loadCorpus() {
  return JSON.parse(fs.readFileSync(path.join(FIXTURES, 'corpus.json'), 'utf8'));
}

// Every request the parity test sends: {text, pair?, max_length?}.
export function corpusRequests(corpus = loadCorpus()) {
  return [
    ...corpus.singles.map((text) => ({ text })),
    ...corpus.pairs.map(([text, pair]) => ({ text, pair })),
    ...corpus.truncation,
  ];
}

// Writes vocab.txt, tokenizer_config.json and tokenizer.json for one configuration into a fresh
// temp directory; returns their paths and contents.
export function writeTokenizerFiles(vocabName, settings) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `attnscope-tok-${vocabName}-${settings.name}-`));
  const vocabTxt = fs.readFileSync(VOCABS[vocabName], 'utf8');
  const config = {
    tokenizer_class: 'BertTokenizer', do_lower_case: settings.do_lower_case,
    strip_accents: settings.strip_accents, tokenize_chinese_chars: settings.tokenize_chinese_chars,
    unk_token: '[UNK]', sep_token: '[SEP]', pad_token: '[PAD]', cls_token: '[CLS]', mask_token: '[MASK]',
  };
  const tokenizerJson = bertTokenizerJson(vocabTxt, normalizerSettings(settings));
  const files = {
    dir,
    vocab: path.join(dir, 'vocab.txt'),
    tokenizerConfig: path.join(dir, 'tokenizer_config.json'),
    tokenizerJson: path.join(dir, 'tokenizer.json'),
    vocabTxt,
  };
  fs.writeFileSync(files.vocab, vocabTxt);
  fs.writeFileSync(files.tokenizerConfig, JSON.stringify(config));
  fs.writeFileSync(files.tokenizerJson, JSON.stringify(tokenizerJson));
  return files;
}

export function nativeToolPath() {
  return process.env.ATTNSCOPE_TOKENIZE_NATIVE ??
    path.join(ROOT, 'build/native/tests/attnscope_tokenize_native');
}

// Runs the native tool once over all requests; `args` picks the loading path, e.g.
// ['--vocab', f.vocab, '--tokenizer-config', f.tokenizerConfig] or ['--tokenizer-json', f.tokenizerJson].
export function runNative(args, requests) {
  const tool = nativeToolPath();
  if (!fs.existsSync(tool)) {
    throw new Error(`${tool} not found: run \`bash scripts/build.sh native\` (or set ATTNSCOPE_TOKENIZE_NATIVE)`);
  }
  const input = requests.map((r) => JSON.stringify(r)).join('\n') + '\n';
  const res = spawnSync(tool, args, { input, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (res.status !== 0) throw new Error(`${tool} exited with ${res.status}: ${res.stdout}${res.stderr}`);
  const lines = res.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));
  if (lines.length !== requests.length) {
    throw new Error(`${tool} answered ${lines.length} lines for ${requests.length} requests: ${res.stderr}`);
  }
  return lines;
}
