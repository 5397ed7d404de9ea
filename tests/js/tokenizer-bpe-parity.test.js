// Byte-level BPE parity: our native tokenizer (tests/tools/attnscope_tokenize_native) against
// @huggingface/tokenizers (adapted to Rust's \s, see helpers/tokenizer-bpe.js) and, for GPT-2,
// js-tiktoken's gpt2 encoding, over the shared corpus plus BPE-specific inputs, invalid UTF-8,
// pairs and truncation; for GPT-2 (tokenizer.json with both merge spellings, vocab.json +
// merges.txt), a RoBERTa layout (tokenizer.json, vocab.json + merges.txt, add_prefix_space) and a
// small vocabulary trained here (TemplateProcessing, ignore_merges). Ids, tokens, type ids and
// truncation counts must be identical; offsets are checked against the input itself.
import fs from 'node:fs';
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { corpusRequests, loadCorpus, runNative } from './helpers/tokenizer-corpus.js';
import {
  BPE_EXTRA_PAIRS, BPE_EXTRA_SINGLES, BPE_INVALID_UTF8, bytesToUnicode, gpt2Sources, gpt2TokenizerJson,
  makeBpeOracle, makeTiktokenGpt2, robertaTokenizerJson, robertaVocab, smallTokenizerJson, writeFiles,
} from './helpers/tokenizer-bpe.js';

const corpus = loadCorpus();
const encoder = new TextEncoder();
const hex = (s) => Buffer.from(encoder.encode(s)).toString('hex');
const decodeHex = (h) => new TextDecoder().decode(Buffer.from(h, 'hex'));

// Each request carries the JavaScript string the oracle sees and what the native tool gets: the
// string itself, or (lone surrogates, invalid UTF-8) its bytes as hex.
function request(text, pair = null, maxLength = 0) {
  const r = { js: { text, pair, maxLength } };
  r.native = text.isWellFormed() ? { text } : { text_hex: hex(text) };
  if (pair !== null) Object.assign(r.native, pair.isWellFormed() ? { pair } : { pair_hex: hex(pair) });
  if (maxLength) r.native.max_length = maxLength;
  return r;
}
const requests = [
  ...corpusRequests(corpus).map((r) => request(r.text, r.pair ?? null, r.max_length ?? 0)),
  ...BPE_EXTRA_SINGLES.map((t) => request(t)),
  ...BPE_EXTRA_PAIRS.map(([a, b]) => request(a, b)),
  ...BPE_EXTRA_PAIRS.flatMap(([a, b]) => [3, 5, 9].map((n) => request(a, b, n))),
  ...BPE_INVALID_UTF8.map((h) => ({ js: { text: decodeHex(h), pair: null, maxLength: 0 }, native: { text_hex: h } })),
];

const sources = gpt2Sources();
const trainingTexts = [...corpus.singles, ...BPE_EXTRA_SINGLES];
const u2b = Object.fromEntries(Object.entries(bytesToUnicode()).map(([b, c]) => [c, Number(b)]));
const tokenBytes = (token) => {
  const chars = Array.from(token);
  return chars.every((c) => c in u2b) ? Uint8Array.from(chars, (c) => u2b[c]) : null;
};

