// Probing heads in the page, end to end with the bundled BERT: the head table's numbers
// for the text on screen equal js/analysis/head-stats.js headStatistics recomputed here from the engine's
// raw matrices (read through the test hook), columns sort and a row opens its head; the
// query/key map runs the whole corpus sample and the projection in the worker (timed against the
// same 300 runs by the Node API; the page's bundle holds no projection code, its main thread keeps
// drawing frames and answers a tab click as it does with nothing running, a typed character re-runs
// the text meanwhile) and its points
// equal js/analysis/qk-map.js on the sample run by the Node API; switching a head off in the grid shows the
// ablation diff (the head's own attention unchanged, a later layer's changed, the [MASK] guesses
// of both runs), and the head mask is in the permalink. No console error, no request off-origin.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { headStatistics, HEAD_STATISTICS } from '../../js/analysis/head-stats.js';
import { queryKeyMap } from '../../js/analysis/qk-map.js';
import { loadModel } from '../../js/index.js';
import { defaultState, stateFromUrl, stateToUrl } from '../../web/src/state/state.js';
import { guardedPage, idleFrames, launchBrowser, startServer, waitForRuns } from './helpers.js';

let server, browser, page, problems;
const hook = (fn, arg) => page.evaluate(fn, arg);
const TEXT = 'The [MASK] sat on the mat because it was tired.';

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
  ({ page, problems } = await guardedPage(browser, server.origin));
  await page.goto(`${server.origin}/?view=heads&text=${encodeURIComponent(TEXT)}`);
  await waitForRuns(page, 1);
});

after(async () => {
  await browser?.close();
  await server?.close();
});

// The corpus sample run by the Node API in this process (q/k on): the independent path the
// page's worker results are compared with. Computed once.
// Also timed (nodeRunsMs, the runs alone): the same work the page's worker does for the map.
let nodeRuns = null, nodeRunsMs = null;
async function sampleRunsInNode() {
  if (nodeRuns) return nodeRuns;
  const sample = JSON.parse(readFileSync(new URL('../../web/data/corpus-sample.json', import.meta.url)));
  const model = await loadModel('bundled', { threads: 1 });
  try {
    const runs = [];
    const started = performance.now();
    for (const [text] of sample.sentences) runs.push(await model.run(text, { qkv: true, topK: 0 }));
    nodeRunsMs = performance.now() - started;
    nodeRuns = runs;
  } finally {
    model.dispose();
  }
  return nodeRuns;
}

// Clicks a tab in the page and times it to the next animation frame with its view on; -1 if the
// view did not switch.
const clickTabMs = (view) => hook((v) => new Promise((resolve) => {
  const tab = document.querySelector(`[role=tab][data-view="${v}"]`);
  const t0 = performance.now();
  tab.click();
  requestAnimationFrame(() => resolve(document.body.dataset.view === v || window.__attnscope.state.view === v ? performance.now() - t0 : -1));
}), view);

