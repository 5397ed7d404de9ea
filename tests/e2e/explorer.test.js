// The explorer end to end in Chromium with the real engine (dist/ wasm, the bundled model and a
// random fixture model folder): typing re-runs, the model grid draws L×H row-stochastic heatmaps,
// a head opens with an exact tooltip, the formula's softmax equals the engine's row and an
// independent recomputation from q·k, specials hide with renormalised rows, rollout matches an
// independent product, masking/dropping re-runs, languages switch, permalinks restore and are
// inert, a local folder loads (and a broken one does not replace the model). Throughout: no
// console error, no uncaught error or rejection, no request outside the page's origin.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { guardedPage, launchBrowser, startServer, waitForRuns, writeBertFixture } from './helpers.js';

let server, browser, page, problems, tmp;
const wasmRequests = [];
const hook = (fn, arg) => page.evaluate(fn, arg);

before(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'attnscope-e2e-'));
  server = await startServer();
  browser = await launchBrowser();
  ({ page, problems } = await guardedPage(browser, server.origin));
  page.on('request', (request) => { if (request.url().endsWith('.wasm')) wasmRequests.push(new URL(request.url()).pathname); });
  await page.goto(server.origin + '/');
  await waitForRuns(page, 1);
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

function rowSums(m, n) {
  const sums = [];
  for (let i = 0; i < n; i++) { let s = 0; for (let j = 0; j < n; j++) s += m[i * n + j]; sums.push(s); }
  return sums;
}

async function typeText(text) {
  const before = await hook(() => window.__attnscope.runsDone);
  // Most of the text at once, then real key presses: each schedules a run; the debounce and
  // supersede keep only the last.
  const typed = Math.min(8, text.length);
  await page.locator('#text-a').fill(text.slice(0, text.length - typed));
  await page.locator('#text-a').pressSequentially(text.slice(text.length - typed), { delay: 15 });
  await page.waitForFunction(([b, t]) => window.__attnscope.runsDone > b && window.__attnscope.state.text === t &&
    document.body.dataset.status === 'ready', [before, text], { timeout: 30000 });
  // Settle: any run still in flight for an older text must not overwrite this one.
  await page.waitForTimeout(400);
  // The chips are redrawn on the frame after the run: wait for this run's (the tests read them).
  await page.waitForFunction(() => {
    const want = window.__attnscope.tokenTexts ?? window.__attnscope.tokens;
    return [...document.querySelectorAll('#chips .chip .chip-token')].map((c) => c.textContent).join('\n') === want.join('\n');
  });
}

test('Chromium runs the threaded relaxed-SIMD build (npm start is cross-origin isolated), and only that one is downloaded', () => {
  assert.deepEqual(wasmRequests, ['/dist/attnscope-mt-relaxed.wasm']);
});

