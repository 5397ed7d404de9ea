// A leading U+FEFF in a string the engine returns is kept (bindings/keep-bom.js): Emscripten's
// glue decoded strings over 16 bytes with a TextDecoder that drops it as a byte order mark, so a
// token or a decoded text starting with U+FEFF lost its first character. Checked against Hugging
// Face's Rust `tokenizers` (npm binding) on a Unigram tokenizer.json whose pieces start with U+FEFF,
// through every way strings come back: the tokenizer alone, a decoder-only model (GPT-2 fixture) and
// an encoder–decoder (T5 fixture) — tokens, offsets, decode, next-token names, generated text.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { loadModel } from '../../js/index.js';
import { loadTokenizer } from '../../js/api/tokenizer.js';

const require = createRequire(import.meta.url);
const { Tokenizer: RustTokenizer } = require('tokenizers');
const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));

const BOM = '\uFEFF';
const LONG = `${BOM}abcdefghijklmnopq`;  // 20 UTF-8 bytes: the glue's TextDecoder path (> 16)
const LETTERS = 'abcdefghijklmnopqrstuvwxyz'.split('');
// 30 pieces, filled up to a model's vocab_size with long U+FEFF pieces no input contains (so that
// generated text, decoded, is full of them).
const PIECES = [['<unk>', 0], [LONG, -1], [`${BOM}ab`, -2], [BOM, -8], ...LETTERS.map((c) => [c, -10])];
const vocabulary = (size) => [...PIECES, ...Array.from({ length: size - PIECES.length }, (_, i) => [`${BOM}filler piece ${i}`, -20])];
const tokenizerJson = (vocab) => JSON.stringify({
  version: '1.0', truncation: null, padding: null,
  added_tokens: [{ id: 0, content: '<unk>', single_word: false, lstrip: false, rstrip: false, normalized: false, special: true }],
  normalizer: null, pre_tokenizer: null, post_processor: null, decoder: null,
  model: { type: 'Unigram', unk_id: 0, vocab, byte_fallback: false },
});
const TEXTS = [LONG, `${BOM}ab`, `${LONG}rstuvwxyz`, `${BOM}${BOM}abcdefghijklmnopqrstuvw`, `xyz${LONG}`, `${BOM}zyxwvutsrqponmlkjih`];

const dirs = [];
// A folder with the tokenizer (filled up to `fixture`'s vocab_size) and the fixture's weights.
const folder = (fixture) => {
  const dir = mkdtempSync(join(tmpdir(), 'attnscope-bom-'));
  dirs.push(dir);
  let size = PIECES.length;
  if (fixture) {
    for (const f of ['config.json', 'model.safetensors']) cpSync(join(FIXTURES, fixture, f), join(dir, f));
    size = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).vocab_size;
  }
  writeFileSync(join(dir, 'tokenizer.json'), tokenizerJson(vocabulary(size)));
  return dir;
};
const rust = RustTokenizer.fromString(tokenizerJson(vocabulary(PIECES.length)));
// The reference decode of a model's ids, with that model's filled vocabulary.
const rustDecode = (size, ids, skipSpecialTokens = false) =>
  RustTokenizer.fromString(tokenizerJson(vocabulary(size))).decode(Array.from(ids), skipSpecialTokens);
after(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });

// Rust's offsets count code points; ours are UTF-16 units (the same here: no astral characters).
const expected = async (text) => {
  const e = await rust.encode(text);
  return { ids: e.getIds(), tokens: e.getTokens(), offsets: e.getOffsets().flat(), text: await rust.decode(e.getIds(), false) };
};

describe('a leading U+FEFF survives the trip out of wasm', () => {
  it('the reference keeps it (so the comparisons below can fail)', async () => {
    const want = await expected(LONG);
    assert.deepEqual(want.tokens, [LONG]);
    assert.equal(want.text, LONG);
  });

  it('loadTokenizer: tokens, offsets and decode equal the Rust library\'s', async () => {
    const tok = await loadTokenizer(folder(null));
    try {
      for (const text of TEXTS) {
        const want = await expected(text), got = tok.tokenize(text);
        assert.deepEqual(Array.from(got.ids), want.ids, text);
        assert.deepEqual(got.tokens, want.tokens, JSON.stringify(text));
        assert.deepEqual(Array.from(got.offsets), want.offsets, JSON.stringify(text));
        assert.equal(tok.decode(want.ids), want.text, JSON.stringify(text));
      }
    } finally {
      tok.dispose();
    }
  });

  it('a decoder-only model (GPT-2 fixture): tokens, next-token names, generated text', async () => {
    const model = await loadModel(folder('engine/gpt2_lm_f32'), { threads: 1 });
    try {
      for (const text of TEXTS) assert.deepEqual(model.tokenize(text).tokens, (await expected(text)).tokens, JSON.stringify(text));
      const ids = (await expected(LONG)).ids;
      const r = await model.runIds(ids, { topK: 53 });
      assert.deepEqual(r.tokens, [LONG]);
      assert.ok(r.next.some((n) => n.token === LONG), 'the long U+FEFF piece among the next-token names');
      const g = await model.generate(ids, { maxNewTokens: 6, temperature: 0, stopAtEos: false }).result;
      assert.equal(g.text, await rustDecode(model.config.vocabSize, g.ids.slice(g.promptLength)));  // text: the new tokens'
      assert.ok(g.text.startsWith(BOM), JSON.stringify(g.text));
    } finally {
      model.dispose();
    }
  });

  it('an encoder-decoder (T5 fixture): source tokens, target tokens, generated text', async () => {
    const model = await loadModel(folder('seq2seq/t5_relu_tied_f32'), { threads: 1 });
    try {
      assert.equal(model.info.kind, 'encoder-decoder');
      for (const text of TEXTS) assert.deepEqual(model.tokenize(text).tokens, (await expected(text)).tokens, JSON.stringify(text));
      const r = await model.run(LONG, { target: `${LONG}rst` });
      assert.deepEqual(r.sourceTokens, [LONG]);
      assert.deepEqual(r.targetTokens, ['<unk>', LONG, 'r', 's', 't']);  // decoder_start_token_id 0, then the target
      const g = await model.generate(LONG, { maxNewTokens: 6, temperature: 0, stopAtEos: false });
      assert.equal(g.text, await rustDecode(model.config.vocabSize, g.ids, true));  // skip_special_tokens, as generate()'s text
      // Meaningful only if the target has a piece that starts with U+FEFF and takes the glue's
      // TextDecoder path (over 16 UTF-8 bytes).
      assert.ok(g.tokens.some((t) => t.startsWith(BOM) && Buffer.byteLength(t) > 16), JSON.stringify(g.tokens));
      assert.deepEqual(g.tokens, Array.from(g.ids, (id) => vocabulary(model.config.vocabSize)[id][0]));
    } finally {
      model.dispose();
    }
  });
});
