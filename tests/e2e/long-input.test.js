// 512 tokens on a 12-layer × 12-head, 512-position random BERT (hidden 192 by default so the
// engine's forward pass stays a few seconds on a shared CI core; the page's load — 12·12·512·512
// attention weights, 151 MB — is the same as bert-base's. LONG_HIDDEN=768 runs the full-size
// bert-base shape, ~340 MB of weights). Checks: truncation is announced, the model view draws all
// 144 heads in many short main-thread tasks, hover redraws fit in one of the page's own frames,
// and the other views render at this size. Times are compared with the same page in the same run
// (its idle frame interval, the whole draw), not with fixed milliseconds; the other views' times
// are printed as benchmark figures.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIXTURE_WORDS, guardedPage, idleFrames, launchBrowser, startServer, waitForRuns, writeBertFixture } from './helpers.js';

const HIDDEN = Number(process.env.LONG_HIDDEN || 192);
let server, browser, page, problems, tmp, idle;

before(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'attnscope-long-'));
  writeBertFixture(join(tmp, 'long'), { layers: 12, heads: 12, hidden: HIDDEN, intermediate: 4 * HIDDEN,
    maxPositions: 512, mlm: false, seed: 11 });
  server = await startServer();
  browser = await launchBrowser();
  ({ page, problems } = await guardedPage(browser, server.origin));
  await page.goto(server.origin + '/');
  await waitForRuns(page, 1);
  idle = await idleFrames(page);   // the page's own frame interval, nothing running
  console.log(`# idle page: frame ${idle.frameMs.toFixed(1)} ms, longest gap ${idle.maxGap.toFixed(0)} ms over ${idle.frames} frames`);
  // Long tasks (> 50 ms on the main thread) from here on.
  await page.evaluate(() => {
    window.__longTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__longTasks.push({ start: e.startTime, ms: e.duration });
    }).observe({ type: 'longtask', buffered: false });
  });
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

const longTasksSince = (t) => page.evaluate((t0) => window.__longTasks.filter((e) => e.start >= t0), t);
const now = () => page.evaluate(() => performance.now());

test('a 512-position 12×12 model loads from a folder and 600 words are truncated, with notice', async () => {
  const runs = await page.evaluate(() => window.__attnscope.runsDone);
  await page.locator('#model-select').selectOption('__local');
  await page.locator('#folder-input').setInputFiles(join(tmp, 'long'));
  await page.waitForFunction((r) => window.__attnscope.runsDone > r && window.__attnscope.info?.source === 'files', runs, { timeout: 60000 });
  const words = Array.from({ length: 600 }, (_, i) => FIXTURE_WORDS[(i * 7) % FIXTURE_WORDS.length]).join(' ');
  const before = await page.evaluate(() => window.__attnscope.runsDone);
  const t0 = Date.now();
  await page.locator('#text-a').fill(words);
  await page.waitForFunction((b) => window.__attnscope.runsDone > b && document.body.dataset.status === 'ready', before, { timeout: 90000 });
  console.log(`# 512-token run (hidden ${HIDDEN}) shown after ${Date.now() - t0} ms`);
  const { shape, numTruncated } = await page.evaluate(() => ({ shape: window.__attnscope.shape, numTruncated: window.__attnscope.numTruncated }));
  assert.deepEqual(shape, [12, 12, 512, 512]);
  assert.equal(numTruncated, 600 + 2 - 512);
  const notice = await page.locator('#truncation').textContent();
  assert.ok(await page.locator('#truncation').isVisible());
  assert.match(notice, /90/);
  assert.match(notice, /512/);
});

test('the model view draws 144 heads of 512×512 without blocking the page', async () => {
  const t0 = await now();
  await page.locator('[role=tab][data-view=grid]').click();
  await page.waitForFunction(() => Number(document.querySelector('canvas.model-grid')?.dataset.rendered) === 144, null, { timeout: 60000 });
  const ms = (await now()) - t0;
  const tasks = await longTasksSince(t0);
  const worst = Math.max(0, ...tasks.map((e) => e.ms));
  console.log(`# model view: 144 thumbnails in ${ms.toFixed(0)} ms; long tasks ${tasks.length}, longest ${worst.toFixed(0)} ms`);
  // The draw is spread over many tasks: none holds a third of it. A freeze (the whole grid in one
  // task, or rollout on the main thread) is one task about as long as the whole draw.
  assert.ok(worst < ms / 3, `a ${worst} ms task of a ${ms} ms draw blocked the page`);
});