test('typing re-runs; tokens are chips whose spans point into the text', async () => {
  const text = 'The bank of the river was quiet.';
  await typeText(text);
  const { tokens, offsets, special } = await hook(() => ({
    tokens: window.__attnscope.tokens, offsets: window.__attnscope.offsets,
    special: [...document.querySelectorAll('#chips .chip')].map((c) => c.classList.contains('special')),
  }));
  assert.equal(tokens[0], '[CLS]');
  assert.equal(tokens.at(-1), '[SEP]');
  assert.deepEqual(special, tokens.map((t) => t === '[CLS]' || t === '[SEP]'));
  const chips = await page.locator('#chips .chip .chip-token').allTextContents();
  assert.deepEqual(chips, tokens);
  // Each word piece's span, read back from the text, is that piece (lower-cased, no "##").
  for (let i = 1; i < tokens.length - 1; i++) {
    const span = text.slice(offsets[2 * i], offsets[2 * i + 1]).toLowerCase();
    assert.equal(span, tokens[i].replace(/^##/, ''), `token ${i}`);
  }
  // Hovering a chip highlights exactly its span in the mirror.
  await page.locator('#chips .chip').nth(2).hover();
  const mark = await page.locator('#mirror mark.hl').textContent();
  assert.equal(mark, text.slice(offsets[4], offsets[5]));
  assert.equal(await page.locator('#text-a').inputValue(), text);
});

test('offsets are UTF-16 indices: a span after an astral character still points at its word', async () => {
  const text = '😀 the 😀😀 cat';
  await typeText(text);
  const { tokens, offsets } = await hook(() => ({ tokens: window.__attnscope.tokens, offsets: window.__attnscope.offsets }));
  const cat = tokens.indexOf('cat');
  assert.ok(cat > 0, tokens.join(' '));
  assert.deepEqual([offsets[2 * cat], offsets[2 * cat + 1]], [text.indexOf('cat'), text.indexOf('cat') + 3]);
  await page.locator(`#chips .chip[data-pos="${cat}"]`).hover();
  assert.equal(await page.locator('#mirror mark.hl').textContent(), 'cat');
});

test('a second sentence runs as a pair: [CLS] A [SEP] B [SEP], type ids 0 then 1', async () => {
  const before = await hook(() => window.__attnscope.runsDone);
  await page.locator('#pair-on').check();
  await page.locator('#text-b').fill('It flowed slowly.');
  await page.waitForFunction((b) => window.__attnscope.runsDone > b && window.__attnscope.tokens.filter((t) => t === '[SEP]').length === 2, before);
  // The text copy is redrawn on the frame after the run.
  await page.waitForFunction(() => document.querySelectorAll('#mirror p').length === 2);
  const tokens = await hook(() => window.__attnscope.tokens);
  const types = await hook(() => window.__attnscope.typeIds);
  const sep = tokens.indexOf('[SEP]');
  assert.ok(sep > 0 && sep < tokens.length - 1);
  assert.deepEqual(types, tokens.map((_, i) => (i <= sep ? 0 : 1)));
  assert.equal(await page.locator('#mirror p').count(), 2);
  assert.match(page.url(), /pair=It/);
  const before2 = await hook(() => window.__attnscope.runsDone);
  await page.locator('#pair-on').uncheck();
  await page.waitForFunction((b) => window.__attnscope.runsDone > b, before2);
  assert.equal((await hook(() => window.__attnscope.tokens)).filter((t) => t === '[SEP]').length, 1);
});

test('model view draws every layer × head; every shown row sums to 1', async () => {
  await page.locator('[role=tab][data-view=grid]').click();
  const { L, H, T } = await hook(() => {
    const [L, H, T] = window.__attnscope.shape;
    return { L, H, T };
  });
  await page.waitForFunction((n) => Number(document.querySelector('canvas.model-grid')?.dataset.rendered) === n, L * H);
  const info = await hook(() => window.__attnscope.info.config);
  assert.equal(L, info.numLayers);
  assert.equal(H, info.numHeads);
  let worst = 0;
  for (let l = 0; l < L; l++) {
    for (let h = 0; h < H; h++) {
      const m = await hook(([l, h]) => window.__attnscope.shown(l, h), [l, h]);
      assert.equal(m.length, T * T);
      for (const s of rowSums(m, T)) worst = Math.max(worst, Math.abs(s - 1));
    }
  }
  assert.ok(worst < 1e-5, `row sums differ from 1 by up to ${worst}`);
  // The canvas is not blank: thumbnails differ from the page background.
  const inked = await hook(() => {
    const c = document.querySelector('canvas.model-grid');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let x = 0; x < d.length; x += 4) if (d[x + 3] > 0 && (d[x] < 200 || d[x + 1] < 200)) n++;
    return n;
  });
  assert.ok(inked > 100, `only ${inked} coloured pixels in the grid`);
});

test('clicking a thumbnail opens that head; hovering a cell shows its exact weight', async () => {
  const { L, H } = await hook(() => ({ L: window.__attnscope.shape[0], H: window.__attnscope.shape[1] }));
  const l = L - 1, h = H - 1;
  await page.locator('canvas.model-grid').scrollIntoViewIfNeeded();
  const box = await page.locator('canvas.model-grid').boundingBox();
  // Thumbnail geometry as drawn: 26 px labels, then (size + 6 px gap) per head / layer.
  const s = (box.width - 26) / H - 6;
  await page.mouse.click(box.x + 26 + h * (s + 6) + s / 2, box.y + 26 + l * (s + 6) + s / 2);
  await page.waitForFunction(() => window.__attnscope.state.view === 'head');
  const st = await hook(() => window.__attnscope.state);
  assert.deepEqual([st.layer, st.head], [l, h]);

  const overlay = page.locator('.view-head .heatmap-overlay');
  await overlay.scrollIntoViewIfNeeded();
  const g = await overlay.evaluate((c) => ({ ...c.dataset }));
  const ob = await overlay.boundingBox();
  const n = Number(g.n), cell = Number(g.cell);
  const i = Math.min(3, n - 1), j = Math.min(1, n - 1);
  await page.mouse.move(ob.x + Number(g.labelW) + (j + 0.5) * cell, ob.y + Number(g.labelH) + (i + 0.5) * cell);
  const tip = page.locator('.view-head .tooltip');
  await tip.waitFor({ state: 'visible' });
  const text = await tip.textContent();
  const m = await hook(([l, h]) => window.__attnscope.shown(l, h), [l, h]);
  const tokens = await hook(() => window.__attnscope.tokens);
  assert.ok(text.endsWith(': ' + m[i * n + j].toFixed(4)), `tooltip "${text}" vs ${m[i * n + j]}`);
  assert.ok(text.includes(`#${i} ${tokens[i]}`) && text.includes(`#${j} ${tokens[j]}`), text);
  // Keyboard: arrows move the focused cell, the tooltip follows.
  await overlay.focus();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowRight');
  const moved = await tip.evaluate((t) => [Number(t.dataset.row), Number(t.dataset.col)]);
  assert.deepEqual(moved, [Math.min(i + 1, n - 1), Math.min(j + 1, n - 1)]);
  // Save PNG: the head as a titled figure (tests/e2e/exports.test.js), named after the head, at
  // 2 px per CSS px at least (the heatmap with margins, at a 1× screen).
  const [download] = await Promise.all([page.waitForEvent('download'), page.locator('.view-head .save-png').click()]);
  assert.equal(download.suggestedFilename(), `attnscope-head-layer${l}-head${h}.png`);
  const png = readFileSync(await download.path());
  assert.equal(png.subarray(1, 4).toString(), 'PNG');
  const width = png.readUInt32BE(16);
  assert.ok(width >= 2 * await page.locator('.view-head .heatmap canvas').first().evaluate((c) => c.getBoundingClientRect().width));
});

test('keyboard: the grid opens a head with arrows + Enter; the threshold control is mirrored in the URL', async () => {
  await page.locator('[role=tab][data-view=grid]').click();
  // The grid is shown on the frame after the click; until then Tab lands in the head view.
  await page.locator('.view-grid canvas.model-grid').waitFor({ state: 'visible' });
  await page.locator('[role=tab][data-view=grid]').focus();
  await page.keyboard.press('Tab');   // tab order: the active tab, then the view's canvas
  assert.equal(await hook(() => document.activeElement.className), 'model-grid');
  const st = await hook(() => window.__attnscope.state);
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => window.__attnscope.state.view === 'head');
  // Focus lands in the opened head (its heatmap), not on <body>.
  await page.waitForFunction(() => document.activeElement?.closest('.view-head') !== null, null, { timeout: 2000 });
  const now = await hook(() => window.__attnscope.state);
  const [L, H] = await hook(() => window.__attnscope.shape);
  assert.deepEqual([now.layer, now.head], [Math.min(st.layer + 1, L - 1), Math.min(st.head + 1, H - 1)]);
  // Arrow keys on the tab list switch views.
  await page.locator('[role=tab][data-view=head]').focus();
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => window.__attnscope.state.view === 'lines');
  await page.locator('#threshold').fill('0.1');
  await page.waitForFunction(() => window.__attnscope.state.threshold === 0.1);
  assert.match(page.url(), /th=0\.1/);
  await page.locator('#threshold').fill('0');
});

