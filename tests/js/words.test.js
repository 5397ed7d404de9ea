// Word-level attention (js/analysis/words.js) checked against a separate, straightforward computation:
// words from splitting the text on whitespace (each token belongs to the chunk its span starts
// in; special tokens alone), and the merge as "sum the columns into T×W, then average the rows
// of each word" — the other order from words.js. Sentences with split words, on the bundled
// WordPiece BERT and the bundled byte-level GPT-2, through the API, the worker and the CLI.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { loadModel, findWords } from '../../js/index.js';
import { createWorkerClient } from '../../js/worker/client.js';

const CLI = fileURLToPath(new URL('../../js/cli/cli.js', import.meta.url));
const SENTENCES = [
  'The unaffable tokenizer mispronounced embeddings.',
  'Hello,world!  Transformers  attend:  everywhere',
];

/** Whitespace-separated chunks of the text with their spans; tokens assigned by span start. */
function referenceWords(result, text) {
  const chunks = [...text.matchAll(/\S+/gu)].map((m) => ({ start: m.index, end: m.index + m[0].length, text: m[0] }));
  const words = [];
  let last = null;
  for (let t = 0; t < result.tokens.length; t++) {
    const start = result.offsets[2 * t], end = result.offsets[2 * t + 1];
    if (result.specialTokensMask[t] || end <= start) {
      words.push({ tokens: [t] });
      last = null;
      continue;
    }
    // A byte-level token's span may start on the space before its word.
    let s = start;
    while (s < end && /\s/u.test(text[s])) s++;
    const chunk = chunks.find((c) => s >= c.start && s < c.end);
    if (!chunk) {   // a token of whitespace only ("Ġ" before a second space): a word of its own
      words.push({ tokens: [t] });
      last = null;
      continue;
    }
    if (last && last.chunk === chunk) last.tokens.push(t);
    else {
      last = { chunk, tokens: [t], text: chunk.text };
      words.push(last);
    }
  }
  return words;
}

function referenceMerge(attention, T, words) {
  const W = words.length;
  const columns = Array.from({ length: T }, (_, i) =>
    words.map((w) => w.tokens.reduce((sum, j) => sum + attention[i * T + j], 0)));
  return words.flatMap((w) => Array.from({ length: W }, (_, b) =>
    w.tokens.reduce((sum, i) => sum + columns[i][b], 0) / w.tokens.length));
}

function checkResult(result, text) {
  const [L, H, T] = result.shape;
  const expected = referenceWords(result, text);
  assert.deepEqual(result.words.map((w) => w.tokens), expected.map((w) => w.tokens), text);
  for (const [i, w] of result.words.entries()) {
    if (expected[i].text !== undefined) assert.equal(w.text, expected[i].text);
  }
  assert.ok(result.words.some((w) => w.tokens.length > 1), `"${text}" has a split word`);
  assert.ok(result.words.length < T, 'fewer words than tokens');
  const W = result.words.length;
  assert.equal(result.wordAttentions.length, L * H * W * W);
  let worst = 0;
  for (let l = 0; l < L; l++) {
    for (let h = 0; h < H; h++) {
      const got = result.wordAttention(l, h);
      const want = referenceMerge(result.attention(l, h), T, expected);
      for (let c = 0; c < W * W; c++) worst = Math.max(worst, Math.abs(got[c] - want[c]));
      for (let a = 0; a < W; a++) {
        const sum = got.subarray(a * W, (a + 1) * W).reduce((x, y) => x + y, 0);
        assert.ok(Math.abs(sum - 1) < 1e-5, `layer ${l} head ${h} word row ${a} sums to ${sum}`);
      }
    }
  }
  assert.ok(worst < 1e-6, `max difference from the reference merge ${worst}`);
}

for (const source of [undefined, 'bundled-causal']) {
  test(`run({ words: true }) merges split words (${source ?? 'bundled BERT'})`, async () => {
    const model = await loadModel(source, { threads: 1 });
    try {
      for (const text of SENTENCES) checkResult(await model.run(text, { words: true }), text);
      const plain = await model.run(SENTENCES[0]);
      assert.equal(plain.words, undefined);
      assert.throws(() => plain.wordAttention(0, 0), /words: true/);
    } finally {
      model.dispose();
    }
  });
}

test('findWords: special tokens and span-less tokens stand alone', () => {
  const words = findWords({
    tokens: ['[CLS]', 'em', '##bed', '[SEP]', 'x', 'y'],
    offsets: Int32Array.from([0, 0, 0, 2, 2, 5, 0, 0, 0, 0, 0, 0]),
    specialTokensMask: Uint8Array.from([1, 0, 0, 1, 0, 0]),
  }, 'embed');
  assert.deepEqual(words.map((w) => w.tokens), [[0], [1, 2], [3], [4], [5]]);
  assert.equal(words[1].text, 'embed');
});

test('the worker returns words and word attentions', async () => {
  const client = createWorkerClient();
  try {
    await client.load(undefined, { threads: 1 });
    const result = await client.run(SENTENCES[0], { words: true });
    checkResult(result, SENTENCES[0]);
  } finally {
    await client.dispose?.();
    client.terminate?.();
  }
});

test('CLI run --words writes words and word_attentions', () => {
  const text = SENTENCES[0];
  const out = JSON.parse(execFileSync(process.execPath, [CLI, 'run', '--threads', '1', '--text', text, '--words'], { maxBuffer: 1 << 28 }));
  const [L, H] = [out.attentions.length, out.attentions[0].length];
  const T = out.tokens.length;
  const result = {
    tokens: out.tokens, offsets: Int32Array.from(out.offsets.flat()),
    specialTokensMask: Uint8Array.from(out.tokens, (t) => Number(/^\[(CLS|SEP)\]$/.test(t))),
  };
  const expected = referenceWords(result, text);
  assert.deepEqual(out.words.map((w) => w.tokens), expected.map((w) => w.tokens));
  for (const w of out.words) assert.equal(text.slice(w.start, w.end), w.tokens.length && w.start < w.end ? w.text : text.slice(w.start, w.end));
  for (let l = 0; l < L; l++) {
    for (let h = 0; h < H; h++) {
      const want = referenceMerge(out.attentions[l][h].flat(), T, expected);
      const got = out.word_attentions[l][h].flat();
      got.forEach((v, c) => assert.ok(Math.abs(v - want[c]) < 1e-6, `layer ${l} head ${h} cell ${c}: ${v} vs ${want[c]}`));
    }
  }
});
