// An encoder–decoder folder in the page: tests/fixtures/seq2seq_page (a tiny random T5,
// a WordPiece tokenizer.json in the bundled seq2seq model's layout, a heldout.jsonl) opened through
// the folder input. Checked against what the test computes itself: the tokens (Hugging Face's Rust
// tokenizers), every attention kind against the Node API's run of the same folder, the causal
// mask of the decoder's self-attention, the head table's alignment accuracy (an argmax loop here
// over the API's cross-attentions), the greedy target against the API's generate. Also: ?view=cross
// restores the view, layer and head; views that cannot apply say why; generation streams and Stop
// keeps what was written without touching the typed target; the Block tab walks a decoder layer
// (its cross weights the API's); a phone-width page does not overflow;
// the console stays clean.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Tokenizer } from 'tokenizers';

import { guardedPage, launchBrowser, startServer, waitForRuns } from './helpers.js';
import { loadModel } from '../../js/index.js';

const FOLDER = fileURLToPath(new URL('../fixtures/seq2seq_page', import.meta.url));
const config = JSON.parse(readFileSync(`${FOLDER}/config.json`, 'utf8'));
const pairs = readFileSync(`${FOLDER}/heldout.jsonl`, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
const [PAIR] = pairs;
const L = config.num_layers, H = config.num_heads;

let server, browser, page, problems, api, rust;
const hook = (fn, arg) => page.evaluate(fn, arg);

async function openFolder(p) {
  const runs = await p.evaluate(() => window.__attnscope.runsDone);
  await p.locator('#model-select').selectOption('__local');
  await p.locator('#folder-input').setInputFiles(FOLDER);
  await p.waitForFunction((r) => window.__attnscope.runsDone > r && window.__attnscope.info?.kind === 'encoder-decoder', runs, { timeout: 60000 })
    .catch(async (e) => {   // say where the load stood
      const at = await p.evaluate(() => ({ runsDone: window.__attnscope.runsDone, status: document.body.dataset.status,
        kind: window.__attnscope.info?.kind, progress: document.querySelector('#progress-row').hidden ? null : document.querySelector('#progress-text').textContent,
        error: document.querySelector('#model-error').textContent }));
      throw new Error(`${e.message} (runs before ${runs}; now ${JSON.stringify(at)})`);
    });
  await waitForRuns(p, runs + 1);
}

async function typeIn(selector, text) {
  const runs = await hook(() => window.__attnscope.runsDone);
  await page.locator(selector).fill(text);
  await page.waitForFunction((n) => window.__attnscope.runsDone > n && document.body.dataset.status === 'ready', runs);
}

const maxDiff = (a, b) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);

before(async () => {
  rust = Tokenizer.fromFile(`${FOLDER}/tokenizer.json`);
  api = await loadModel(FOLDER, { threads: 1 });
  server = await startServer();
  browser = await launchBrowser();
  ({ page, problems } = await guardedPage(browser, server.origin));
  await page.goto(server.origin + '/');
  await waitForRuns(page, 1);
  await openFolder(page);
  await typeIn('#text-a', PAIR.source);
  await typeIn('#target-text', PAIR.target);
});

after(async () => {
  api?.dispose();
  await browser?.close();
  await server?.close();
});