test('lines view: heads toggle, hovering a token focuses its lines', async () => {
  await page.locator('[role=tab][data-view=lines]').click();
  const H = await hook(() => window.__attnscope.shape[1]);
  const toggles = page.locator('.view-lines .head-toggle');
  assert.equal(await toggles.count(), H);
  await toggles.nth(0).click();
  assert.equal(await toggles.nth(0).getAttribute('aria-pressed'), 'false');
  await toggles.nth(0).click();
  assert.equal(await toggles.nth(0).getAttribute('aria-pressed'), 'true');
  const canvas = page.locator('canvas.lines');
  await canvas.scrollIntoViewIfNeeded();
  const box = await canvas.boundingBox();
  // Rows are 20 px from y = 4 for short inputs; the query labels sit at the left edge.
  await page.mouse.move(box.x + 20, box.y + 4 + 2.5 * 20);
  await page.waitForFunction(() => document.querySelector('canvas.lines').dataset.focus === 'left:2');
  await page.mouse.move(box.x + box.width - 20, box.y + 4 + 1.5 * 20);
  await page.waitForFunction(() => document.querySelector('canvas.lines').dataset.focus === 'right:1');
  await page.mouse.move(box.x + box.width / 2, box.y - 30);
});

test('formula: softmax(q·k/√d_k) equals the heatmap row and an independent recomputation', async () => {
  const query = 2;
  await page.evaluate((q) => { history.replaceState(null, '', location.pathname); }, query);
  await page.locator('[role=tab][data-view=formula]').click();
  await page.locator('.query-picker select').selectOption(String(query));
  await page.waitForFunction((q) => window.__attnscope.formula?.query === q, query);
  const f = await hook(() => window.__attnscope.formula);
  const { layer, head } = f;
  const row = (await hook(([l, h]) => window.__attnscope.raw(l, h), [layer, head]));
  const T = Math.sqrt(row.length);
  const engineRow = row.slice(query * T, (query + 1) * T);
  // Independent: from the engine's q and k vectors, in double precision, here in Node.
  const q = await hook(([l, h, t]) => window.__attnscope.vector('q', l, h, t), [layer, head, query]);
  const scores = [];
  for (let j = 0; j < T; j++) {
    const k = await hook(([l, h, t]) => window.__attnscope.vector('k', l, h, t), [layer, head, j]);
    scores.push(q.reduce((s, x, d) => s + x * k[d], 0) / Math.sqrt(q.length));
  }
  const max = Math.max(...scores);
  const e = scores.map((s) => Math.exp(s - max));
  const z = e.reduce((a, b) => a + b, 0);
  let errShown = 0, errIndependent = 0;
  for (let j = 0; j < T; j++) {
    errShown = Math.max(errShown, Math.abs(f.softmax[j] - engineRow[j]));
    errIndependent = Math.max(errIndependent, Math.abs(e[j] / z - engineRow[j]));
  }
  assert.ok(errShown < 1e-5, `formula softmax vs heatmap row: ${errShown}`);
  assert.ok(errIndependent < 1e-5, `recomputed softmax vs engine row: ${errIndependent}`);
  assert.equal(f.dk, q.length);
  const tableRows = await page.locator('.formula-table tbody tr').count();
  assert.equal(tableRows, Math.min(T, 48));
  assert.match(await page.locator('.step.check').getAttribute('class'), /\bok\b/);
  // Every query at once: row `query` of the QKᵀ/√d_k matrix shown is the recomputation above.
  const matrixRow = f.scoresMatrix.slice(query * T, (query + 1) * T);
  assert.ok(matrixRow.every((v, j) => Math.abs(v - scores[j]) < 1e-4), 'QKᵀ/√d_k matrix row differs');
  // The key vectors shown: the strongest key first, then the row clicked.
  assert.equal(f.key, f.softmax.indexOf(Math.max(...f.softmax)));
  const other = f.key === 1 ? 3 : 1;
  await page.locator(`.formula-table tbody tr[data-key="${other}"]`).click();
  await page.waitForFunction((k) => window.__attnscope.formula?.key === k, other);
  const g = await hook(() => window.__attnscope.formula);
  assert.deepEqual(g.k, await hook(([l, h, t]) => window.__attnscope.vector('k', l, h, t), [layer, head, other]));
  assert.deepEqual(g.v, await hook(([l, h, t]) => window.__attnscope.vector('v', l, h, t), [layer, head, other]));
});

