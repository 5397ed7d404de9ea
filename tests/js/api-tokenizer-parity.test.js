// Tokenizer parity of the WASM build through the public API (model.tokenize): the same corpus,
// vocabularies, settings and both loading paths as tokenizer-parity.test.js (native), against
// the independent oracle @huggingface/tokenizers. Tokens, ids, type ids, truncation counts and
// error codes must be identical; offsets must index the input and equal the native tool's
// offsets (build/native/tests/attnscope_tokenize_native, required: scripts/test.sh builds it
// before node:test; a missing tool fails the test with the command that builds it).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';

import { loadModel } from '../../js/index.js';
import {
  SETTINGS, VOCABS, corpusRequests, loadCorpus, nativeToolPath, normalizerSettings, runNative, writeTokenizerFiles,
} from './helpers/tokenizer-corpus.js';
import { makeOracle, parseVocabTxt } from './helpers/tokenizer-hf.js';
import { safetensorsBytes } from './helpers/api-tiny-model.js';

const requests = corpusRequests(loadCorpus());
const NATIVE_MISSING = `${nativeToolPath()} is not built: run \`bash scripts/build.sh native\` ` +
  '(or set ATTNSCOPE_TOKENIZE_NATIVE); the offsets are checked against it';

// The smallest BERT that loads with a vocabulary of `lines` tokens: tokenize() needs a Model,
// and a Model needs weights whose embedding table covers the vocabulary.
function miniModel(lines) {
  const C = 4;
  const zeros = (...shape) => ({ shape, data: new Float32Array(shape.reduce((a, b) => a * b, 1)) });
  const ones = (n) => ({ shape: [n], data: new Float32Array(n).fill(1) });
  const tensors = {
    'embeddings.word_embeddings.weight': zeros(lines, C),
    'embeddings.position_embeddings.weight': zeros(512, C),
    'embeddings.token_type_embeddings.weight': zeros(2, C),
    'embeddings.LayerNorm.weight': ones(C),
    'embeddings.LayerNorm.bias': zeros(C),
  };
  const p = 'encoder.layer.0.';
  for (const m of ['attention.self.query', 'attention.self.key', 'attention.self.value', 'attention.output.dense', 'output.dense']) {
    tensors[`${p}${m}.weight`] = zeros(C, m === 'output.dense' ? 8 : C);
    tensors[`${p}${m}.bias`] = zeros(C);
  }
  tensors[`${p}intermediate.dense.weight`] = zeros(8, C);
  tensors[`${p}intermediate.dense.bias`] = zeros(8);
  for (const ln of ['attention.output.LayerNorm', 'output.LayerNorm']) {
    tensors[`${p}${ln}.weight`] = ones(C);
    tensors[`${p}${ln}.bias`] = zeros(C);
  }
  const config = { model_type: 'bert', vocab_size: lines, hidden_size: C, num_hidden_layers: 1, num_attention_heads: 1,
    intermediate_size: 8, max_position_embeddings: 512, type_vocab_size: 2 };
  return { config, weights: safetensorsBytes(tensors) };
}

const summary = [];
for (const vocabName of Object.keys(VOCABS)) {
  for (const settings of SETTINGS) {
    const files = writeTokenizerFiles(vocabName, settings);
    after(() => rmSync(files.dir, { recursive: true, force: true }));
    const oracle = makeOracle(files.vocabTxt, normalizerSettings(settings));
    const expected = requests.map((r) => oracle.encode(r.text, r.pair ?? null, r.max_length ?? 0));
    const lines = files.vocabTxt.split('\n').filter((l, i, all) => i < all.length - 1 || l !== '').length;
    const { config, weights } = miniModel(Math.max(lines, Object.keys(parseVocabTxt(files.vocabTxt)).length));
    for (const [loader, tokenizerFiles] of [
      ['vocab.txt+tokenizer_config.json', { vocab: files.vocabTxt, tokenizerConfig: readFileSync(files.tokenizerConfig, 'utf8') }],
      ['tokenizer.json', { tokenizer: oracle.tokenizerJson }],
    ]) {
      test(`wasm parity ${vocabName} ${settings.name} via ${loader}`, async () => {
        assert.ok(existsSync(nativeToolPath()), NATIVE_MISSING);
        const native = runNative(loader === 'tokenizer.json' ? ['--tokenizer-json', files.tokenizerJson]
          : ['--vocab', files.vocab, '--tokenizer-config', files.tokenizerConfig], requests);
        assert.equal(native.length, requests.length, 'the native tool answered every request');
        const model = await loadModel({ config, weights, ...tokenizerFiles });
        const mismatches = [];
        let identical = 0;
        requests.forEach((req, k) => {
          const want = expected[k];
          let have;
          try {
            const e = model.tokenize(req.text, { textPair: req.pair, maxLength: req.max_length ?? 0 });
            have = { tokens: e.tokens, ids: [...e.ids], token_type_ids: [...e.typeIds], num_truncated: e.numTruncated,
              offsets: e.offsets, special: e.specialTokensMask };
          } catch (error) {
            have = { error: error.code, message: error.message };
          }
          if (want.error || have.error) {
            if (want.error === have.error) identical++;
            else mismatches.push({ req, want, have });
            return;
          }
          const same = ['tokens', 'ids', 'token_type_ids', 'num_truncated']
            .every((key) => JSON.stringify(want[key]) === JSON.stringify(have[key]));
          const problems = offsetProblems(req, have);
          const pairs = [];
          for (let i = 0; i < have.offsets.length; i += 2) pairs.push([have.offsets[i], have.offsets[i + 1]]);
          if (JSON.stringify(pairs) !== JSON.stringify(native[k].offsets)) problems.push(`offsets differ from native: ${JSON.stringify(pairs)} vs ${JSON.stringify(native[k].offsets)}`);
          if (same && problems.length === 0) identical++;
          else mismatches.push({ req, want: want.tokens, have: have.tokens, problems });
        });
        model.dispose();
        summary.push(`${vocabName}/${settings.name}/${loader}: ${identical}/${requests.length} identical (offsets = native)`);
        assert.equal(mismatches.length, 0,
          `${mismatches.length} of ${requests.length} differ; first: ${JSON.stringify(mismatches.slice(0, 3), null, 1)}`);
      });
    }
  }
}

// Offsets index the input: special tokens (0,0), others a non-empty span inside their sequence.
function offsetProblems(req, have) {
  const problems = [];
  have.tokens.forEach((token, i) => {
    const [start, end] = [have.offsets[2 * i], have.offsets[2 * i + 1]];
    const source = have.token_type_ids[i] === 0 ? req.text : req.pair;
    if (have.special[i]) {
      if (start !== 0 || end !== 0) problems.push(`special ${i} at ${start},${end}`);
    } else if (!(start >= 0 && start < end && end <= source.length)) {
      problems.push(`token ${i} '${token}' at ${start},${end} outside 0..${source.length}`);
    }
  });
  return problems;
}

test('summary', () => { for (const line of summary) console.log(`# ${line}`); });