const CONFIGS = [
  { name: 'gpt2 tokenizer.json', template: 'none', json: () => gpt2TokenizerJson(sources), tiktoken: true,
    files: (j) => ({ 'tokenizer.json': j }) },
  { name: 'gpt2 tokenizer.json, merges as pairs', template: 'none', json: () => gpt2TokenizerJson(sources), tiktoken: true,
    files: () => ({ 'tokenizer.json': gpt2TokenizerJson(sources, { pairMerges: true }) }) },
  { name: 'gpt2 vocab.json + merges.txt', template: 'none', json: () => gpt2TokenizerJson(sources), tiktoken: true,
    files: () => ({ 'vocab.json': sources.vocab, 'merges.txt': sources.mergesTxt }) },
  { name: 'roberta tokenizer.json', template: 'roberta', trim: true, json: () => robertaTokenizerJson(sources),
    files: (j) => ({ 'tokenizer.json': j }) },
  { name: 'roberta vocab.json + merges.txt', template: 'roberta', trim: true, json: () => robertaTokenizerJson(sources),
    files: () => ({ 'vocab.json': robertaVocab(sources), 'merges.txt': sources.mergesTxt,
      'tokenizer_config.json': { tokenizer_class: 'RobertaTokenizer' } }) },
  { name: 'roberta add_prefix_space', template: 'roberta', trim: true, prefix: true,
    json: () => robertaTokenizerJson(sources, { addPrefixSpace: true }), files: (j) => ({ 'tokenizer.json': j }) },
  { name: 'small trained vocabulary', template: 'small', trim: true, prefix: true,
    json: () => smallTokenizerJson(trainingTexts), files: (j) => ({ 'tokenizer.json': j }) },
  { name: 'small trained vocabulary, ignore_merges', template: 'small', trim: true, prefix: true,
    json: () => smallTokenizerJson(trainingTexts, { ignoreMerges: true }), files: (j) => ({ 'tokenizer.json': j }) },
];

const nativeArgs = (p) => [
  ...(p['tokenizer.json'] ? ['--tokenizer-json', p['tokenizer.json']] : []),
  ...(p['vocab.json'] ? ['--vocab-json', p['vocab.json'], '--merges', p['merges.txt']] : []),
  ...(p['tokenizer_config.json'] ? ['--tokenizer-config', p['tokenizer_config.json']] : []),
];

// Offsets: inside the input, in order within each sequence, never splitting a surrogate pair, and
// the span holds the token's own text (exactly, when offsets are not trimmed and no space was
// prepended; the part inside whole characters, when the token ends inside one).
function offsetProblems(req, got, config) {
  const problems = [];
  const lastStart = [0, 0];
  // Which sequence a token is from: B starts after this many template tokens (or at type id 1).
  const specialsBeforeB = { roberta: 3, small: 2 }[config.template];
  let specials = 0;
  for (let i = 0; i < got.tokens.length; i++) {
    const [start, end] = got.offsets[i];
    if (got.special_tokens_mask[i]) {
      if (start !== 0 || end !== 0) problems.push(`special token ${i} has offsets ${start},${end}`);
      specials++;
      continue;
    }
    const seq = req.js.pair === null ? 0 : specialsBeforeB ? Number(specials >= specialsBeforeB) : got.token_type_ids[i];
    const source = seq === 0 ? req.js.text : req.js.pair;
    if (!(start >= 0 && start <= end && end <= source.length)) {
      problems.push(`token ${i} offsets ${start},${end} outside 0..${source.length}`);
      continue;
    }
    if (start < lastStart[seq]) problems.push(`token ${i} starts before its predecessor`);
    lastStart[seq] = start;
    const isSurrogate = (k) => k > 0 && k < source.length && /[\udc00-\udfff]/.test(source[k]) && /[\ud800-\udbff]/.test(source[k - 1]);
    if (isSurrogate(start) || isSurrogate(end)) problems.push(`token ${i} splits a surrogate pair at ${start},${end}`);
    const bytes = tokenBytes(got.tokens[i]);
    if (!bytes) continue;  // an added token
    let text;
    try { text = new TextDecoder('utf-8', { fatal: true }).decode(bytes); } catch { continue; }  // part of a character
    const slice = source.slice(start, end);
    const core = text.replace(/^ +| +$/g, '');
    if (!source.isWellFormed() || text.includes('\uFFFD')) continue;
    if (core && !slice.includes(core)) problems.push(`token ${i} '${text}' not in its span '${slice}'`);
    if (!config.trim && !config.prefix && slice !== text) problems.push(`token ${i} '${text}' span is '${slice}'`);
  }
  return problems;
}