test('hiding [CLS]/[SEP] drops them and renormalises every row', async () => {
  await page.locator('[role=tab][data-view=head]').click();
  await page.locator('#hide-special').check();
  await page.waitForFunction(() => window.__attnscope.state.hideSpecial);
  const { positions, tokens, l, h } = await hook(() => ({
    positions: window.__attnscope.shownPositions(), tokens: window.__attnscope.tokens,
    l: window.__attnscope.state.layer, h: window.__attnscope.state.head,
  }));
  assert.deepEqual(positions.map((p) => tokens[p]).filter((t) => t === '[CLS]' || t === '[SEP]'), []);
  assert.equal(positions.length, tokens.length - 2);
  const shown = await hook(([l, h]) => window.__attnscope.shown(l, h), [l, h]);
  const raw = await hook(([l, h]) => window.__attnscope.raw(l, h), [l, h]);
  const T = tokens.length, n = positions.length;
  for (const s of rowSums(shown, n)) assert.ok(Math.abs(s - 1) < 1e-5, `row sum ${s}`);
  for (let a = 0; a < n; a++) {
    const rowKept = positions.reduce((s, p) => s + raw[positions[a] * T + p], 0);
    for (let b = 0; b < n; b++) {
      const want = raw[positions[a] * T + positions[b]] / rowKept;
      assert.ok(Math.abs(shown[a * n + b] - want) < 1e-6);
    }
  }
  // The heatmap redraws after the state changes: wait for its n labels (a loaded machine lags).
  await page.waitForFunction((n) => Number(document.querySelector('.view-head .heatmap-overlay')?.dataset.n) === n, n);
  // The weight each shown row lost to the hidden tokens is said, and is 1 − the kept sum.
  const note = page.locator('.view-head .hidden-mass');
  assert.ok(await note.isVisible());
  const removed = (await note.getAttribute('data-removed')).split(',').map(Number);
  for (let a = 0; a < n; a++) {
    const rowKept = positions.reduce((s, p) => s + raw[positions[a] * T + p], 0);
    assert.ok(Math.abs(removed[a] - (1 - rowKept)) < 1e-5, `row ${a}: ${removed[a]} vs ${1 - rowKept}`);
  }
  assert.match(await note.textContent(), /Hidden \[CLS\]\/\[SEP\] took \d+–\d+% of each row/);
  await page.locator('#hide-special').uncheck();
  await page.waitForFunction(() => document.querySelector('.view-head .hidden-mass').hidden);
});

