// The block walk-through and positions views (page half). Block: on the bundled BERT and
// the bundled decoder every self-check the page shows (JavaScript float64 recomputation of each
// residual sum, LayerNorm and the feed-forward's GELU vs the engine) is ≤ 1e-4; the permalink carries view, layer and token;
// a DistilBERT-shaped folder with "I am full" gives 5 tokens and C = 768 split into 12 heads of 64.
// Positions: the sentences' attention equals the engine's; the cosine matrix and ‖word‖, ‖position‖
// equal those computed here from the checkpoint's own tensors (read straight from
// model.safetensors, not through the engine). Formula: ‖q‖, ‖k‖, cos(q, k) from q and k.
// No console errors anywhere.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { guardedPage, launchBrowser, startServer, waitForRuns } from './helpers.js';
import { writeDistilBertFolder } from './helpers/distilbert-folder.js';

const MODEL_DIR = fileURLToPath(new URL('../../model/', import.meta.url));
let server, browser, tmp;

before(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'attnscope-e2e-block-'));
  server = await startServer();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

// One tensor of a safetensors file as float32; the bundled model stores F16 (the shared test
// reader, tests/js/helpers/safetensors.js, reads F32 fixtures only).
function readTensor(path, name) {
  const buf = readFileSync(path);
  const n = Number(buf.readBigUInt64LE(0));
  const { dtype, shape, data_offsets: [b, e] } = JSON.parse(buf.subarray(8, 8 + n))[name];
  const bytes = buf.subarray(8 + n + b, 8 + n + e);
  if (dtype === 'F32') return { shape, data: new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length)) };
  assert.equal(dtype, 'F16');
  const half = (h) => {
    const s = h >> 15 ? -1 : 1, x = (h >> 10) & 31, m = h & 1023;
    return x === 0 ? s * m * 2 ** -24 : x === 31 ? (m ? NaN : s * Infinity) : s * (1 + m / 1024) * 2 ** (x - 15);
  };
  return { shape, data: Float32Array.from({ length: bytes.length / 2 }, (_, i) => half(bytes.readUInt16LE(2 * i))) };
}

async function open(query, viewport) {
  const g = await guardedPage(browser, server.origin, viewport);
  await g.page.goto(`${server.origin}/?${query}`);
  await waitForRuns(g.page, 1);
  return g;
}

const blockOf = (page) => page.waitForFunction(() => window.__attnscope.block, null, { timeout: 60000 }).then((h) => h.jsonValue());

function assertChecks(block, expectedSteps) {
  assert.deepEqual(block.checks.map((c) => c.step), expectedSteps);
  for (const { step, maxDiff } of block.checks) assert.ok(maxDiff <= 1e-4, `${step}: ${maxDiff}`);
}

