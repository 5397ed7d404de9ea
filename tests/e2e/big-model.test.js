// Big models in a tab: a bert-large-shaped folder (24 × 16 heads, hidden 1024, random
// F16 weights, 640 MB) written at test time loads from the page's local-folder input with the
// weight precision on 'auto' — which picks f16, as its f32 weights would take 1.3 GB — runs a
// short sentence, draws all 24 × 16 heads and reports the memory used; its attention equals the
// in-thread API's on the same folder. The precision choice reloads the model and lives in the
// permalink (wp=). A folder whose config.json declares a model too big for wasm32 is refused
// with E_TOO_LARGE without model.safetensors being read, and the model in use stays.
// A TinyLlama-shaped folder (32 heads over 4 key/value heads, narrow) run on a text long enough
// that its maps are kept on demand stays in the worker: the page holds no map whole, and the
// grid, the head view and the formula draw the heads fetched one job at a time, equal to an eager
// run's maps of the same model; views needing every map at once say they are not offered.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadModel } from '../../js/index.js';
import { AUTO_F16_ABOVE_BYTES, estimateMemory } from '../../js/api/memory-estimate.js';
import { guardedPage, launchBrowser, startServer, waitForRuns, writeBertFixture } from './helpers.js';
import { BERT_LARGE, writeBertLargeFolder } from './helpers/bert-large-folder.js';
import { writeTinyLlamaFolder } from './helpers/tinyllama-folder.js';

const SENTENCE = 'the cat sat on the mat.';
let server, browser, tmp, large;

before(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'attnscope-big-'));
  const started = Date.now();
  large = writeBertLargeFolder(join(tmp, 'bert-large'));
  console.log(`# bert-large-shaped folder: ${large.parameters} parameters, ${(large.bytes / 1048576).toFixed(0)} MB F16 safetensors, written in ${Date.now() - started} ms`);
  server = await startServer();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

/** Picks a folder through the page's local-folder input; resolves when its first run is done. */
async function loadFolder(page, dir) {
  const runs = await page.evaluate(() => window.__attnscope.runsDone);
  await page.locator('#model-select').selectOption('__local');
  const started = Date.now();
  await page.locator('#folder-input').setInputFiles(dir);
  await page.waitForFunction((r) => window.__attnscope.runsDone > r && window.__attnscope.info?.source === 'files' &&
    document.body.dataset.status === 'ready', runs, { timeout: 60000 });
  return Date.now() - started;
}