test('source and target as the Rust tokenizer splits them; the three kinds drawn, each equal to the API\'s', async () => {
  const s = await hook(() => window.__attnscope.seq2seq);
  assert.deepEqual(s.sourceTokens, (await rust.encode(PAIR.source)).getTokens());
  assert.deepEqual(s.targetTokens, ['<pad>', ...(await rust.encode(PAIR.target)).getTokens()]);
  const S = s.sourceTokens.length, T = s.targetTokens.length;
  const ref = await api.run(PAIR.source, { target: PAIR.target });
  const slice = (data, shape, l, h) => Array.from(data.subarray((l * shape[1] + h) * shape[2] * shape[3], (l * shape[1] + h + 1) * shape[2] * shape[3]));
  for (const [kind, shape, data] of [['enc', [L, H, S, S], ref.encoderAttentions], ['dec', [L, H, T, T], ref.decoderAttentions]]) {
    await page.locator(`#kind-switch [data-kind="${kind}"]`).click();
    await page.waitForFunction((k) => window.__attnscope.state.kind === k && Number(document.querySelector('canvas.model-grid')?.dataset.rendered) === Number(document.querySelector('canvas.model-grid')?.dataset.layers) * Number(document.querySelector('canvas.model-grid')?.dataset.heads), kind);
    assert.deepEqual(await hook(() => window.__attnscope.shape), shape);
    assert.equal(await hook(() => window.__attnscope.causal), kind === 'dec');
    const page1 = await hook(([l, h]) => window.__attnscope.raw(l, h), [1, 2]);
    // The page runs the relaxed-SIMD build (fused multiply-add), the API here the plain one: equal
    // to rounding, well inside the engine's 1e-4 against PyTorch.
    const d = maxDiff(page1, slice(data, shape, 1, 2));
    assert.ok(d < 1e-5, `${kind}: ${d}`);
    if (kind === 'dec') {   // causal: nothing above the diagonal
      for (let i = 0; i < T; i++) for (let j = i + 1; j < T; j++) assert.equal(page1[i * T + j], 0);
    }
    // The switch's note is redrawn on the frame after the click (the grid waited for may be the last kind's).
    const note = kind === 'enc' ? /source token/ : /earlier target/;
    await page.locator('#kind-switch .kind-note', { hasText: note }).waitFor();
    assert.match(await page.locator('#kind-switch .kind-note').textContent(), note);
  }
  await page.locator('#kind-switch [data-kind="cross"]').click();
  await page.waitForFunction(() => document.querySelector('canvas.cross-grid')?.dataset.rendered);
  const grid = await page.locator('canvas.cross-grid').evaluate((c) => ({ ...c.dataset }));
  assert.deepEqual([grid.layers, grid.heads, grid.rows, grid.cols].map(Number), [L, H, T, S]);
  const cross = await hook(([l, h]) => window.__attnscope.cross(l, h), [0, 3]);
  assert.ok(maxDiff(cross, slice(ref.crossAttentions, [L, H, T, S], 0, 3)) < 1e-5);
});

test('the cross view: heatmap source × target, lines, known alignment; ?view=cross restores layer and head', async () => {
  await page.locator('[role=tab][data-view="cross"]').click();
  await page.waitForFunction(() => document.querySelector('.view-cross [data-ready="1"], .view-cross[data-ready="1"]') || document.querySelector('.view-cross .cross-lines line'));
  assert.match(await hook(() => location.search), /view=cross/);
  const s = await hook(() => window.__attnscope.seq2seq);
  const S = s.sourceTokens.length, T = s.targetTokens.length;
  const map = await page.locator('.view-cross .heatmap-overlay').evaluate((c) => ({ ...c.dataset }));
  assert.deepEqual([Number(map.n), Number(map.cols), Number(map.aligned)], [T, S, PAIR.alignment.length]);
  const lines = await page.locator('.view-cross .cross-lines line.weight').count();
  assert.ok(lines >= T, `${lines} lines`);
  assert.equal(await page.locator('.view-cross .cross-lines line.aligned').count(), PAIR.alignment.length);
  assert.match(await page.locator('.view-cross .cross-caption').textContent(), /each row is the decoder writing one target token/);
  // The toggle takes the overlay off.
  await page.locator('.view-cross .cross-align input').uncheck();
  await page.waitForFunction(() => document.querySelector('.view-cross .heatmap-overlay').dataset.aligned === '0');
  await page.locator('.view-cross .cross-align input').check();
  // The page's exports take the cross view as it is drawn.
  for (const [button, extension] of [['#export-png', /\.png$/], ['#export-svg', /\.svg$/]]) {
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator(button).click()]);
    assert.match(download.suggestedFilename(), extension);
  }

  // A permalink to the cross view of layer 1, head 2: the same page opens there once the folder is in.
  const { page: p2, context, problems: p2problems } = await guardedPage(browser, server.origin);
  const search = new URLSearchParams({ view: 'cross', layer: '1', head: '2', text: PAIR.source, tgt: PAIR.target });
  await p2.goto(`${server.origin}/?${search}`);
  await waitForRuns(p2, 1);
  await openFolder(p2);
  await p2.waitForFunction(() => document.querySelector('.view-cross .heatmap-overlay')?.dataset.n);
  const st = await p2.evaluate(() => window.__attnscope.state);
  assert.deepEqual([st.view, st.kind, st.layer, st.head], ['cross', 'cross', 1, 2]);
  assert.equal(await p2.locator('[role=tab][data-view="cross"]').getAttribute('aria-selected'), 'true');
  assert.equal(await p2.locator('.view-cross .head-picker select').inputValue(), '2');
  assert.deepEqual(p2problems, []);
  await context.close();
});