// The feed-forward step: the pre-activation and activated strips (F numbers each, hidden_act's
// formula between them) and the activation's self-check, shown and ≤ 1e-4.
async function assertGeluStep(page, block, act, formula) {
  const ffn = page.locator('.view-block .block-ffn');
  assert.equal(await page.evaluate(() => window.__attnscope.info.config.hiddenAct), act);
  // in (C), x·W₁ + b₁ (F), after the activation (F), FFN out (C): each strip's label and length.
  const strips = await ffn.locator('.vector-row').evaluateAll((rows) => rows.map((r) =>
    [r.querySelector('.vector-name').textContent, Number(/\((\d+) numbers/.exec(r.querySelector('.vector-readout').textContent)?.[1])]));
  assert.deepEqual(strips, [['in', block.C], [`x·W₁ + b₁ (${block.F})`, block.F], [`after ${act} (${block.F})`, block.F], ['FFN out', block.C]]);
  assert.match(await ffn.innerText(), formula);
  const check = ffn.locator(`.step.check[data-step="layers.${block.layer}.ffnIntermediate"]`);
  assert.equal(await check.count(), 1);
  assert.match(await check.getAttribute('class'), /\bok\b/);
  const d = Number(await check.getAttribute('data-max-error'));
  assert.ok(d >= 0 && d <= 1e-4, `GELU check ${d}`);
  console.log(`${act} self-check (layer ${block.layer}, token ${block.token}): ${d.toExponential(2)}`);
}

test('block view, bundled BERT: every step drawn, every self-check ≤ 1e-4, permalink', async () => {
  const g = await open('view=block&layer=0&q=2&text=There%20is%20a%20prince');
  const { page } = g;
  const b = await blockOf(page);
  const info = await page.evaluate(() => window.__attnscope.info.config);
  assert.equal(b.C, info.hiddenSize);
  assert.equal(b.H * b.dk, b.C);
  assert.equal(b.token, 2);
  // Layer 0 starts at the embeddings: sum, Norm; then Add, Norm, Add, Norm.
  assertChecks(b, ['embeddings.sum', 'embeddings.output', 'layers.0.attentionResidual', 'layers.0.attentionNorm',
    'layers.0.ffnIntermediate', 'layers.0.ffnResidual', 'layers.0.output']);
  assert.equal(await page.locator('.view-block .head-split span').count(), b.H);
  assert.equal(await page.locator('.view-block .step.check.ok').count(), 7);
  await assertGeluStep(page, b, 'gelu', /½x\(1 \+ erf\(x\/√2\)\)/);
  // Every strip has its norm; the canvas strips are drawn (non-zero size).
  const norms = await page.locator('.view-block .vector-row').evaluateAll((rows) => rows.map((r) => Number(r.dataset.norm)));
  assert.ok(norms.length >= 15 && norms.every((n) => Number.isFinite(n)), norms.join(','));
  // The layer picker moves to layer 2: its input is layer 1's output; the URL says so.
  await page.locator('.view-block .layer-picker select').selectOption('2');
  await page.waitForFunction(() => window.__attnscope.block?.layer === 2);
  const b2 = await page.evaluate(() => window.__attnscope.block);
  assertChecks(b2, ['layers.2.attentionResidual', 'layers.2.attentionNorm', 'layers.2.ffnIntermediate', 'layers.2.ffnResidual',
    'layers.2.output']);
  const url = new URL(page.url());
  assert.equal(url.searchParams.get('view'), 'block');
  assert.equal(url.searchParams.get('layer'), '2');
  assert.equal(url.searchParams.get('q'), '2');
  assert.deepEqual(g.problems, []);
  await g.context.close();
});

test('block view, bundled decoder: the pre-LN order and ln_f, self-checks ≤ 1e-4', async () => {
  const g = await open('model=bundled-causal&view=block&layer=99&q=1&text=The%20man%20said%20that%20he');
  const b = await blockOf(g.page);
  const L = await g.page.evaluate(() => window.__attnscope.info.config.numLayers);
  assert.equal(b.layer, L - 1);
  assert.ok(b.decoder);
  const l = L - 1;
  assertChecks(b, [`layers.${l}.attentionInputNorm`, `layers.${l}.attentionResidual`, `layers.${l}.ffnInputNorm`,
    `layers.${l}.ffnIntermediate`, `layers.${l}.ffnResidual`, 'finalNorm']);
  await assertGeluStep(g.page, b, 'gelu_new', /tanh\(√\(2\/π\)/);
  assert.deepEqual(g.problems, []);
  await g.context.close();
});

test('a DistilBERT-shaped folder: "I am full" is 5 tokens and C = 768 walks into 12 heads of 64', async () => {
  const dir = join(tmp, 'distil');
  writeDistilBertFolder(dir);
  const g = await open('view=block', { width: 390, height: 844 });
  const { page } = g;
  const runs = await page.evaluate(() => window.__attnscope.runsDone);
  await page.locator('#model-select').selectOption('__local');
  await page.locator('#folder-input').setInputFiles(dir);
  await page.waitForFunction((r) => window.__attnscope.runsDone > r && window.__attnscope.info?.source === 'files', runs, { timeout: 60000 });
  const before2 = await page.evaluate(() => window.__attnscope.runsDone);
  await page.locator('#text-a').fill('I am full');
  await page.waitForFunction((r) => window.__attnscope.runsDone > r && document.body.dataset.status === 'ready' &&
    window.__attnscope.block?.tokens === 5, before2, { timeout: 60000 });
  assert.deepEqual(await page.evaluate(() => window.__attnscope.tokens), ['[CLS]', 'i', 'am', 'full', '[SEP]']);
  const b = await page.evaluate(() => window.__attnscope.block);
  assert.deepEqual([b.C, b.H, b.dk, b.F], [768, 12, 64, 3072]);
  // DistilBERT has no token-type embedding: word + position only.
  assertChecks(b, ['embeddings.sum', 'embeddings.output', 'layers.0.attentionResidual', 'layers.0.attentionNorm',
    'layers.0.ffnIntermediate', 'layers.0.ffnResidual', 'layers.0.output']);
  const text = await page.locator('.view-block').innerText();
  assert.match(text, /C = 768 numbers into H = 12 heads of d_k = 64/);
  assert.match(text, /12 × 64 = 768/);
  assert.equal(await page.locator('.view-block .head-split span').count(), 12);
  assert.deepEqual(g.problems, []);
  await g.context.close();
});

test('positions view: attention per sentence, word-pair change, position cosines and sizes from the checkpoint', async () => {
  const g = await open('view=positions&layer=1&head=2');
  const { page } = g;
  await page.waitForFunction(() => window.__attnscope.positions, null, { timeout: 60000 });
  const p = await page.evaluate(() => window.__attnscope.positions);
  assert.deepEqual(p.tokensA, ['[CLS]', 'there', 'is', 'a', 'prince', '[SEP]']);
  assert.deepEqual(p.tokensB, ['[CLS]', 'is', 'there', 'a', 'prince', '[SEP]']);
  assert.deepEqual(p.match, [0, 2, 1, 3, 4, 5]);
  const n = p.tokensA.length;
  // Rows of each attention matrix sum to 1; the change is B's weight of the same word pair − A's.
  for (const m of [p.a, p.b]) for (let i = 0; i < n; i++) assert.ok(Math.abs(m.slice(i * n, (i + 1) * n).reduce((s, v) => s + v, 0) - 1) < 1e-4);
  // Each word here is one token, so the word-level matrices are the token ones, and the change of
  // the pair (there, is) is B's weight of (there, is) − A's.
  assert.deepEqual(p.wordsA, p.tokensA);
  for (let x = 0; x < n * n; x++) assert.ok(Math.abs(p.wordA[x] - p.a[x]) < 1e-6);
  assert.ok(Math.abs(p.delta[1 * n + 2] - (p.b[2 * n + 1] - p.a[1 * n + 2])) < 1e-6);
  assert.ok(p.delta.some((v) => Math.abs(v) > 1e-3), 'the order changes some weight');
  // Position cosines and sizes straight from the checkpoint's tensors.
  const file = join(MODEL_DIR, 'model.safetensors');
  const pos = readTensor(file, 'bert.embeddings.position_embeddings.weight'), word = readTensor(file, 'bert.embeddings.word_embeddings.weight');
  const C = pos.shape[1];
  const rowOf = (t, r) => t.data.subarray(r * C, (r + 1) * C);
  const len = (v) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  assert.ok(p.positionRows >= 32, `${p.positionRows} rows`);
  for (const [a, b] of [[0, 1], [3, 17], [10, 11], [p.positionRows - 1, 0]]) {
    const va = rowOf(pos, a), vb = rowOf(pos, b);
    const cos = va.reduce((s, x, c) => s + x * vb[c], 0) / (len(va) * len(vb));
    assert.ok(Math.abs(p.cos[a * p.positionRows + b] - cos) < 1e-5, `cos(${a}, ${b}): ${p.cos[a * p.positionRows + b]} vs ${cos}`);
  }
  const vocab = readFileSync(join(MODEL_DIR, 'vocab.txt'), 'utf8').split('\n');
  p.sizes.forEach((s, t) => {
    assert.ok(Math.abs(s.word - len(rowOf(word, vocab.indexOf(s.token)))) < 1e-4, `‖word‖ of ${s.token}`);
    assert.ok(Math.abs(s.position - len(rowOf(pos, t))) < 1e-4, `‖position‖ of ${t}`);
  });
  // Editing sentence B reruns; a word that is not in A leaves its pairs unmatched.
  await page.locator('.positions-sentence[data-side="1"]').fill('Is there a cat');
  await page.locator('.positions-sentence[data-side="1"]').press('Enter');
  await page.waitForFunction(() => window.__attnscope.positions?.tokensB.includes('cat'), null, { timeout: 60000 });
  assert.equal((await page.evaluate(() => window.__attnscope.positions)).match[4], -1);
  // What was typed is in the permalink: a reload shows and runs the same sentence.
  assert.equal(new URL(page.url()).searchParams.get('pb'), 'Is there a cat');
  await page.reload();
  await page.waitForFunction(() => window.__attnscope.positions?.tokensB.includes('cat'), null, { timeout: 60000 });
  assert.equal(await page.locator('.positions-sentence[data-side="1"]').inputValue(), 'Is there a cat');
  assert.equal(await page.locator('.positions-sentence[data-side="0"]').inputValue(), 'There is a prince');
  assert.deepEqual(g.problems, []);
  await g.context.close();
});

test('positions view, bundled decoder: words split differently in the two sentences still pair up', async () => {
  const g = await open('model=bundled-causal&view=positions');
  await g.page.waitForFunction(() => window.__attnscope.positions, null, { timeout: 60000 });
  const p = await g.page.evaluate(() => window.__attnscope.positions);
  // The small vocabulary splits "There" into "T" + "here" but has "␣there": words pair anyway.
  assert.deepEqual(p.wordsA.map((w) => w.toLowerCase()), ['there', 'is', 'a', 'prince']);
  assert.deepEqual(p.match, [1, 0, 2, 3], `${p.tokensA} / ${p.tokensB}: ${p.match}`);
  // Causal: a query never attends to a later key, in either sentence.
  const n = p.tokensA.length;
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) assert.equal(p.a[i * n + j], 0);
  // A word's row is the mean of its tokens' rows, summed over each key word's tokens.
  const of = [];
  p.tokensA.forEach((t, i) => of.push(i === 0 || t.startsWith('␣') ? (of.at(-1) ?? -1) + 1 : of.at(-1)));
  const nw = p.wordsA.length;
  for (let a = 0; a < nw; a++) {
    for (let b = 0; b < nw; b++) {
      const rows = of.flatMap((w, i) => (w === a ? [i] : [])), cols = of.flatMap((w, j) => (w === b ? [j] : []));
      const want = rows.reduce((s, i) => s + cols.reduce((t, j) => t + p.a[i * n + j], 0), 0) / rows.length;
      assert.ok(Math.abs(p.wordA[a * nw + b] - want) < 1e-6, `word pair (${a}, ${b})`);
    }
  }
  assert.deepEqual(g.problems, []);
  await g.context.close();
});

test('formula view: ‖q‖, ‖k‖ and cos(q, k) beside q·k', async () => {
  const g = await open('view=formula&layer=1&head=1&q=2');
  const { page } = g;
  await page.waitForFunction(() => window.__attnscope.formula?.kNorms, null, { timeout: 60000 });
  const f = await page.evaluate(() => window.__attnscope.formula);
  const q = await page.evaluate(() => window.__attnscope.vector('q', 1, 1, 2));
  const len = (v) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  assert.ok(Math.abs(f.qNorm - len(q)) < 1e-5);
  for (let j = 0; j < f.kNorms.length; j++) {
    const k = await page.evaluate((jj) => window.__attnscope.vector('k', 1, 1, jj), j);
    const dot = q.reduce((s, x, d) => s + x * k[d], 0);
    assert.ok(Math.abs(f.kNorms[j] - len(k)) < 1e-5);
    assert.ok(Math.abs(f.cos[j] - dot / (len(q) * len(k))) < 1e-5);
    assert.ok(Math.abs(f.scores[j] - f.qNorm * f.kNorms[j] * f.cos[j]) < 1e-3 * Math.max(1, Math.abs(f.scores[j])));
  }
  const header = await page.locator('.formula-table thead').innerText();
  assert.match(header, /‖k‖/);
  assert.match(header, /cos\(q, k\)/);
  assert.match(await page.locator('.explain').innerText(), /√d_k/);
  assert.deepEqual(g.problems, []);
  await g.context.close();
});