test('aggregates: mean, max and rollout match independent computations', async () => {
  await page.locator('[role=tab][data-view=aggregates]').click();
  const L = await hook(() => window.__attnscope.shape[0]);
  await page.locator('.view-aggregates .layer-picker select').selectOption(String(L - 1));
  await page.waitForFunction(() => document.querySelectorAll('.view-aggregates .agg-panel[data-ready="1"]').length === 5);
  const [, H, T] = await hook(() => window.__attnscope.shape);
  const heads = [];
  const layers = [];
  for (let l = 0; l < L; l++) {
    const mean = new Float64Array(T * T);
    for (let h = 0; h < H; h++) {
      const a = await hook(([l, h]) => window.__attnscope.raw(l, h), [l, h]);
      if (l === L - 1) heads.push(a);
      for (let x = 0; x < T * T; x++) mean[x] += a[x] / H;
    }
    layers.push(mean);
  }
  // Rollout: Ã = 0.5·A_mean + 0.5·I (rows renormalised), R = Ã_{L-1} ⋯ Ã_0.
  let R = null;
  for (const mean of layers) {
    const A = mean.map((v, x) => 0.5 * v + (Math.floor(x / T) === x % T ? 0.5 : 0));
    for (let i = 0; i < T; i++) {
      let s = 0;
      for (let j = 0; j < T; j++) s += A[i * T + j];
      for (let j = 0; j < T; j++) A[i * T + j] /= s;
    }
    if (!R) { R = A; continue; }
    const next = new Float64Array(T * T);
    for (let i = 0; i < T; i++) for (let k = 0; k < T; k++) for (let j = 0; j < T; j++) next[i * T + j] += A[i * T + k] * R[k * T + j];
    R = next;
  }
  const got = await hook(() => ({
    rollout: window.__attnscope.aggregate('rollout'), mean: window.__attnscope.aggregate('mean'), max: window.__attnscope.aggregate('max'),
  }));
  const maxErr = (a, b) => a.reduce((m, v, x) => Math.max(m, Math.abs(v - b[x])), 0);
  assert.ok(maxErr(got.rollout, R) < 1e-5, `rollout error ${maxErr(got.rollout, R)}`);
  assert.ok(maxErr(got.mean, layers[L - 1]) < 1e-6);
  const max = new Float64Array(T * T).map((_, x) => Math.max(...heads.map((a) => a[x])));
  assert.ok(maxErr(got.max, max) < 1e-7);
  for (const s of rowSums(got.rollout, T)) assert.ok(Math.abs(s - 1) < 1e-5);
  // Value-norm weighted = α_ij · ‖f(x_j)‖ of the chosen head.
  const h = await hook(() => window.__attnscope.state.head);
  const norms = await hook(([l, h]) => window.__attnscope.valueNorms(l, h), [L - 1, h]);
  const nw = await hook(() => window.__attnscope.aggregate('normWeighted'));
  const a = heads[h];
  assert.ok(nw.every((v, x) => Math.abs(v - a[x] * norms[x % T]) < 1e-5));
  assert.ok(norms.every((v) => v > 0));
});

