// A Llama-layout folder in the page: tests/fixtures/llama_page (random weights, 8 query
// heads over 2 key/value heads, a Llama 2-layout tokenizer.json) opened through the folder input.
// Checked against what the test computes itself from the folder's config.json and tokenizer.json:
// the tokens (a small BPE loop here), the K/V groups of the grid and the formula, the rotary
// view's inverse frequencies, angles and score curve (a rotation written here, from the q and k the
// page ran), the token lists of the two orders, the head table's columns and its induction score
// (a separate loop over the API's attention tensor of the same ids). The Block tab walks the Llama
// layer (RMSNorm, q/k/v, rotation, grouped-query attention, SwiGLU; its self-checks ≤ 1e-4, the
// rotation of head 0's q redone here from config.json's rope_theta) in English and Korean; the
// Contributions tab splits the logit with the RMSNorm reading (its parts add up to the logit the
// API's next-token probabilities imply). The console stays clean.
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

test('the folder runs: the tokenizer.json\'s tokens, a causal run of every layer and head, every tab offered', async () => {
  const text = await page.locator('#text-a').inputValue();
  const tokens = await hook(() => window.__attnscope.tokens);
  assert.deepEqual(tokens, encode(text));
  assert.deepEqual(await hook(() => window.__attnscope.shape), [config.num_hidden_layers, H, tokens.length, tokens.length]);
  assert.equal(await hook(() => window.__attnscope.causal), true);
  for (const view of ['grid', 'head', 'lines', 'formula', 'aggregates', 'positions', 'heads', 'block', 'contributions']) {
    assert.equal(await page.locator(`[role=tab][data-view="${view}"]`).isVisible(), true, view);
  }
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
  const { inductionInput } = await import('../../js/analysis/head-detectors.js');
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

test('the Block view walks a Llama token: RMSNorm, q/k/v, rotation, grouped K/V, SwiGLU; English and Korean', async () => {
  await page.locator('[role=tab][data-view="block"]').click();
  const blockAt = (layer, token) => page.waitForFunction(([l, i]) => {
    const b = window.__attnscope.block;
    return b && b.family === 'llama' && b.layer === l && b.token === i ? b : null;
  }, [layer, token], { timeout: 60000 }).then((h) => h.jsonValue());
  const state = await hook(() => window.__attnscope.state);
  let b = await blockAt(state.layer, state.query);
  // Layer 0 of a later token: the embeddings step (word only), then the layer's steps in order.
  await page.locator('.view-block .layer-picker select').selectOption('0');
  await page.locator('.view-block .query-picker select').selectOption('3');
  b = await blockAt(0, 3);
  const layerSteps = ['blockInput', 'blockRmsAttn', 'blockQkvLlama', 'blockRotation', 'blockGqa', 'blockWoLlama', 'blockAdd', 'blockRmsFfn', 'blockSwiglu', 'blockAdd'];
  assert.deepEqual(b.steps, ['blockEmbeddingsRotary', ...layerSteps, 'blockNext']);
  const checked = ['attentionInputNorm', 'qRotated', 'kRotated', 'attentionContext', 'attentionResidual', 'ffnInputNorm', 'ffnGateActivated', 'ffnIntermediate', 'ffnResidual'];
  assert.deepEqual(b.checks.map((c) => c.step), ['embeddings.sum', ...checked.map((s) => `layers.0.${s}`)]);
  for (const { step, maxDiff } of b.allChecks) assert.ok(maxDiff <= 1e-4, `${step}: ${maxDiff}`);
  assert.equal(await page.locator('.view-block .step.check.bad').count(), 0);
  // Labels: RMSNorm, never a LayerNorm's; no position strip; a rotation and SwiGLU step.
  const titles = b.titles.join(' | ');
  assert.ok(titles.includes('RMSNorm (input_layernorm)') && titles.includes('RMSNorm (post_attention_layernorm)'), titles);
  assert.ok(!/LayerNorm|layer normalisation|ln_1|ln_2/.test(titles), titles);
  for (const x of b.titles.filter((x) => /norm/i.test(x))) assert.ok(x.includes('RMSNorm'), x);
  assert.ok(titles.includes('q and k turned by position 3') && titles.includes('SwiGLU'), titles);
  const labels = await page.locator('.view-block .vector-name').allTextContents();
  assert.ok(!labels.includes('position'), labels.join(','));
  assert.ok(labels.includes('q before') && labels.includes('q rotated') && labels.includes('silu(gate) · up (96)'), labels.join(','));
  // The rotation, redone here: head 0's q turned by position 3 with config.json's rope_theta.
  const invFreq = Array.from({ length: dh / 2 }, (_, k) => config.rope_theta ** (-(2 * k) / dh));
  const turned = rotate(b.rotation.before, 3, invFreq);
  turned.forEach((v, d) => assert.ok(Math.abs(v - b.rotation.after[d]) <= 1e-4 * (1 + Math.abs(v)), `dim ${d}: ${b.rotation.after[d]} vs ${v}`));
  assert.equal(b.kvMap, 'query head → K/V head: ' + Array.from({ length: H }, (_, h) => `${h}→${Math.floor(h / PER_KV)}`).join(', '));

  // The last layer ends with model.norm (checked), and Korean labels say RMSNorm too.
  await page.locator('.view-block .layer-picker select').selectOption(String(config.num_hidden_layers - 1));
  b = await blockAt(config.num_hidden_layers - 1, 3);
  assert.equal(b.steps.at(-1), 'blockLast');
  assert.ok(b.checks.some((c) => c.step === 'finalNorm' && c.maxDiff <= 1e-4));
  await page.locator('[data-lang="ko"]').click();
  await page.waitForFunction(() => window.__attnscope.block?.titles?.some((x) => x.includes('회전')));
  const ko = (await hook(() => window.__attnscope.block)).titles.join(' | ');
  assert.ok(ko.includes('RMSNorm') && ko.includes('SwiGLU') && ko.includes('그룹 쿼리 어텐션') && !ko.includes('층 정규화'), ko);
  await page.locator('[data-lang="en"]').click();
  assert.equal(await page.locator('#input-error').textContent(), '');
});

test('Contributions: the RMSNorm split of the predicted logit; its parts add up to it', async () => {
  await page.locator('[role=tab][data-view="contributions"]').click();
  await page.waitForSelector('.contrib-list li', { timeout: 60000 });
  const items = await page.locator('.contrib-list li').evaluateAll((lis) => lis.map((li) => ({ kind: li.dataset.kind, value: Number(li.dataset.value) })));
  assert.ok(items.length > 0 && items.every((p) => p.kind === 'head' || p.kind === 'mlp'), JSON.stringify(items));
  const formula = await page.locator('.view-contributions .formula-text').textContent();
  assert.ok(formula.includes('RMSNorm') && !formula.includes('mean p'), formula);
  const rest = await page.locator('.view-contributions .contrib-rest').textContent();
  assert.ok(rest.includes('no bias'), rest);

  // The split through the Node API on the same text: the parts add up to the logit, and that logit
  // is the one the next-token probabilities imply (log p(top) − log p(other) = logit difference).
  const text = await page.locator('#text-a').inputValue();
  const model = await loadModel(FOLDER, { threads: 1 });
  try {
    const r = await model.run(text, { attribution: true, topK: 2 });
    const { parts, logit, sum, tokenId } = r.attribution;
    assert.ok(Math.abs(sum - logit) <= 1e-4 * Math.max(1, Math.abs(logit)), `${sum} vs ${logit}`);
    assert.deepEqual(new Set(parts.map((p) => p.kind)), new Set(['embeddings', 'head', 'mlp']));
    assert.equal(parts.filter((p) => p.kind === 'head').length, config.num_hidden_layers * H);
    assert.equal(r.next[0].id, tokenId);
    const second = (await model.run(text, { attribution: { tokenId: r.next[1].id }, topK: 0 })).attribution;
    const fromProbs = Math.log(r.next[0].prob) - Math.log(r.next[1].prob);
    assert.ok(Math.abs(logit - second.logit - fromProbs) <= 1e-3, `${logit} − ${second.logit} vs ${fromProbs}`);
    // The page lists the same parts (its top 16 by size).
    for (const item of items) assert.ok(parts.some((p) => p.kind === item.kind && Math.abs(p.value - item.value) < 1e-9), JSON.stringify(item));
  } finally {
    model.dispose();
  }
  assert.equal(await page.locator('#input-error').textContent(), '');
  assert.deepEqual(problems, []);
});

test('Generate: the KV-cache strip counts one key and one value per key/value head, not per query head', async () => {
  await page.locator('#gen-tokens').fill('3');
  await page.locator('#gen-tokens').dispatchEvent('change');
  await page.click('#gen-start');
  await page.waitForFunction(() => window.__attnscope.generation?.done && !document.body.dataset.generating, null, { timeout: 60000 });
  const keys = Number(await page.locator('.kv-cache').getAttribute('data-keys'));
  const gen = await hook(() => window.__attnscope.generation);
  assert.equal(keys, gen.promptLength + gen.steps.length);
  // Per layer and position: a key and a value for each of the KV heads, dh floats each, f32 —
  // here KV/H of what counting hidden_size (every query head) would say.
  const L = config.num_hidden_layers;
  const bytes = 2 * L * keys * KV * dh * 4;
  assert.ok(KV < H);
  assert.equal(Number(await page.locator('.kv-cache').getAttribute('data-bytes')), bytes);
  const note = await page.locator('.kv-cache .kv-note').textContent();
  assert.ok(note.includes(`${KV} key/value heads × ${dh} = ${KV * dh} numbers`), note);
  assert.ok(note.includes(`${(bytes / 1024).toFixed(1)} KB`), note);
  assert.deepEqual(problems, []);
});
