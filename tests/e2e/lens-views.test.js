// The logit lens on the page: the Layers view, the Contributions view (direct logit
// attribution) and the next-token panel's sampling preview, on the bundled decoder and BERT, at
// desktop and phone sizes, in English and Korean; their state in the permalink; a clean console.
// The numbers themselves are checked against a float64 PyTorch reference in tests/js/logit-lens.test.js
// and tests/cpp/test_logit_lens.cpp; here: the page draws what the engine returned.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { guardedPage, launchBrowser, startServer, waitForRuns } from './helpers.js';
import { sampleToken, seededRandom } from '../../js/analysis/sampling.js';
import { samplingPreview } from '../../web/src/views/sampling-preview.js';

const TEXT = 'The river bank was quiet and the water';
const SIZES = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } };
let server, browser;

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

async function open(query, viewport = SIZES.desktop) {
  const g = await guardedPage(browser, server.origin, viewport);
  await g.page.goto(`${server.origin}/?${query}`);
  await waitForRuns(g.page, 1);
  return g;
}
const hook = (page, name) => page.evaluate((n) => window.__attnscope[n], name);

// English at desktop size and Korean at phone size: language and width are independent here, and
// the other two pairings only add CI time.
for (const [size, lang] of [['desktop', 'en'], ['phone', 'ko']]) {
  const viewport = SIZES[size];
  {
    test(`Layers view, bundled decoder (${size}, ${lang}): every cell is the lens's top token; a click opens it and goes into the link`, async () => {
      const g = await open(`model=bundled-causal&view=layers&lang=${lang}&text=${encodeURIComponent(TEXT)}`, viewport);
      try {
        await g.page.waitForSelector('.lens-cell');
        const lens = await hook(g.page, 'logitLens');
        const [L, , T] = await hook(g.page, 'shape');
        assert.equal(lens.length, L + 1);
        const cells = await g.page.$$eval('.lens-cell', (bs) => bs.map((b) => ({ row: +b.dataset.row, p: +b.dataset.position, text: b.textContent, prob: +b.dataset.prob })));
        assert.equal(cells.length, (L + 1) * T);
        for (const c of cells) {
          assert.equal(c.text, lens[c.row][c.p].top[0].text);
          assert.equal(c.prob, lens[c.row][c.p].top[0].prob);
        }
        // The last row is the model's own next-token guess at each position (the next-token panel's).
        const next = await hook(g.page, 'nextByPosition');
        for (let p = 0; p < T; p++) assert.equal(lens[L][p].top[0].id, next[p].top[0].id);
        await g.page.locator('.lens-cell[data-row="3"][data-position="2"]').click();
        await g.page.waitForSelector('.lens-detail[data-row="3"][data-position="2"] h4');
        assert.equal(await g.page.locator('.lens-top li').count(), 5);
        const url = new URL(g.page.url());
        assert.equal(url.searchParams.get('lr'), '3');
        assert.equal(url.searchParams.get('q'), '2');
        // The permalink opens the same cell.
        const again = await open(url.search.slice(1), viewport);
        try {
          await again.page.waitForSelector('.lens-detail[data-row="3"][data-position="2"] h4');
          assert.deepEqual(again.problems, []);
        } finally {
          await again.context.close();
        }
        assert.deepEqual(g.problems, []);
      } finally {
        await g.context.close();
      }
    });
  }
}

test('Layers view, bundled BERT: the lens through the MLM head; its last row is the [MASK] prediction', async () => {
  const g = await open(`view=layers&text=${encodeURIComponent('The bank of the [MASK] was quiet.')}`);
  try {
    await g.page.waitForSelector('.lens-cell');
    const lens = await hook(g.page, 'logitLens');
    const [L, , T] = await hook(g.page, 'shape');
    assert.equal(await g.page.locator('.lens-cell').count(), (L + 1) * T);
    const [mask] = await hook(g.page, 'maskPredictions');
    assert.deepEqual(lens[L][mask.position].top.map((x) => x.id), mask.top.map((x) => x.id));
    // The same logits; the lens's softmax is the engine's (C++ exp), the prediction's JavaScript's.
    lens[L][mask.position].top.forEach((x, i) => assert.ok(Math.abs(x.prob - mask.top[i].prob) <= 1e-12 * mask.top[i].prob));
    assert.deepEqual(g.problems, []);
  } finally {
    await g.context.close();
  }
});

