// Big models in a tab (issue 20): a bert-large-shaped folder (24 × 16 heads, hidden 1024, random
// F16 weights, 640 MB) written at test time loads from the page's local-folder input with the
// weight precision on 'auto' — which picks f16, as its f32 weights would take 1.3 GB — runs a
// short sentence, draws all 24 × 16 heads and reports the memory used; its attention equals the
// in-thread API's on the same folder. The precision choice reloads the model and lives in the
// permalink (wp=). A folder whose config.json declares a model too big for wasm32 is refused
// with E_TOO_LARGE without model.safetensors being read, and the model in use stays.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadModel } from '../../js/index.js';
import { AUTO_F16_ABOVE_BYTES, estimateMemory } from '../../js/memory-estimate.js';
import { guardedPage, launchBrowser, startServer, waitForRuns, writeBertFixture } from './helpers.js';
import { BERT_LARGE, writeBertLargeFolder } from './helpers/bert-large-folder.js';

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
    await page.waitForFunction(() => {
      const c = document.querySelector('canvas.model-grid');
      return c && Number(c.dataset.rendered) === Number(c.dataset.layers) * Number(c.dataset.heads);
    }, null, { timeout: 30000 });
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

test('the precision choice reloads the model in use and is kept in the permalink', async () => {
  const { page, context, problems } = await guardedPage(browser, server.origin);
  try {
    await page.goto(`${server.origin}/?wp=f16`);
    await waitForRuns(page, 1);
    assert.equal(await page.locator('#precision-select').inputValue(), 'f16');
    assert.equal((await page.evaluate(() => window.__attnscope.info)).weightPrecision, 'f16');
    // The choice's title states the auto threshold from js/memory-estimate.js's one constant.
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
