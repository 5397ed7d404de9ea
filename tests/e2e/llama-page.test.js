// A Llama-layout folder in the page (issue 32): tests/fixtures/llama_page (random weights, 8 query
// heads over 2 key/value heads, a Llama 2-layout tokenizer.json) opened through the folder input.
// Checked against what the test computes itself from the folder's config.json and tokenizer.json:
// the tokens (a small BPE loop here), the K/V groups of the grid and the formula, the rotary
// view's inverse frequencies, angles and score curve (a rotation written here, from the q and k the
// page ran), the token lists of the two orders, the head table's columns and its induction score
// (a separate loop over the API's attention tensor of the same ids). The Block tab is not offered
// for this model, and the console stays clean.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { guardedPage, launchBrowser, startServer, waitForRuns } from './helpers.js';
import { loadModel } from '../../js/index.js';

const FOLDER = fileURLToPath(new URL('../fixtures/llama_page', import.meta.url));
const config = JSON.parse(readFileSync(`${FOLDER}/config.json`, 'utf8'));
const tokenizer = JSON.parse(readFileSync(`${FOLDER}/tokenizer.json`, 'utf8'));
const H = config.num_attention_heads, KV = config.num_key_value_heads, dh = config.hidden_size / H;
const PER_KV = H / KV;

let server, browser, page, problems, bertColumns;
const hook = (fn, arg) => page.evaluate(fn, arg);

// Llama 2's pipeline for this tokenizer.json: "▁" + text with spaces as "▁", BPE merges by rank,
// characters outside the vocabulary as their UTF-8 bytes <0xXX>, <s> first.
function encode(text) {
  const { vocab, merges } = tokenizer.model;
  const rank = new Map(merges.map(([a, b], r) => [a + ' ' + b, r]));
  let parts = [...('▁' + text.replaceAll(' ', '▁'))];
  for (;;) {
    let best = -1;
    for (let k = 0; k + 1 < parts.length; k++) {
      const r = rank.get(parts[k] + ' ' + parts[k + 1]);
      if (r !== undefined && (best < 0 || r < rank.get(parts[best] + ' ' + parts[best + 1]))) best = k;
    }
    if (best < 0) break;
    parts.splice(best, 2, parts[best] + parts[best + 1]);
  }
  parts = parts.flatMap((p) => (p in vocab ? [p] : [...Buffer.from(p)].map((b) => `<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`)));
  return ['<s>', ...parts];
}

function rotate(x, position, invFreq) {
  const half = x.length / 2, out = new Array(x.length);
  for (let d = 0; d < half; d++) {
    const a = position * invFreq[d];
    out[d] = x[d] * Math.cos(a) - x[d + half] * Math.sin(a);
    out[d + half] = x[d + half] * Math.cos(a) + x[d] * Math.sin(a);
  }
  return out;
}

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
  ({ page, problems } = await guardedPage(browser, server.origin));
  await page.goto(server.origin + '/?q=6');
  await waitForRuns(page, 1);
  // The bundled BERT's head table first: the columns an encoder shows.
  await page.locator('[role=tab][data-view="heads"]').click();
  await page.waitForFunction(() => window.__attnscope.heads?.columns);
  bertColumns = (await hook(() => window.__attnscope.heads)).columns;
  await page.locator('[role=tab][data-view="grid"]').click();
  const runs = await hook(() => window.__attnscope.runsDone);
  await page.locator('#model-select').selectOption('__local');
  await page.locator('#folder-input').setInputFiles(FOLDER);
  await page.waitForFunction((r) => window.__attnscope.runsDone > r && window.__attnscope.info?.config.family === 'llama', runs, { timeout: 60000 });
  await waitForRuns(page, runs + 1);
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test('the folder runs: the tokenizer.json\'s tokens, a causal run of every layer and head, no Block tab', async () => {
  const text = await page.locator('#text-a').inputValue();
  const tokens = await hook(() => window.__attnscope.tokens);
  assert.deepEqual(tokens, encode(text));
  assert.deepEqual(await hook(() => window.__attnscope.shape), [config.num_hidden_layers, H, tokens.length, tokens.length]);
  assert.equal(await hook(() => window.__attnscope.causal), true);
  assert.equal(await page.locator('[role=tab][data-view="block"]').isHidden(), true);
  for (const view of ['grid', 'head', 'lines', 'formula', 'aggregates', 'positions', 'heads']) {
    assert.equal(await page.locator(`[role=tab][data-view="${view}"]`).isVisible(), true, view);
  }
  // Arrow keys along the tabs pass over the hidden one.
  await page.locator('[role=tab][data-view="diff"]').click();
  await page.locator('[role=tab][data-view="diff"]').focus();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  assert.equal((await hook(() => window.__attnscope.state)).view, 'positions');
  await page.keyboard.press('ArrowLeft');
  assert.equal((await hook(() => window.__attnscope.state)).view, 'compare');
  assert.equal(await page.locator('#input-error').textContent(), '');
  const line = await page.locator('#model-info').textContent();
  assert.ok(line.includes(`${KV} K/V heads (grouped-query)`) && line.includes('rotary positions'), line);
});