test('head table: each cross head\'s alignment accuracy, the layer means and the diagonal, as computed here', async () => {
  await page.locator('[role=tab][data-view="heads"]').click();
  await page.waitForFunction(() => document.querySelector('table.cross-heads:not([hidden]) tr[data-kind="diagonal"]'));
  const ref = await api.run(PAIR.source, { target: PAIR.target });
  const [, , T, S] = ref.crossShape;
  const argmax = (row) => row.reduce((best, x, j) => (x > row[best] ? j : best), 0);
  const rowOf = (l, h, i) => Array.from(ref.crossAttentions.subarray(((l * H + h) * T + i) * S, ((l * H + h) * T + i + 1) * S));
  const n = PAIR.alignment.length;
  const expected = [];
  for (let l = 0; l < L; l++) for (let h = 0; h < H; h++) expected.push(PAIR.alignment.filter((a, i) => argmax(rowOf(l, h, i)) === a).length / n);
  const diagonal = PAIR.alignment.filter((a, i) => Math.min(i, S - 1) === a).length / n;
  const got = (await hook(() => window.__attnscope.seq2seq)).alignment;
  assert.deepEqual(got.heads.map((x) => x.toFixed(9)), expected.map((x) => x.toFixed(9)));
  assert.equal(got.diagonal, diagonal);
  // The table shows them: one row per head, best first, then the layer means, all, diagonal.
  const rows = await page.locator('table.cross-heads tr').evaluateAll((trs) => trs.slice(1).map((tr) => [tr.dataset.kind, tr.cells[1].textContent]));
  assert.equal(rows.filter(([k]) => k === 'head').length, L * H);
  assert.deepEqual(rows.slice(-1)[0], ['diagonal', `${(100 * diagonal).toFixed(1)}%`]);
  const shown = rows.filter(([k]) => k === 'head').map(([, v]) => parseFloat(v));
  assert.deepEqual(shown, [...expected].sort((a, b) => b - a).map((x) => Number((100 * x).toFixed(1))));
});

test('views that cannot apply are not offered, and say why when linked to', async () => {
  for (const view of ['formula', 'aggregates', 'positions', 'layers', 'contributions', 'map', 'diff']) {
    assert.equal(await page.locator(`[role=tab][data-view="${view}"]`).isHidden(), true, view);
  }
  for (const view of ['grid', 'head', 'lines', 'cross', 'heads', 'block']) assert.equal(await page.locator(`[role=tab][data-view="${view}"]`).isVisible(), true, view);
  await hook(() => window.history.replaceState(null, '', location.pathname));
  await page.evaluate(() => document.querySelector('[role=tab][data-view="formula"]').click());
  await page.waitForFunction(() => document.querySelector('.view-formula .view-unavailable')?.textContent);
  assert.match(await page.locator('.view-formula .view-unavailable').textContent(), /encoder–decoder/);
  await page.locator('[role=tab][data-view="cross"]').click();
});