test('selecting several query tokens shows their mean attention row', async () => {
  await page.locator('[role=tab][data-view=head]').click();
  await page.locator('#select-mode').click();   // a chip click selects only in this mode
  await page.locator('#chips .chip[data-pos="1"]').click();
  await page.locator('#chips .chip[data-pos="3"]').click();
  await page.locator('#select-mode').click();
  await page.waitForFunction(() => window.__attnscope.state.selected.join() === '1,3');
  await page.waitForFunction(() => document.querySelector('.view-head canvas.bars')?.dataset.values);
  const { l, h } = await hook(() => ({ l: window.__attnscope.state.layer, h: window.__attnscope.state.head }));
  const m = await hook(([l, h]) => window.__attnscope.shown(l, h), [l, h]);
  const T = Math.sqrt(m.length);
  const bars = (await page.locator('.view-head canvas.bars').getAttribute('data-values')).split(',').map(Number);
  for (let j = 0; j < T; j++) assert.ok(Math.abs(bars[j] - (m[T + j] + m[3 * T + j]) / 2) < 1e-6);
  // The chart names its largest bar (token and weight) for screen readers.
  const tokens = await hook(() => window.__attnscope.tokens);
  const top = bars.indexOf(Math.max(...bars));
  const aria = await page.locator('.view-head canvas.bars').getAttribute('aria-label');
  assert.ok(aria.startsWith(`${tokens[top]} ${bars[top].toFixed(3)}`), `${aria} (largest: ${tokens[top]})`);
  assert.equal(await page.locator('#chips .chip.selected').count(), 2);
  await page.locator('#clear-selection').click();
  await page.waitForFunction(() => window.__attnscope.state.selected.length === 0);
});

test('masking a token zeroes its column; dropping it removes it; the diff view compares', async () => {
  await page.locator('[role=tab][data-view=head]').click();
  const T = await hook(() => window.__attnscope.shape[2]);
  const pos = 2;
  await page.locator('#select-mode').click();
  await page.locator(`#chips .chip[data-pos="${pos}"]`).click();
  await page.locator('#select-mode').click();
  await page.waitForFunction((p) => window.__attnscope.state.selected.includes(p), pos);
  await page.locator('#mask-btn').click();
  await page.waitForFunction(() => window.__attnscope.edit?.kind === 'mask' && window.__attnscope.state.view === 'diff');
  const [L, H] = await hook(() => window.__attnscope.shape);
  for (let l = 0; l < L; l++) {
    for (let h = 0; h < H; h++) {
      const m = await hook(([l, h]) => window.__attnscope.raw(l, h), [l, h]);
      for (let i = 0; i < T; i++) assert.ok(m[i * T + pos] < 1e-7, `masked key still gets ${m[i * T + pos]}`);
      for (const s of rowSums(m, T)) assert.ok(Math.abs(s - 1) < 1e-5);
    }
  }
  await page.waitForFunction(() => document.querySelector('.agg-panel[data-kind=delta]'));
  const delta = await hook(() => window.__attnscope.diff('delta'));
  assert.equal(delta.length, T * T);
  assert.ok(delta.some((v) => Math.abs(v) > 1e-6), 'masking changed nothing');
  // Drop the same token instead.
  await page.locator('#restore-btn').click();
  await page.waitForFunction(() => window.__attnscope.edit === null);
  await page.locator('#drop-btn').click();
  await page.waitForFunction(() => window.__attnscope.edit?.kind === 'drop');
  const [tokens, original] = await hook(() => [window.__attnscope.tokens, window.__attnscope.originalTokens]);
  assert.deepEqual(tokens, original.filter((_, i) => i !== pos));
  // The drop's diff is drawn on the frame after its run; until then the mask's panels are up (the
  // edited run one token shorter tells them apart).
  await page.waitForFunction((n) => Number(document.querySelector('.view-diff .agg-panel[data-kind=edited] .heatmap-overlay')?.dataset.n) === n, T - 1);
  const d2 = await hook(() => window.__attnscope.diff('delta'));
  assert.ok(Number.isNaN(d2[pos * T]) || d2[pos * T] === null, 'a dropped row has nothing to compare');
  // With [CLS]/[SEP] hidden, the diff compares only the visible tokens, rows renormalised.
  await page.locator('#hide-special').check();
  await page.waitForFunction((n) => window.__attnscope.diff('original')?.length === n * n, T - 2);
  for (const s of rowSums(await hook(() => window.__attnscope.diff('original')), T - 2)) assert.ok(Math.abs(s - 1) < 1e-5);
  assert.equal((await hook(() => window.__attnscope.diff('edited'))).length, (T - 3) ** 2);
  await page.locator('#hide-special').uncheck();
  await page.waitForFunction((n) => window.__attnscope.diff('original')?.length === n * n, T);
  await page.locator('#restore-btn').click();
  await page.locator('#clear-selection').click();
});