test('the grid brackets the query heads sharing each K/V head; the formula names the shared head', async () => {
  await page.locator('[role=tab][data-view="grid"]').click();
  await page.waitForFunction(() => Number(document.querySelector('canvas.model-grid')?.dataset.rendered) > 0);
  assert.equal(await page.locator('canvas.model-grid').getAttribute('data-kv-groups'), String(KV));
  // The band is drawn: ink above the head labels, over the first and the last group.
  const ink = await page.evaluate(() => {
    const c = document.querySelector('canvas.model-grid'), dpr = window.devicePixelRatio || 1;
    const data = c.getContext('2d').getImageData(0, 0, c.width, Math.round(16 * dpr)).data;
    let n = 0;
    for (let k = 3; k < data.length; k += 4) if (data[k] > 0) n++;
    return n;
  });
  assert.ok(ink > 100, `band pixels: ${ink}`);

  await page.locator('[role=tab][data-view="formula"]').click();
  for (const head of [0, H - 1, PER_KV]) {
    await page.locator('.view-formula .head-picker select').selectOption(String(head));
    await page.waitForFunction((h) => window.__attnscope.formula?.head === h, head);
    const kv = Math.floor(head / PER_KV);
    assert.deepEqual(await hook(() => window.__attnscope.formula.kvGroup), { kv, first: kv * PER_KV, last: kv * PER_KV + PER_KV - 1 });
    const shared = await page.locator('.view-formula .step', { hasText: 'Grouped-query attention' }).textContent();
    assert.ok(shared.includes(`key/value head ${kv}, shared by query heads ${kv * PER_KV}–${kv * PER_KV + PER_KV - 1}`), shared);
    assert.equal(await page.locator('.view-formula .kv-note').textContent(), `K/V head ${kv} (shared by heads ${kv * PER_KV}–${kv * PER_KV + PER_KV - 1})`);
  }
});

test('the rotary Positions view: the model\'s frequencies, angles and score curve, the two orders\' tokens', async () => {
  await page.locator('[role=tab][data-view="positions"]').click();
  await page.waitForFunction(() => document.querySelector('.view-positions')?.dataset.ready === '1', null, { timeout: 60000 });
  const p = await hook(() => window.__attnscope.positions);
  const invFreq = Array.from({ length: dh / 2 }, (_, k) => config.rope_theta ** (-(2 * k) / dh));
  p.invFreq.forEach((f, k) => assert.ok(Math.abs(f - invFreq[k]) <= 1e-12 * invFreq[k], `pair ${k}`));
  const { layer, head, query, key, distance } = p;
  assert.equal(distance, query - key);
  assert.ok(distance > 0, 'the default pair is an earlier key');
  // The page's q and k of that pair (as the engine returned them: rotated to their positions).
  const q = await hook(([l, h, i]) => window.__attnscope.vector('q', l, h, i), [layer, head, query]);
  const k = await hook(([l, h, j]) => window.__attnscope.vector('k', l, h, j), [layer, head, key]);
  const q0 = rotate(q, -query, invFreq), k0 = rotate(k, -key, invFreq);
  const dot = (a, b) => a.reduce((s, v, d) => s + v * b[d], 0);
  for (const d of [0, 1, distance, 17, p.scores.length - 1]) {
    const want = dot(rotate(q0, d, invFreq), k0) / Math.sqrt(dh);
    assert.ok(Math.abs(p.scores[d] - want) < 1e-4 * (1 + Math.abs(want)), `d = ${d}: ${p.scores[d]} vs ${want}`);
  }
  const engine = dot(q, k) / Math.sqrt(dh);
  assert.ok(Math.abs(p.scores[distance] - engine) < 1e-4 * (1 + Math.abs(engine)), 'the curve meets the engine\'s score at the real distance');
  assert.equal(p.scores.length, Math.min(256, config.max_position_embeddings - 1) + 1);
  p.angles.forEach((deg, pair) => {
    const want = ((distance * invFreq[pair]) % (2 * Math.PI)) * 180 / Math.PI;
    assert.ok(Math.abs(deg - want) < 1e-9, `pair ${pair}: ${deg} vs ${want}`);
  });
  assert.equal(await page.locator('.rotary-dials figure').count(), dh / 2);

  const [a, b] = ['There is a prince', 'Is there a prince'];
  // The chips' readable forms: SentencePiece's ▁ shown as ␣.
  const wantA = encode(a), wantB = encode(b);
  assert.deepEqual(p.order.tokensA, wantA.map((t) => t.replaceAll('▁', '␣')));
  assert.deepEqual(p.order.tokensB, wantB.map((t) => t.replaceAll('▁', '␣')));
  const note = await page.locator('.rotary-order > p.hint').textContent();
  const sameTokens = [...wantA].sort().join(' ') === [...wantB].sort().join(' ');
  assert.equal(sameTokens, false, 'this tokenizer splits "There is" and "Is there" differently');
  assert.ok(note.includes('splits them differently'), note);
});