// Main-thread probes installed in the page: the longest gap between two animation frames and
// the long tasks (> 50 ms) seen since start(); stop() returns them.
function startProbe() {
  return hook(() => {
    const probe = { maxGap: 0, frames: 0, longTasks: [], running: true };
    let last = performance.now();
    const frame = (now) => {
      probe.maxGap = Math.max(probe.maxGap, now - last);
      last = now;
      probe.frames++;
      if (probe.running) requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
    probe.observer = new PerformanceObserver((list) => probe.longTasks.push(...list.getEntries().map((e) => Math.round(e.duration))));
    probe.observer.observe({ type: 'longtask' });
    window.__probe = probe;
  });
}
function stopProbe() {
  return hook(() => {
    const p = window.__probe;
    p.running = false;
    p.observer.disconnect();
    return { maxGap: p.maxGap, frames: p.frames, longTasks: p.longTasks };
  });
}

// The page's run, as headStatistics reads it: raw matrices and the special-token mask.
async function pageRun() {
  const [L, H, T] = await hook(() => window.__attnscope.shape);
  const tokens = await hook(() => window.__attnscope.tokens);
  const attentions = new Float32Array(L * H * T * T);
  for (let l = 0; l < L; l++) {
    for (let h = 0; h < H; h++) attentions.set(await hook(([a, b]) => window.__attnscope.raw(a, b), [l, h]), (l * H + h) * T * T);
  }
  const specialTokensMask = Uint8Array.from(tokens, (t) => (t === '[CLS]' || t === '[SEP]' ? 1 : 0));
  return { attentions, shape: [L, H, T], specialTokensMask };
}

test('head table: every statistic equals headStatistics on the page\'s own run; sortable; a row opens its head', async () => {
  await page.waitForSelector('.heads-table tbody tr');
  const expected = headStatistics([await pageRun()]);
  const { rows } = await hook(() => window.__attnscope.heads);
  assert.equal(rows.length, expected.length);
  for (const e of expected) {
    const row = rows.find((r) => r.layer === e.layer && r.head === e.head);
    for (const k of HEAD_STATISTICS) assert.ok(Math.abs(row[k] - e[k]) < 1e-9, `${e.layer}:${e.head} ${k} ${row[k]} vs ${e[k]}`);
  }
  // The cells show the same numbers (3 decimals).
  const cell = await page.locator('.heads-table tbody tr[data-layer="1"][data-head="2"] td[data-key="entropy"]').textContent();
  assert.equal(cell, expected.find((e) => e.layer === 1 && e.head === 2).entropy.toFixed(3));
  // Sort by entropy: the first click sorts descending, the second ascending.
  for (const dir of [-1, 1]) {
    await page.locator('.heads-table th button[data-sort="entropy"]').click();
    const shown = await page.locator('.heads-table tbody td[data-key="entropy"]').allTextContents();
    const values = (await hook(() => window.__attnscope.heads)).rows.map((r) => r.entropy);
    for (let i = 1; i < values.length; i++) assert.ok(dir * (values[i] - values[i - 1]) >= 0, `entropy sorted ${dir}`);
    assert.deepEqual(shown, values.map((v) => v.toFixed(3)));
  }
  const top = (await hook(() => window.__attnscope.heads)).rows[0];
  await page.locator('.heads-table tbody tr').first().click();
  await page.waitForFunction(() => window.__attnscope.state.view === 'head');
  const s = await hook(() => window.__attnscope.state);
  assert.deepEqual([s.layer, s.head], [top.layer, top.head]);
  assert.deepEqual(problems, []);
});

test('query/key map over the whole corpus sample: computed in the worker at the pace of the Node API, the page responsive meanwhile', async () => {
  // The page's bundle has no projection or POS-sum code at all: the main thread cannot run them.
  const bundle = await (await fetch(`${server.origin}/dist/explorer.js`)).text();
  for (const marker of ['queryKeyMap needs', 'posAttention needs', 'topEigenvector']) assert.ok(!bundle.includes(marker), marker);
  // Same-run baselines, with no job running: the page's frames, and the same tab click
  // (grid → heads, the median of three).
  const idle = await idleFrames(page);
  const idleClicks = [];
  for (let k = 0; k < 3; k++) {
    await page.locator('[role=tab][data-view="grid"]').click();
    await page.waitForFunction(() => window.__attnscope.state.view === 'grid');
    idleClicks.push(await clickTabMs('heads'));
  }
  const idleClickMs = idleClicks.sort((a, b) => a - b)[1];
  assert.ok(idleClickMs >= 0, 'the heads tab switched the view');
  const before = await hook(() => window.__attnscope.runsDone);
  await startProbe();
  const started = Date.now();
  await page.locator('[role=tab][data-view="map"]').click();
  await page.waitForSelector('.map-status');
  // While the sample runs in the worker: a typed character re-runs the text (its job goes
  // between two slices of the corpus job), and a click on another tab switches the view at once.
  await page.locator('#text-a').press('End');
  await page.locator('#text-a').type('!');
  await page.waitForFunction((b) => window.__attnscope.runsDone > b, before, { timeout: 10000 });
  const typedMs = Date.now() - started;
  const midway = await hook(() => window.__attnscope.qkMap.points);
  const clickMs = await clickTabMs('heads');
  await page.locator('[role=tab][data-view="map"]').click();
  await page.waitForFunction(() => window.__attnscope.qkMap?.points > 0, null, { timeout: 60000 });
  const probe = await stopProbe();
  const map = await hook(() => window.__attnscope.qkMap);
  const totalMs = Date.now() - started;
  console.log(`query/key map: 300 sentences in the worker ${(map.runsMs / 1000).toFixed(2)} s, projection in the worker ` +
    `${map.projectionMs.toFixed(1)} ms (${map.mapWallMs.toFixed(0)} ms with the round trip), ${map.points} points, q/k kept for ` +
    `layers ${map.qkLayers}, wall ${(totalMs / 1000).toFixed(2)} s; a typed character re-ran the text after ${typedMs} ms; ` +
    `a tab click showed its view within ${clickMs.toFixed(0)} ms; main thread: longest frame gap ${probe.maxGap.toFixed(0)} ms over ` +
    `${probe.frames} frames, long tasks [${probe.longTasks}] ms; idle: tab click ${idleClickMs.toFixed(0)} ms, ` +
    `frame ${idle.frameMs.toFixed(1)} ms, longest gap ${idle.maxGap.toFixed(0)} ms`);
  assert.equal(midway, 0, 'the typed character was handled before the map finished');
  // Against the same page with nothing running: the click while the worker computes costs at most
  // a few idle clicks (a slice of the job on the main thread holds it for its whole slice), and no
  // frame waits more than a few of the idle page's longest gaps.
  assert.ok(clickMs >= 0 && clickMs <= 4 * Math.max(idleClickMs, idle.frameMs),
    `the tab click took ${clickMs} ms during the job, ${idleClickMs} ms idle (frame ${idle.frameMs} ms)`);
  assert.ok(probe.maxGap <= 6 * Math.max(idle.maxGap, idle.frameMs),
    `a frame waited ${probe.maxGap} ms during the job; idle, the longest gap was ${idle.maxGap} ms`);
  assert.ok(map.inWorker, 'the sample ran in the worker');
  assert.equal(await hook(() => window.__attnscope.state.text), TEXT + '!');
  // Every token of every sentence gives a query and a key point.
  assert.ok(map.points > 2 * 300 * 8, `${map.points} points`);
  assert.equal(map.points % 2, 0);
  assert.equal(map.pairs.length, 6);
  for (const p of map.pairs) assert.ok(p.mass > 0 && p.mass <= 1);
  // Another head re-projects in the worker without re-running the sample; its points equal
  // queryKeyMap over the sample run by the Node API.
  await page.locator('.view-map .head-picker select').selectOption('3');
  await page.waitForFunction(() => window.__attnscope.qkMap.head[1] === 3);
  const shown = await hook(() => window.__attnscope.qkMapPoints());
  const want = queryKeyMap(await sampleRunsInNode(), shown.layer, shown.head);
  // The worker's runs of the sample against the same 300 runs by the Node API (one thread) in this
  // process: the page may add its slicing and the typed text's run, not a multiple of the work.
  console.log(`the sample: ${(map.runsMs / 1000).toFixed(2)} s in the page's worker, ${(nodeRunsMs / 1000).toFixed(2)} s by the Node API`);
  assert.ok(map.runsMs <= 3 * nodeRunsMs, `the worker ran the sample in ${map.runsMs} ms, the Node API in ${nodeRunsMs} ms`);
  assert.equal(shown.points.length, want.points.length);
  // The page's wasm build may round differently from Node's (relaxed SIMD, threads): float32
  // rounding of q/k, so the bound is relative to the map's extent (the worker's projection itself
  // equals queryKeyMap to the bit on the same runs: tests/js/corpus-job.test.js).
  let worst = 0, extent = 0;
  want.points.forEach((v, i) => { worst = Math.max(worst, Math.abs(v - shown.points[i])); extent = Math.max(extent, Math.abs(v)); });
  console.log(`map ${shown.layer}:${shown.head}: page vs Node API + queryKeyMap: max |Δ| ${worst.toExponential(2)} for points up to ${extent.toFixed(2)}`);
  assert.ok(worst <= 1e-6 * extent, `map ${shown.layer}:${shown.head} differs from queryKeyMap by ${worst} (extent ${extent})`);
  assert.deepEqual(shown.kinds, Array.from(want.kinds));
  assert.deepEqual(shown.runs, Array.from(want.runs));
  assert.deepEqual(shown.positions, Array.from(want.positions));
  // Hover a point: the tooltip names the token in its sentence.
  const box = await page.locator('canvas.qk-map').boundingBox();
  let hovered = false, x = 0, y = 0;
  for (let k = 0; k < 40 && !hovered; k++) {
    x = box.x + box.width * (0.3 + 0.4 * ((k * 7) % 40) / 40);
    y = box.y + box.height * (0.3 + 0.4 * ((k * 13) % 40) / 40);
    await page.mouse.move(x, y);
    hovered = await page.locator('.qk-wrap .tooltip').isVisible();
  }
  assert.ok(hovered, 'a hovered point shows its token');
  const tip = await page.locator('.qk-wrap .tooltip').textContent();
  const [, token, sentence] = tip.match(/^(?:query|key) “(.+?)”.* — (.*\[.+\].*)$/);
  // Click the hovered point: its sentence opens in the head view with that token as the query.
  const at = await page.evaluate(() => window.__attnscope.runsDone);
  await page.mouse.click(x, y);
  await page.waitForFunction((n) => window.__attnscope.runsDone > n && document.body.dataset.status === 'ready', at);
  const opened = await hook(() => ({ ...window.__attnscope.state, tokens: window.__attnscope.tokens }));
  assert.equal(opened.view, 'head');
  assert.equal(opened.text, sentence.replace('[', '').replace(']', ''));
  assert.equal(opened.tokens[opened.query], token);
  assert.deepEqual(problems, []);
});

test('switching a head off in the grid re-runs without it: the ablation diff, the [MASK] guesses, the permalink', async () => {
  await page.locator('#text-a').fill(TEXT);
  await page.locator('[role=tab][data-view="grid"]').click();
  await page.waitForFunction((t) => window.__attnscope.state.text === t && document.body.dataset.status === 'ready', TEXT);
  await page.locator('.ablate-mode').check();
  await page.waitForFunction(() => document.querySelector('canvas.model-grid')?.dataset.rendered === '16');
  const box = await page.locator('canvas.model-grid').boundingBox();
  const s = await hook(() => { const c = document.querySelector('canvas.model-grid'); return (parseFloat(c.style.width) - 26) / 4 - 6; });
  await page.mouse.click(box.x + 26 + 1 * (s + 6) + s / 2, box.y + 26 + s / 2);   // layer 0, head 1
  await page.waitForFunction(() => window.__attnscope.edit?.kind === 'heads');
  assert.deepEqual(await hook(() => window.__attnscope.state.headsOff), ['0:1']);
  assert.match(page.url(), /[?&]off=0%3A1(&|$)/);
  // The switched-off head's own attention is unchanged; a later layer's attention changes.
  const same = await hook(() => [window.__attnscope.raw(0, 1, 'original'), window.__attnscope.raw(0, 1, 'edited')]);
  assert.deepEqual(same[0], same[1]);
  let changed = 0;
  for (let h = 0; h < 4; h++) {
    const [a, b] = await hook((hh) => [window.__attnscope.raw(1, hh, 'original'), window.__attnscope.raw(1, hh, 'edited')], h);
    changed = Math.max(changed, ...a.map((x, i) => Math.abs(x - b[i])));
  }
  assert.ok(changed > 1e-4, `layer 1 attention changed by ${changed}`);
  await page.locator('[role=tab][data-view="diff"]').click();
  await page.waitForSelector('.ablation-table');
  const rows = await page.locator('.ablation-table tr').allTextContents();
  assert.equal(rows.length, 2);   // header + the one [MASK]
  assert.match(rows[1], /\[MASK\] at 2/);
  const delta = await hook(() => window.__attnscope.diff('delta'));
  assert.ok(delta.length > 0);
  // The permalink restores the head mask.
  const again = await guardedPage(browser, server.origin);
  await again.page.goto(page.url());
  await waitForRuns(again.page, 1);
  await again.page.waitForFunction(() => window.__attnscope.edit?.kind === 'heads');
  assert.deepEqual(await again.page.evaluate(() => window.__attnscope.state.headsOff), ['0:1']);
  assert.deepEqual(again.problems, []);
  await again.context.close();
  assert.deepEqual(problems, []);
});

test('the head mask in the URL: round trip, invalid values ignored', () => {
  const s = { ...defaultState(), headsOff: ['0:1', '3:2'] };
  assert.match(stateToUrl(s), /off=0%3A1%2C3%3A2/);
  assert.deepEqual(stateFromUrl(stateToUrl(s)), s);
  for (const bad of ['?off=0', '?off=a:b', '?off=0:1,', '?off=0:1;2:3', '?off=-1:0']) assert.deepEqual(stateFromUrl(bad).headsOff, [], bad);
});

test('corpus columns equal headStatistics over the sample run by the Node API (an independent path to the engine)', async () => {
  await page.locator('[role=tab][data-view="heads"]').click();
  await page.locator('.heads-corpus').click();
  await page.waitForFunction(() => window.__attnscope.heads?.rows[0]?.corpus_entropy !== undefined, null, { timeout: 60000 });
  const rows = (await hook(() => window.__attnscope.heads)).rows;
  for (const e of headStatistics(await sampleRunsInNode())) {
    const row = rows.find((r) => r.layer === e.layer && r.head === e.head);
    for (const k of HEAD_STATISTICS) assert.ok(Math.abs(row['corpus_' + k] - e[k]) < 1e-6, `${e.layer}:${e.head} ${k}`);
  }
  assert.deepEqual(problems, []);
});

test('the corpus ablation shows progress and can be cancelled', async () => {
  await page.locator('.heads-ablate').click();
  await page.waitForFunction(() => document.querySelector('.heads-bar progress:not([hidden])')?.value > 0, null, { timeout: 30000 });
  assert.equal(await page.locator('.heads-ablate').isDisabled(), true);
  await page.locator('.heads-cancel').click();
  await page.waitForFunction(() => document.querySelector('.heads-status').textContent === 'Cancelled.', null, { timeout: 30000 });
  assert.equal(await page.locator('.heads-ablate').isDisabled(), false);
  assert.equal(await hook(() => window.__attnscope.heads.ablationMs), null);
  assert.deepEqual(problems, []);
});

test('decoder: a permalink with heads off shows the next-token guesses of both runs; the map and table work', async () => {
  const d = await guardedPage(browser, server.origin, { width: 390, height: 844 });
  await d.page.goto(`${server.origin}/?model=bundled-causal&view=diff&off=1:0&text=${encodeURIComponent('The river bank was')}`);
  await waitForRuns(d.page, 1);
  await d.page.waitForFunction(() => window.__attnscope.edit?.kind === 'heads');
  await d.page.waitForSelector('.ablation-table tr');   // drawn on the frame after the edit arrives
  const rows = await d.page.locator('.ablation-table tr').allTextContents();
  assert.equal(rows.length, 2);
  assert.match(rows[1], /^Next token/);
  // Layer 0 comes before the switched-off layer-1 head: its attention is the intact run's.
  const [a0, b0] = await d.page.evaluate(() => [window.__attnscope.raw(0, 0, 'original'), window.__attnscope.raw(0, 0, 'edited')]);
  assert.deepEqual(a0, b0);
  await d.page.locator('[role=tab][data-view="heads"]').click();
  await d.page.waitForSelector('.heads-table tbody tr');
  assert.equal(await d.page.locator('.heads-table tbody tr.head-off').count(), 1);
  assert.deepEqual(d.problems, []);
  await d.context.close();
});
