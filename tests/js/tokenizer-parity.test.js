// Tokenizer parity: our native tokenizer (tests/tools/attnscope_tokenize_native) against the
// independent oracle @huggingface/tokenizers on corpus.json, for two vocabularies × four settings
// × both loading paths (vocab.txt + tokenizer_config.json, and tokenizer.json). Tokens, ids, type
// ids and truncation counts must be identical; offsets are checked against the input itself
// (tokenizers.js reports none).
import fs from 'node:fs';
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  SETTINGS, VOCABS, corpusRequests, loadCorpus, normalizerSettings, runNative, writeTokenizerFiles,
} from './helpers/tokenizer-corpus.js';
import { makeOracle } from './helpers/tokenizer-hf.js';

const corpus = loadCorpus();
const requests = corpusRequests(corpus);

test('corpus has at least 300 distinct strings', () => {
  const strings = new Set([...corpus.singles, ...corpus.pairs.flat()]);
  assert.ok(strings.size >= 300, `only ${strings.size} strings`);
});

// What a token's source span must contain: the normalization (control characters dropped,
// accents stripped, lowercased) applied with JavaScript's own
// Unicode functions (independent of our tables), Σ per character as Rust lowercases it.
function sourceForms(slice, s) {
  let t = slice.replace(/[\p{Cc}\p{Cf}\p{Co}\p{Cs}\uFFFD]/gu, (c) => (/[\t\n\r]/.test(c) ? c : ''));
  if (s.strip_accents ?? s.do_lower_case) t = t.normalize('NFD').replace(/\p{Mn}/gu, '');
  if (s.do_lower_case) t = t.replace(/\u03A3/g, '\u03C3').toLowerCase();
  return t;
}

function checkOffsets(req, got, settings, problems) {
  const n = got.tokens.length;
  let lastStart = [0, 0];
  for (let i = 0; i < n; i++) {
    const [start, end] = got.offsets[i];
    const seq = got.token_type_ids[i];
    const source = seq === 0 ? req.text : req.pair;
    if (got.special_tokens_mask[i]) {
      if (start !== 0 || end !== 0) problems.push(`special token ${i} has offsets ${start},${end}`);
      continue;
    }
    if (!(start >= 0 && start < end && end <= source.length)) {
      problems.push(`token ${i} '${got.tokens[i]}' offsets ${start},${end} outside 0..${source.length}`);
      continue;
    }
    if (start < lastStart[seq]) problems.push(`token ${i} starts before its predecessor`);
    lastStart[seq] = start;
    const token = got.tokens[i];
    if (token === '[UNK]' || /^\[[A-Z]+\]$/.test(token)) continue;
    const piece = token.startsWith('##') ? token.slice(2) : token;
    const form = sourceForms(source.slice(start, end), settings);
    if (!form.includes(piece)) {
      problems.push(`token ${i} '${token}' not found in its source span '${source.slice(start, end)}' → '${form}'`);
    }
  }
}

const summary = [];
const tempDirs = [];
after(() => { for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true }); });
for (const vocabName of Object.keys(VOCABS)) {
  for (const settings of SETTINGS) {
    const files = writeTokenizerFiles(vocabName, settings);
    tempDirs.push(files.dir);
    const oracle = makeOracle(files.vocabTxt, normalizerSettings(settings));
    const expected = requests.map((r) => oracle.encode(r.text, r.pair ?? null, r.max_length ?? 0));
    for (const [loader, args] of [
      ['vocab.txt+tokenizer_config.json', ['--vocab', files.vocab, '--tokenizer-config', files.tokenizerConfig]],
      ['tokenizer.json', ['--tokenizer-json', files.tokenizerJson]],
    ]) {
      test(`parity ${vocabName} ${settings.name} via ${loader}`, () => {
        const got = runNative(args, requests);
        const mismatches = [];
        const offsetProblems = [];
        let identical = 0;
        requests.forEach((req, k) => {
          const want = expected[k];
          const have = got[k];
          if (want.error || have.error) {
            if (want.error && have.code === want.error) identical++;
            else mismatches.push({ req, want, have });
            return;
          }
          const same = ['tokens', 'ids', 'token_type_ids', 'num_truncated']
            .every((key) => JSON.stringify(want[key]) === JSON.stringify(have[key]));
          if (same) identical++;
          else mismatches.push({ req, want: { tokens: want.tokens, ids: want.ids }, have: { tokens: have.tokens, ids: have.ids } });
          const problems = [];
          checkOffsets(req, have, settings, problems);
          if (problems.length) offsetProblems.push({ req, problems });
        });
        summary.push(`${vocabName}/${settings.name}/${loader}: ${identical}/${requests.length} identical`);
        assert.equal(mismatches.length, 0,
          `${mismatches.length} of ${requests.length} differ; first: ${JSON.stringify(mismatches.slice(0, 3), null, 1)}`);
        assert.equal(offsetProblems.length, 0, JSON.stringify(offsetProblems.slice(0, 3), null, 1));
      });
    }
    test(`oracle template cross-check ${vocabName} ${settings.name}`, () => {
      // Our helper's [CLS] A [SEP] B [SEP] assembly must equal tokenizers.js's own template
      // wherever tokenizers.js's semantics match (it treats an empty pair as no pair).
      let checked = 0;
      for (const r of requests) {
        if (r.max_length || r.pair === '') continue;
        const direct = oracle.encodeDirect(r.text, r.pair ?? null);
        const mine = oracle.encode(r.text, r.pair ?? null);
        assert.deepEqual(mine.tokens, direct.tokens);
        assert.deepEqual(mine.ids, direct.ids);
        assert.deepEqual(mine.token_type_ids, direct.token_type_ids);
        checked++;
      }
      assert.ok(checked > 300);
      summary.push(`${vocabName}/${settings.name}: oracle adapters fired ${JSON.stringify(Object.fromEntries(oracle.fired))}`);
    });
  }
}

test('summary', () => { for (const line of summary) console.log(`# ${line}`); });