test('a bert-large-shaped folder loads at f16 (auto), runs, draws 24 × 16 heads and shows its memory', async () => {
  const { page, context, problems } = await guardedPage(browser, server.origin);
  try {
    await page.goto(`${server.origin}/?text=${encodeURIComponent(SENTENCE)}`);
    await waitForRuns(page, 1);
    assert.equal(await page.locator('#precision-select').inputValue(), 'auto');
    const ms = await loadFolder(page, large.dir);
    const info = await page.evaluate(() => window.__attnscope.info);
    const { layers, heads, hidden } = BERT_LARGE;
    assert.equal(info.weightPrecision, 'f16', 'auto did not choose f16 for 1.3 GB of f32 weights');
    assert.deepEqual([info.config.numLayers, info.config.numHeads, info.config.hiddenSize], [layers, heads, hidden]);
    const estimate = estimateMemory(info.config, 'f16');
    console.log(`# Chromium: loaded in ${ms} ms (first run included; the page's own loadMs ${info.loadMs} ms); ` +
      `model ${(info.memoryBytes / 1048576).toFixed(1)} MB of wasm memory (estimate ${(estimate.weights / 1048576).toFixed(1)} MB ` +
      `of f16 weights), worker wasm memory ${(info.wasmMemoryBytes / 1048576).toFixed(1)} MB after the load`);
    // The weights as f16 (2 bytes × 334 M parameters) plus the tokenizer: within 2% of the estimate,
    // and half of what f32 would take.
    assert.ok(Math.abs(info.memoryBytes - estimate.weights) < 0.02 * estimate.weights, `${info.memoryBytes} vs ${estimate.weights}`);
    assert.ok(info.memoryBytes < 0.52 * estimateMemory(info.config, 'f32').weights);

    // The run: shape, and the grid with every head drawn.
    const shape = await page.evaluate(() => window.__attnscope.shape);
    const tokens = await page.evaluate(() => window.__attnscope.tokens);
    assert.deepEqual(tokens, ['[CLS]', 'the', 'cat', 'sat', 'on', 'the', 'mat', '.', '[SEP]']);
    assert.deepEqual(shape, [layers, heads, tokens.length, tokens.length]);
    // The bundled model's grid stays up until the frame after the folder's run: wait for this one's.
    await page.waitForFunction(([L, H]) => {
      const c = document.querySelector('canvas.model-grid');
      return c && Number(c.dataset.layers) === L && Number(c.dataset.heads) === H && Number(c.dataset.rendered) === L * H;
    }, [layers, heads], { timeout: 30000 });
    assert.deepEqual(await page.evaluate(() => {
      const c = document.querySelector('canvas.model-grid');
      return [Number(c.dataset.layers), Number(c.dataset.heads)];
    }), [layers, heads]);

    // The status line says the precision and the memory.
    const line = await page.locator('#model-info').textContent();
    assert.match(line, new RegExp(`${layers} layers × ${heads} heads, hidden ${hidden}`));
    const shown = Number(/f16 weights, (\d+) MB/.exec(line)?.[1]);
    assert.equal(shown, Math.round(info.memoryBytes / 1048576), line);

    // The page's attention is the API's on the same folder (in this thread, also f16).
    const model = await loadModel(large.dir, { weightPrecision: 'f16' });
    try {
      const r = await model.run(SENTENCE);
      for (const [l, h] of [[0, 0], [11, 7], [23, 15]]) {
        const mine = await page.evaluate(([a, b]) => window.__attnscope.raw(a, b), [l, h]);
        const theirs = r.attention(l, h);
        const worst = Math.max(...mine.map((v, i) => Math.abs(v - theirs[i])));
        assert.ok(worst <= 1e-5, `layer ${l} head ${h}: ${worst}`);
      }
      // Random but not uniform: the heads attend differently.
      const row = r.attention(23, 15).subarray(0, tokens.length);
      assert.ok(Math.max(...row) - Math.min(...row) > 0.01);
    } finally {
      model.dispose();
    }
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('a TinyLlama-shaped run whose maps stay in the worker: grid, head view and formula equal an eager run', async () => {
  const started = Date.now();
  const tiny = writeTinyLlamaFolder(join(tmp, 'tinyllama-shaped'), { layers: 8 });
  // 533 tokens: 8 · 32 · 533² floats (277 MB) are more than the engine keeps eagerly ('auto').
  const text = 'The cat sat on the mat because it was tired. '.repeat(38);
  const { page, context, problems } = await guardedPage(browser, server.origin);
  const model = await loadModel(tiny.dir);
  try {
    const eager = await model.run(text, { maps: 'eager' });
    const [L, H, T] = eager.shape;
    assert.equal(eager.mapsOnDemand, false);
    await page.goto(`${server.origin}/?view=grid&text=${encodeURIComponent(text)}`);
    await waitForRuns(page, 1);
    await loadFolder(page, tiny.dir);
    assert.deepEqual(await page.evaluate(() => window.__attnscope.shape), [L, H, T, T]);
    // The page holds no map whole: the run's maps (their sources, a tenth of the maps) are in the worker.
    const maps = await page.evaluate(() => window.__attnscope.maps);
    assert.equal(maps.inWorker, true);
    assert.ok(maps.memoryBytes > 0 && maps.memoryBytes < 0.25 * L * H * T * T * 4, `${maps.memoryBytes}`);
    const worst = (a, b) => a.reduce((w, v, i) => Math.max(w, Math.abs(v - b[i])), 0);
    const lastRow = (l, h) => eager.attention(l, h).subarray((T - 1) * T, T * T);

    // The grid: every head drawn, each from the map the engine computes eagerly.
    // The bundled model's grid stays up until the frame after the folder's run: wait for this one's.
    await page.waitForFunction(([L, H]) => {
      const c = document.querySelector('canvas.model-grid');
      return c && Number(c.dataset.layers) === L && Number(c.dataset.heads) === H && Number(c.dataset.rendered) === L * H;
    }, [L, H], { timeout: 60000 });
    const rows = await page.evaluate(() => window.__attnscope.gridLastRows());
    assert.equal(rows.length, L * H);
    for (let k = 0; k < L * H; k++) {
      const l = Math.floor(k / H), h = k % H;
      assert.ok(worst(rows[k], lastRow(l, h)) <= 1e-6, `grid, layer ${l} head ${h}: ${worst(rows[k], lastRow(l, h))}`);
    }

    // The head view opens from the grid (a click on the last layer's head 30) with that head's whole matrix.
    const [l, h] = [L - 1, H - 2];
    await page.locator('canvas.model-grid').evaluate((c, [l, h]) => {
      const H = Number(c.dataset.heads), L = Number(c.dataset.layers), w = c.clientWidth;
      const s = (w - 26) / H - 6, top = c.clientHeight - L * (s + 6);
      const r = c.getBoundingClientRect();
      c.dispatchEvent(new MouseEvent('click', { bubbles: true, clientX: r.left + 26 + h * (s + 6) + s / 2,
        clientY: r.top + top + l * (s + 6) + s / 2 }));
    }, [l, h]);
    await page.waitForFunction(([l, h]) => {
      const s = window.__attnscope.state;
      return s.view === 'head' && s.layer === l && s.head === h && document.querySelector('.view-head canvas');
    }, [l, h], { timeout: 30000 });
    const shown = await page.evaluate(([l, h]) => window.__attnscope.shown(l, h), [l, h]);
    assert.ok(worst(shown, eager.attention(l, h)) <= 1e-6, `head view: ${worst(shown, eager.attention(l, h))}`);

    // The formula: the query's row as the engine gave it, and the formula's own softmax of q·k.
    await page.locator('[role=tab][data-view="formula"]').click();
    await page.waitForFunction(([l, h]) => window.__attnscope.formula?.layer === l && window.__attnscope.formula?.head === h, [l, h],
      { timeout: 30000 });
    const f = await page.evaluate(() => window.__attnscope.formula);
    const row = eager.attention(l, h).subarray(f.query * T, (f.query + 1) * T);
    assert.ok(worst(f.engineRow, row) <= 1e-6, `formula row: ${worst(f.engineRow, row)}`);
    assert.ok(f.maxError <= 1e-4, `formula vs engine: ${f.maxError}`);

    // A view needing every map at once says so, in English and Korean.
    await page.locator('[role=tab][data-view="aggregates"]').click();
    await page.waitForSelector('.view-aggregates .maps-note');
    assert.match(await page.locator('.view-aggregates .maps-note').textContent(), /not offered at this size/);
    await page.locator('[data-lang="ko"]').click();
    // The view's note is re-worded on the frame after the switch.
    await page.locator('.view-aggregates .maps-note', { hasText: '이 크기에서는 제공하지 않습니다' }).waitFor();
    assert.match(await page.locator('.view-aggregates .maps-note').textContent(), /이 크기에서는 제공하지 않습니다/);
    // So does a frozen figure, which holds every map.
    await page.locator('[role=tab][data-view="grid"]').click();
    await page.locator('#save-figure').click();
    assert.match(await page.locator('#run-status').textContent(), /그림 데이터에는 모든 어텐션 맵이 들어가는데.*제공하지 않습니다/);
    assert.deepEqual(problems, []);
    console.log(`# TinyLlama-shaped (${L} × ${H} heads, T ${T}): maps in the worker ${(maps.memoryBytes / 1048576).toFixed(1)} MB ` +
      `(eager ${(L * H * T * T * 4 / 1048576).toFixed(0)} MB); case ${Date.now() - started} ms`);
  } finally {
    model.dispose();
    await context.close();
  }
});

test('the precision choice reloads the model in use and is kept in the permalink', async () => {
  const { page, context, problems } = await guardedPage(browser, server.origin);
  try {
    await page.goto(`${server.origin}/?wp=f16`);
    await waitForRuns(page, 1);
    assert.equal(await page.locator('#precision-select').inputValue(), 'f16');
    assert.equal((await page.evaluate(() => window.__attnscope.info)).weightPrecision, 'f16');
    // The choice's title states the auto threshold from js/api/memory-estimate.js's one constant.
    const autoMb = AUTO_F16_ABOVE_BYTES / 1024 ** 2;
    assert.match(await page.locator('#precision-select').getAttribute('title'), new RegExp(`more than ${autoMb} MB`));
    const f16Bytes = (await page.evaluate(() => window.__attnscope.info)).memoryBytes;
    // f32: the bundled model is reloaded at once, with more memory; the URL says so.
    await page.locator('#precision-select').selectOption('f32');
    await page.waitForFunction(() => window.__attnscope.info?.weightPrecision === 'f32' && document.body.dataset.status === 'ready');
    assert.match(page.url(), /[?&]wp=f32/);
    const info = await page.evaluate(() => window.__attnscope.info);
    assert.ok(info.memoryBytes > 1.5 * f16Bytes, `${info.memoryBytes} vs ${f16Bytes}`);
    assert.match(await page.locator('#model-info').textContent(), /f32 weights, \d+ MB/);
    // auto is the default and leaves no trace in the link.
    await page.locator('#precision-select').selectOption('auto');
    await page.waitForFunction(() => window.__attnscope.state.weightPrecision === 'auto' && document.body.dataset.status === 'ready');
    assert.doesNotMatch(page.url(), /wp=/);
    // Korean: the label and the auto option are translated.
    await page.locator('[data-lang="ko"]').click();
    assert.equal(await page.locator('#precision-select option[value="auto"]').textContent(), '자동');
    assert.match(await page.locator('#precision-select').getAttribute('title'), new RegExp(`f32 가중치가 ${autoMb} MB를 넘으면`));
    assert.match(await page.locator('#model-info').textContent(), /가중치, \d+ MB/);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('a model too big for wasm32 is refused with E_TOO_LARGE before its weights are read; the model stays', async () => {
  const { page, context, problems } = await guardedPage(browser, server.origin);
  try {
    await page.goto(`${server.origin}/?wp=f32`);
    await waitForRuns(page, 1);
    // A real tiny folder whose config.json declares 48 layers × 4096 (19 GB even as f16), and one
    // of ~1 G parameters that fits only as f16 (the page then suggests f16).
    for (const [name, config, hint] of [
      ['giant', { hidden_size: 4096, num_hidden_layers: 48, num_attention_heads: 32, intermediate_size: 16384 }, false],
      ['billion', { hidden_size: 1600, num_hidden_layers: 32, num_attention_heads: 16, intermediate_size: 6400 }, true],
    ]) {
      const dir = join(tmp, name);
      writeBertFixture(dir, { layers: 1, heads: 1, hidden: 8, intermediate: 8, maxPositions: 8 });
      writeFileSync(join(dir, 'config.json'), JSON.stringify({ model_type: 'bert', vocab_size: 30522,
        max_position_embeddings: 512, type_vocab_size: 2, ...config }));
      // A model.safetensors that cannot be read: reading it would fail with a different code.
      writeFileSync(join(dir, 'model.safetensors'), 'not a safetensors file');
      await page.locator('#model-select').selectOption('__local');
      await page.locator('#folder-input').setInputFiles(dir);
      await page.locator('#model-error').waitFor({ state: 'visible' });
      const message = await page.locator('#model-error').textContent();
      assert.match(message, /E_TOO_LARGE/);
      assert.match(message, /needs about \d+\.\d\d GB .*4 GB/);
      if (hint) {   // the page's advice and the engine's own message both name f16
        assert.match(message, /Choose f16 weights/);
        assert.match(message, /weightPrecision 'f16'/);
      }
      else assert.match(message, /even with f16/);
      assert.equal((await page.evaluate(() => window.__attnscope.info)).source, 'bundled');
    }
    // The page still runs with the kept model.
    const runs = await page.evaluate(() => window.__attnscope.runsDone);
    await page.locator('#text-a').fill('a big red tree');
    await waitForRuns(page, runs + 1);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