test('head detail at 512 tokens: hover redraws fit in a frame, the tooltip is exact', async () => {
  await page.locator('[role=tab][data-view=head]').click();
  const overlay = page.locator('.view-head .heatmap-overlay');
  await overlay.waitFor();
  await overlay.scrollIntoViewIfNeeded();
  const g = await overlay.evaluate((c) => ({ ...c.dataset }));
  assert.equal(Number(g.n), 512);
  const box = await overlay.boundingBox();
  const grid = Number(g.cell) * 512;
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const t0 = await now();
  const draws = [];
  for (let k = 0; k < 40; k++) {
    const x = box.x + Number(g.labelW) + ((k * 37) % 100) / 100 * grid;
    const y = box.y + Number(g.labelH) + ((k * 53) % 100) / 100 * grid;
    await page.mouse.move(x, y);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    draws.push(Number(await overlay.evaluate((c) => c.dataset.drawMs)));
  }
  const tasks = await longTasksSince(t0);
  const worst = Math.max(...draws);
  draws.sort((a, b) => a - b);
  console.log(`# hover at 512: overlay redraw median ${draws[20].toFixed(2)} ms, max ${worst.toFixed(2)} ms; long tasks ${tasks.length}`);
  // Each redraw fits in one of the page's idle frames; no task while hovering holds more than a
  // few of them.
  assert.ok(worst < idle.frameMs, `hover redraw took ${worst} ms, the idle page's frame ${idle.frameMs} ms`);
  assert.ok(tasks.every((e) => e.ms < 6 * idle.frameMs), `long tasks while hovering: ${JSON.stringify(tasks)} (frame ${idle.frameMs} ms)`);
  // Keyboard: Event Timing measures each keydown from input to the next paint (handler, overlay
  // redraw, tooltip layout and paint included); entries appear only at ≥ 16 ms.
  await page.evaluate(() => {
    window.__slowKeys = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) if (e.name === 'keydown') window.__slowKeys.push(e.duration);
    }).observe({ type: 'event', durationThreshold: 16 });
  });
  await overlay.focus();
  for (let k = 0; k < 30; k++) {
    await page.keyboard.press(k % 2 ? 'ArrowRight' : 'ArrowDown');
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  }
  const slowKeys = (await page.evaluate(() => window.__slowKeys)).sort((a, b) => a - b);
  const median = slowKeys.length > 15 ? slowKeys[slowKeys.length - 15] : 0;   // of all 30 presses
  console.log(`# keyboard at 512: key-to-paint median ${median > 0 ? median + ' ms' : '< 16 ms'}, ` +
    `max ${slowKeys.length ? slowKeys.at(-1) + ' ms' : '< 16 ms'}`);
  // Event Timing includes waiting for the frame and the software compositor of headless Chromium:
  // the median key reaches the screen within 3 of the page's idle frames, the slowest within 15.
  assert.ok(median < 3 * idle.frameMs, `median key press to paint ${median} ms (frame ${idle.frameMs} ms)`);
  assert.ok(slowKeys.every((d) => d < 15 * idle.frameMs), `slow key presses: ${slowKeys} (frame ${idle.frameMs} ms)`);
  const tip = await page.locator('.view-head .tooltip[data-row]').evaluate((t) => ({ text: t.textContent, i: Number(t.dataset.row), j: Number(t.dataset.col) }));
  const value = await page.evaluate(([i, j]) => {
    const s = window.__attnscope.state;
    return window.__attnscope.shown(s.layer, s.head)[i * 512 + j];
  }, [tip.i, tip.j]);
  assert.ok(tip.text.endsWith(': ' + value.toFixed(4)), tip.text);
});

test('lines, formula and aggregates render at 512 tokens', async () => {
  for (const view of ['lines', 'formula', 'aggregates']) {
    const t0 = await now();
    await page.locator(`[role=tab][data-view=${view}]`).click();
    if (view === 'aggregates') {
      await page.waitForFunction(() => document.querySelector('.agg-panel[data-kind=rollout]')?.dataset.ready === '1', null, { timeout: 60000 });
    } else if (view === 'lines') {
      await page.waitForFunction(() => document.querySelector('canvas.lines')?.dataset.drawn === '12', null, { timeout: 60000 });
    } else {
      await page.waitForFunction((v) => !document.querySelector(`.view-${v}`)?.hidden, view);
    }
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const ms = (await now()) - t0;
    const tasks = await longTasksSince(t0);
    const worst = Math.max(0, ...tasks.map((e) => e.ms));
    // A benchmark figure, printed: no same-run measure says how long these views may take.
    console.log(`# ${view} at 512: shown in ${ms.toFixed(0)} ms, longest task ${worst.toFixed(0)} ms`);
  }
  const f = await page.evaluate(() => window.__attnscope.formula);
  assert.ok(f.maxError < 1e-5, `formula vs engine row: ${f.maxError}`);
});

test('no console errors, uncaught errors or foreign requests at 512 tokens', () => {
  assert.deepEqual(problems, []);
});