test('Block walks the folder\'s decoder layer: the cross weights are the run\'s, every Add & Norm check ≤ 1e-4', async () => {
  await page.locator('[role=tab][data-view="block"]').click();
  const block = await page.waitForFunction(() => window.__attnscope.block?.family === 'seq2seq' && window.__attnscope.block,
    null, { timeout: 60000 }).then((h) => h.jsonValue());
  const ref = await api.run(PAIR.source, { target: PAIR.target });
  const [, , T, S] = ref.crossShape;
  assert.deepEqual(block.targetIds, Array.from(ref.targetIds));
  for (let h = 0; h < H; h++) {
    const at = ((block.layer * H + h) * T + block.token) * S;
    const d = maxDiff(block.crossWeights[h], Array.from(ref.crossAttentions.subarray(at, at + S)));
    assert.ok(d < 1e-5, `head ${h}: ${d}`);
  }
  assert.ok(block.checks.length >= 7 && block.allChecks.every((c) => c.maxDiff <= 1e-4), JSON.stringify(block.allChecks));
  await page.locator('[role=tab][data-view="cross"]').click();
});

test('Generate writes the greedy target token by token; Stop keeps what was written; the typed target stays', async () => {
  const greedy = await api.generate(PAIR.source, { maxNewTokens: 20, temperature: 0 });
  const full = Array.from(greedy.ids).slice(1);
  await page.locator('#gen-target').click();
  // Streamed: the line grows while the generation is running.
  const seen = new Set();
  await page.waitForFunction(() => document.body.dataset.generating === undefined || document.querySelector('.gen-stream').textContent.split(' ').length > 3);
  for (let k = 0; k < 40 && (await hook(() => document.body.dataset.generating !== undefined)); k++) {
    seen.add(await page.locator('.gen-stream').textContent());
    await page.waitForTimeout(25);
  }
  await page.waitForFunction(() => document.body.dataset.generating === undefined && document.body.dataset.status === 'ready');
  assert.ok(seen.size >= 3, `${seen.size} different stream texts`);
  let s = await hook(() => window.__attnscope.seq2seq);
  assert.deepEqual(s.generated.targetIds, full.slice(0, 20));
  assert.deepEqual(s.targetTokens.slice(1), greedy.tokens.slice(1));
  assert.equal(await page.locator('#target-text').inputValue(), PAIR.target);
  assert.equal(s.alignment, null);   // a generated target is not the held-out pair

  // Stop after a few tokens: what was shown is kept as the target.
  await page.locator('#gen-target').click();
  await page.waitForFunction(() => document.querySelector('.gen-stream').textContent.split(' ').length >= 4);
  await page.locator('#stop-target').click();
  await page.waitForFunction(() => document.body.dataset.generating === undefined && document.body.dataset.status === 'ready');
  s = await hook(() => window.__attnscope.seq2seq);
  assert.ok(s.generated.targetIds.length >= 2 && s.generated.targetIds.length < full.length, `${s.generated.targetIds.length} of ${full.length}`);
  assert.deepEqual(s.generated.targetIds, full.slice(0, s.generated.targetIds.length));

  // Back to the typed target: its run, and its alignment, again.
  const runs = await hook(() => window.__attnscope.runsDone);
  await page.locator('#typed-target').click();
  await waitForRuns(page, runs + 1);
  s = await hook(() => window.__attnscope.seq2seq);
  assert.equal(s.generated, null);
  assert.equal(s.targetTokens.length, PAIR.alignment.length + 1);
  assert.ok(s.alignment);
});

test('phone width: the cross view fits, and the console stayed clean', async () => {
  const { page: phone, context, problems: phoneProblems } = await guardedPage(browser, server.origin, { width: 390, height: 844 });
  await phone.goto(`${server.origin}/?${new URLSearchParams({ view: 'cross', text: PAIR.source, tgt: PAIR.target })}`);
  await waitForRuns(phone, 1);
  await openFolder(phone);
  await phone.waitForFunction(() => document.querySelector('.view-cross .heatmap-overlay')?.dataset.n);
  const widths = await phone.evaluate(() => ({ page: document.documentElement.scrollWidth, view: document.querySelector('#view-host').scrollWidth }));
  assert.ok(widths.page <= 390, `page ${widths.page}px wide`);
  assert.ok(widths.view <= 390, `view ${widths.view}px wide`);
  assert.deepEqual(phoneProblems, []);
  await context.close();
  assert.deepEqual(problems, []);
});