for (const lang of ['en', 'ko']) {
  test(`Contributions view (${lang}): heads and MLPs ranked by |part|, the parts add up to the logit, a head opens in the head view`, async () => {
    const g = await open(`model=bundled-causal&view=contributions&lang=${lang}&text=${encodeURIComponent(TEXT)}`);
    try {
      await g.page.waitForSelector('.contrib-list li');
      const a = await hook(g.page, 'attribution');
      const [L, H, T] = await hook(g.page, 'shape');
      assert.equal(a.position, T - 1);
      assert.equal(a.parts.length, 1 + L * (H + 2) + 1);
      assert.ok(Math.abs(a.parts.reduce((s, p) => s + p.value, 0) - a.logit) <= 1e-4);
      const next = await hook(g.page, 'nextByPosition');
      assert.equal(a.tokenId, next[T - 1].top[0].id);
      const rows = await g.page.$$eval('.contrib-list li', (lis) => lis.map((li) => ({ kind: li.dataset.kind, value: +li.dataset.value, layer: +li.dataset.layer, head: li.dataset.head })));
      assert.equal(rows.length, 16);
      for (let i = 1; i < rows.length; i++) assert.ok(Math.abs(rows[i - 1].value) >= Math.abs(rows[i].value));
      const ranked = a.parts.filter((p) => p.kind === 'head' || p.kind === 'mlp').sort((x, y) => Math.abs(y.value) - Math.abs(x.value));
      assert.deepEqual(rows.map((r) => r.value), ranked.slice(0, 16).map((p) => p.value));
      const head = rows.find((r) => r.kind === 'head');
      await g.page.locator(`.contrib-list li[data-kind="head"][data-layer="${head.layer}"][data-head="${head.head}"] .contrib-name`).click();
      await g.page.waitForFunction(() => window.__attnscope.state.view === 'head');
      const state = await hook(g.page, 'state');
      assert.deepEqual([state.layer, state.head], [head.layer, Number(head.head)]);
      assert.deepEqual(g.problems, []);
    } finally {
      await g.context.close();
    }
  });
}

test('Contributions view on an encoder says why there is none', async () => {
  const g = await open('view=contributions');
  try {
    await g.page.waitForSelector('.contrib-main .note');
    assert.equal(await g.page.locator('.contrib-list').count(), 0);
    assert.deepEqual(g.problems, []);
  } finally {
    await g.context.close();
  }
});

test('sampling preview: temperature, top-k and top-p cut what sampleToken can draw; settings in the link', async () => {
  const g = await open(`model=bundled-causal&gt=0.7&gk=8&gp=0.9&text=${encodeURIComponent(TEXT)}`);
  try {
    await g.page.waitForSelector('.sampling-list li');
    const kept = async () => Number(await g.page.locator('.sampling').getAttribute('data-kept'));
    const k0 = await kept();
    assert.ok(k0 >= 1 && k0 <= 8);
    await g.page.fill('#sampling-topk', '3');
    await g.page.locator('#sampling-topk').dispatchEvent('change');
    await g.page.waitForFunction(() => new URL(location.href).searchParams.get('gk') === '3');
    // The URL is written at once, the preview redrawn on the next frame.
    await g.page.waitForFunction(() => Number(document.querySelector('.sampling').dataset.kept) <= 3);
    // So is the Generate panel's field; the preview may have kept ≤ 3 before the change already.
    await g.page.waitForFunction(() => document.getElementById('gen-topk').value === '3');
    assert.equal(await g.page.locator('#gen-topk').inputValue(), '3');   // the Generate panel's setting
    await g.page.fill('#sampling-temperature', '0');
    await g.page.locator('#sampling-temperature').dispatchEvent('change');
    await g.page.waitForFunction(() => document.querySelector('.sampling').dataset.kept === '1');
    assert.equal(await g.page.locator('.sampling-list li.is-cut').count(), 9);
    assert.deepEqual(g.problems, []);
  } finally {
    await g.context.close();
  }
});