test('[MASK] predictions appear under the masked token', async () => {
  // The page shows the bundled BERT here, a BertForMaskedLM (model/config.json): a missing MLM
  // head is a regression to report, not a reason to skip.
  assert.ok(await hook(() => window.__attnscope.info.hasMlmHead), 'the bundled BERT has no MLM head');
  await typeText('the cat [MASK] on the mat.');
  const preds = await hook(() => window.__attnscope.maskPredictions);
  const tokens = await hook(() => window.__attnscope.tokens);
  assert.equal(preds.length, 1);
  assert.equal(tokens[preds[0].position], '[MASK]');
  const probs = preds[0].top.map((p) => p.prob);
  assert.ok(probs.every((p, i) => p > 0 && p <= 1 && (i === 0 || p <= probs[i - 1])));
  const chipText = await page.locator(`#chips .chip[data-pos="${preds[0].position}"] .predictions`).textContent();
  assert.ok(chipText.startsWith(preds[0].top[0].token + ' '), chipText);
});

test('language switches to Korean and back; every view renders in both', async () => {
  await page.locator('button[data-lang=ko]').click();
  await page.waitForFunction(() => document.documentElement.lang === 'ko');
  assert.equal(await page.locator('[role=tab][data-view=formula]').textContent(), '수식');
  assert.equal(await page.locator('#model-title').textContent(), '모델');
  assert.match(await page.title(), /어텐션/);
  for (const view of ['grid', 'head', 'lines', 'formula', 'aggregates', 'diff']) {
    await page.locator(`[role=tab][data-view=${view}]`).click();
    await page.waitForFunction((v) => !document.querySelector(`.view-${v}`)?.hidden, view);
  }
  assert.match(await page.locator('.explain h3').textContent(), /무슨 일/);
  assert.equal(await hook(() => window.__attnscope.state.lang), 'ko');
  assert.match(page.url(), /lang=ko/);
  await page.locator('button[data-lang=en]').click();
  await page.waitForFunction(() => document.documentElement.lang === 'en');
  assert.equal(await page.locator('[role=tab][data-view=formula]').textContent(), 'Formula');
});