test('the head table: BERT shows [CLS] not First; a decoder no Next, [CLS], [SEP]', () => {
  assert.deepEqual(bertColumns, ['layer', 'head', 'entropy', 'meanDistance', 'previousShare', 'nextShare', 'selfShare', 'clsMass', 'sepMass']);
});

test('the head table: decoder columns only, defined; induction equals a loop over the API\'s tensor', async () => {
  await page.locator('[role=tab][data-view="heads"]').click();
  await page.waitForFunction(() => window.__attnscope.heads?.rows?.[0]?.inductionScore !== undefined, null, { timeout: 60000 });
  const heads = await hook(() => window.__attnscope.heads);
  assert.deepEqual(heads.columns, ['layer', 'head', 'entropy', 'meanDistance', 'previousShare', 'selfShare', 'firstMass', 'inductionScore']);
  for (const key of heads.columns.slice(2)) {
    const title = await page.locator(`.heads-table th button[data-sort="${key}"]`).getAttribute('title');
    assert.ok(title && title.length > 20, `${key} has a definition`);
  }
  assert.equal(await page.locator('.heads-legend dt').count(), heads.columns.length - 2);

  // The same repeated sequence the page ran, through the Node API, scored by a loop here.
  const { inductionInput } = await import('../../js/head-detectors.js');
  const model = await loadModel(FOLDER, { threads: 1 });
  try {
    const input = inductionInput(model.config);
    const run = await model.runIds(input.ids);
    const [L, Hh, T] = run.shape;
    for (const row of heads.rows) {
      const m = run.attention(row.layer, row.head);
      let sum = 0;
      for (let t = 0; t < input.length; t++) sum += m[(input.first + input.length + t) * T + input.first + t + 1];
      assert.ok(Math.abs(row.inductionScore - sum / input.length) < 1e-5, `layer ${row.layer} head ${row.head}`);
    }
    assert.equal(heads.rows.length, L * Hh);
  } finally {
    model.dispose();
  }
});

test('every other tab draws this model without an error', async () => {
  for (const view of ['head', 'lines', 'aggregates', 'diff', 'map', 'compare']) {
    await page.locator(`[role=tab][data-view="${view}"]`).click();
    await page.waitForFunction((v) => {
      const panel = document.querySelector(`.view-${v}`);
      return panel && !panel.hidden && (panel.querySelector('canvas, svg, table') !== null);
    }, view, { timeout: 60000 });
  }
  await page.waitForTimeout(500);   // any late job's error reaches the console
  assert.equal(await page.locator('#input-error').textContent(), '');
  assert.deepEqual(problems, []);
});

test('the Block view, opened anyway (a link), says why it is not offered; the console stayed clean', async () => {
  await page.evaluate(() => document.querySelector('[role=tab][data-view="block"]').click());
  await page.waitForFunction(() => document.querySelector('.view-block .view-unavailable')?.textContent.length > 0);
  const why = await page.locator('.view-block .view-unavailable').textContent();
  assert.ok(why.includes('Llama layer'), why);
  assert.equal(await page.locator('#input-error').textContent(), '');
  assert.deepEqual(problems, []);
});