test('samplingPreview keeps exactly the tokens sampleToken draws, with its probabilities', () => {
  const random = seededRandom(11);
  const logits = Float32Array.from({ length: 40 }, () => (random() - 0.5) * 8);
  const order = Array.from(logits.keys()).sort((a, b) => logits[b] - logits[a] || a - b);
  const max = logits[order[0]];
  const z = order.reduce((s, id) => s + Math.exp(logits[id] - max), 0);
  const entries = order.map((id) => ({ id, text: String(id), prob: Math.exp(logits[id] - max) / z }));
  for (const settings of [{ temperature: 0.7, topK: 8, topP: 0.9 }, { temperature: 1.5, topK: 0, topP: 0.5 }, { temperature: 1, topK: 5, topP: 1 }]) {
    const preview = samplingPreview(entries, settings);
    const counts = new Map();
    const draw = seededRandom(5);
    const n = 20000;
    for (let i = 0; i < n; i++) {
      const id = sampleToken(logits, settings, draw);
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    assert.deepEqual([...counts.keys()].sort((a, b) => a - b), order.slice(0, preview.kept).sort((a, b) => a - b), JSON.stringify(settings));
    for (const row of preview.rows) assert.ok(Math.abs((counts.get(row.id) ?? 0) / n - row.final) < 0.015, JSON.stringify({ settings, row }));
  }
});

test('KV cache strip: one key and one value row per layer for every position the cache holds', async () => {
  const g = await open(`model=bundled-causal&gn=6&gt=0&text=${encodeURIComponent('The river')}`);
  try {
    await g.page.click('#gen-start');
    await g.page.waitForFunction(() => window.__attnscope.generation?.done && !document.body.dataset.generating, null, { timeout: 30000 });
    const gen = await hook(g.page, 'generation');
    const keys = Number(await g.page.locator('.kv-cache').getAttribute('data-keys'));
    // Each step runs its new token over the cache at once (its attention row), adding its key and value.
    assert.equal(keys, gen.promptLength + gen.steps.length);
    const { numLayers: L, hiddenSize: C } = (await hook(g.page, 'info')).config;
    const box = await g.page.locator('.kv-canvas').boundingBox();
    assert.equal(Math.round(box.width), keys * 5);
    assert.match(await g.page.locator('.kv-note').textContent(), new RegExp(`${(2 * L * keys * C * 4 / 1024).toFixed(1)} KB`));
    assert.deepEqual(g.problems, []);
  } finally {
    await g.context.close();
  }
});

test('Contributions with a head switched off (off=7:3 in the link): that head adds nothing', async () => {
  const g = await open(`model=bundled-causal&view=contributions&off=7:3&text=${encodeURIComponent(TEXT)}`);
  try {
    // The heads-off run is shown as an edit; the views draw on the next frame.
    await g.page.waitForFunction(() => window.__attnscope.edit?.kind === 'heads' &&
      document.querySelector('.contrib-main')?.dataset.run === 'edited' && document.querySelectorAll('.contrib-list li').length > 0);
    const heads = await g.page.$$eval('.contrib-list li[data-kind="head"]', (lis) => lis.map((li) => `${li.dataset.layer}:${li.dataset.head}`));
    assert.ok(!heads.includes('7:3'), 'the switched-off head is still ranked');
    const original = await hook(g.page, 'attribution');   // the typed text's run, every head on
    const part = original.parts.find((p) => p.kind === 'head' && p.layer === 7 && p.head === 3);
    assert.notEqual(part.value, 0);
    assert.deepEqual(g.problems, []);
  } finally {
    await g.context.close();
  }
});

test('the lens budget never cuts the bundled models, and cuts gpt2-small at about a hundred tokens', async () => {
  const { lensMaxTokens } = await import('../../web/src/model/model-family.js');
  for (const dir of ['model', 'model-causal']) {
    const config = JSON.parse(readFileSync(new URL(`../../${dir}/config.json`, import.meta.url), 'utf8'));
    const L = config.num_hidden_layers ?? config.n_layer, V = config.vocab_size, C = config.hidden_size ?? config.n_embd;
    const positions = config.max_position_embeddings ?? config.n_positions;
    assert.ok(lensMaxTokens({ config: { numLayers: L, vocabSize: V, hiddenSize: C } }) >= positions, dir);
  }
  const gpt2 = lensMaxTokens({ config: { numLayers: 12, vocabSize: 50257, hiddenSize: 768 } });
  assert.ok(gpt2 >= 50 && gpt2 <= 200, String(gpt2));
});