test('a permalink restores the view; URL parameters are validated and never become HTML', async () => {
  const evil = '<img src=x id=pwned onerror="window.__pwned=1">';
  const url = `${server.origin}/?text=${encodeURIComponent(evil + ' the cat')}&view=formula&layer=1&head=1&q=2&lang=ko&th=0.05&model=${encodeURIComponent('../../etc')}`;
  const second = await guardedPage(browser, server.origin);
  await second.page.goto(url);
  await waitForRuns(second.page, 1);
  const st = await second.page.evaluate(() => window.__attnscope.state);
  assert.equal(st.view, 'formula');
  assert.equal(st.layer, 1);
  assert.equal(st.head, 1);
  assert.equal(st.query, 2);
  assert.equal(st.lang, 'ko');
  assert.equal(st.threshold, 0.05);
  assert.equal(st.model, 'bundled', 'an invalid model id falls back to the bundled model');
  assert.equal(await second.page.locator('#text-a').inputValue(), evil + ' the cat');
  assert.equal(await second.page.locator('#pwned').count(), 0);
  assert.equal(await second.page.evaluate(() => window.__pwned), undefined);
  // Garbage: out-of-range numbers and unknown views fall back to defaults.
  await second.page.goto(`${server.origin}/?view=evil&layer=-3&head=99999999&q=abc&th=7`);
  await waitForRuns(second.page, 1);
  const d = await second.page.evaluate(() => window.__attnscope.state);
  assert.equal(d.view, 'grid');
  assert.equal(d.layer, 0);
  assert.equal(d.threshold, 0);
  assert.deepEqual(second.problems, []);
  await second.context.close();
});

test('a local model folder loads through the file input; a broken one is refused, the model stays', async () => {
  const fixture = writeBertFixture(join(tmp, 'tiny-bert'), { layers: 3, heads: 2, hidden: 16, intermediate: 32, maxPositions: 40 });
  const runs = await hook(() => window.__attnscope.runsDone);
  await page.locator('#model-select').selectOption('__local');
  await page.locator('#folder-input').setInputFiles(fixture.dir);
  await page.waitForFunction((r) => window.__attnscope.runsDone > r && window.__attnscope.info.source === 'files', runs, { timeout: 30000 });
  const shape = await hook(() => window.__attnscope.shape);
  assert.deepEqual(shape.slice(0, 2), [3, 2]);
  assert.equal(await hook(() => window.__attnscope.state.model), 'local');
  // Broken: config.json that is not JSON. The error names the problem; the fixture model stays.
  const broken = join(tmp, 'broken');
  writeBertFixture(broken, { layers: 1, heads: 1, hidden: 8, intermediate: 8, maxPositions: 8 });
  writeFileSync(join(broken, 'config.json'), '{ "model_type": "bert", ');
  await page.locator('#model-select').selectOption('__local');
  await page.locator('#folder-input').setInputFiles(broken);
  await page.locator('#model-error').waitFor({ state: 'visible' });
  const message = await page.locator('#model-error').textContent();
  assert.match(message, /E_CONFIG/);
  assert.deepEqual((await hook(() => window.__attnscope.shape)).slice(0, 2), [3, 2]);
  // The page still runs with the kept model.
  await typeText('she saw a big red house');
  assert.deepEqual((await hook(() => window.__attnscope.shape)).slice(0, 2), [3, 2]);
});

// Also run alone (--test-name-pattern): it then drives the page itself, through every view and a
// typed text, so it has something to catch; and it first checks that the guard catches at all.
test('no console errors, uncaught errors, unhandled rejections or foreign requests', async () => {
  const seen = problems.length;
  await page.evaluate(() => {
    console.error('planted console error');
    setTimeout(() => { throw new Error('planted uncaught error'); }, 0);
    Promise.reject(new Error('planted rejection'));
  });
  await page.waitForTimeout(200);
  const planted = problems.splice(seen);
  for (const what of ['console.error: planted console error', 'uncaught: planted uncaught error', 'uncaught: planted rejection']) {
    assert.ok(planted.includes(what), `the guard missed "${what}": ${planted.join(' | ')}`);
  }
  await typeText('the river bank was muddy');
  for (const view of ['grid', 'head', 'lines', 'formula', 'aggregates']) {
    await page.locator(`[role=tab][data-view=${view}]`).click();
    await page.waitForFunction((v) => document.querySelector(`.view-${v}`) && !document.querySelector(`.view-${v}`).hidden &&
      document.querySelector(`.view-${v}`).children.length > 0, view);
  }
  await page.locator('#select-mode').click();
  await page.locator('#chips .chip').nth(2).click();
  await page.locator('#select-mode').click();
  await page.locator('#mask-btn').click();
  await page.waitForFunction(() => window.__attnscope.edit?.kind === 'mask');
  await page.waitForTimeout(300);
  assert.deepEqual(problems, []);
});