const tempDirs = [];
after(() => { for (const d of tempDirs) fs.rmSync(d, { recursive: true, force: true }); });
const summary = [];

for (const config of CONFIGS) {
  test(`BPE parity: ${config.name}`, () => {
    const json = config.json();
    const oracle = makeBpeOracle(json, config.template);
    const paths = writeFiles(config.files(json));
    tempDirs.push(paths.dir);
    const got = runNative(nativeArgs(paths), requests.map((r) => r.native));
    const tiktoken = config.tiktoken ? makeTiktokenGpt2() : null;
    const mismatches = [];
    let offsetIssues = [];
    let tiktokenChecked = 0;
    requests.forEach((req, k) => {
      const { text, pair, maxLength } = req.js;
      const want = oracle.encode(text, pair, maxLength);
      const have = got[k];
      const label = JSON.stringify(req.native).slice(0, 120);
      if (want.error || have.error) {
        if (want.error !== have.code) mismatches.push(`${label}: oracle ${want.error ?? 'ok'}, native ${have.code ?? 'ok'} ${have.error ?? ''}`);
        return;
      }
      // Rust's token for an added token with lstrip/rstrip includes the whitespace it absorbed;
      // tokenizers.js gives the bare content. Ids must agree exactly.
      const sameTokens = want.tokens.every((t, i) => t === have.tokens[i] || (have.tokens[i] ?? '').trim() === t);
      if (JSON.stringify(want.ids) !== JSON.stringify(have.ids) || !sameTokens || want.tokens.length !== have.tokens.length ||
          JSON.stringify(want.token_type_ids) !== JSON.stringify(have.token_type_ids) || want.num_truncated !== have.num_truncated) {
        mismatches.push(`${label}\n  want ${JSON.stringify(want.tokens)} ${JSON.stringify(want.ids)} t${JSON.stringify(want.token_type_ids)} n${want.num_truncated}` +
          `\n  have ${JSON.stringify(have.tokens)} ${JSON.stringify(have.ids)} t${JSON.stringify(have.token_type_ids)} n${have.num_truncated}`);
      }
      // tokenizers.js' ByteLevel post-processor drops a pair's second sequence (it returns
      // tokens_pair, which its encode ignores); Rust's default_process appends it with type id 1,
      // as the helper's 'none' template does. Only the other templates are cross-checked on pairs.
      if (!maxLength && pair !== '' && (pair === null || config.template !== 'none')) {
        const direct = oracle.encodeDirect(text, pair);
        if (JSON.stringify(direct.ids) !== JSON.stringify(want.ids)) {
          mismatches.push(`${label}: the helper's template disagrees with tokenizers.js' own post-processor`);
        }
      }
      if (tiktoken && pair === null && !maxLength) {
        const ids = tiktoken(text);
        tiktokenChecked++;
        if (JSON.stringify(ids) !== JSON.stringify(have.ids)) mismatches.push(`${label}: js-tiktoken ${JSON.stringify(ids)} vs ${JSON.stringify(have.ids)}`);
      }
      if (have.token_texts.length !== have.tokens.length) mismatches.push(`${label}: token_texts length`);
      offsetIssues = offsetIssues.concat(offsetProblems(req, have, config).map((p) => `${label}: ${p}`));
    });
    summary.push(`${config.name}: ${requests.length - mismatches.length}/${requests.length} identical, ` +
      `tiktoken-checked ${tiktokenChecked}, oracle adapted for Rust \\s on ${oracle.adapted()} calls`);
    assert.deepEqual(mismatches.slice(0, 8), [], `${mismatches.length} mismatches`);
    assert.deepEqual(offsetIssues.slice(0, 8), [], `${offsetIssues.length} offset problems`);
  });
}

test('BPE parity summary', () => {
  for (const line of summary) console.log(`# ${line}`);
  assert.equal(summary.length, CONFIGS.length);
});
