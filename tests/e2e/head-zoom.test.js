// On a long input the head view's heatmap has cells too small for labels (128 tokens: 5.6 px); a
// close-up window shows a 32×32 block with its token labels, and follows the cell clicked in
// the full map. Its cells are checked against the page's own matrix (window.__attnscope).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser, waitForRuns } from './helpers.js';

const LONG = 'the cat sat on the mat because it was tired . '.repeat(30).trim();   // 330 words, cut to the model's 128 tokens
const env = serverAndBrowser();

test('a long input gets a labelled close-up of the head that follows the clicked cell', async () => {
  const context = await env.browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console.error: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`uncaught: ${e.message}`));
  try {
    await page.goto(`${env.server.origin}/?text=${encodeURIComponent(LONG)}&view=head&layer=1&head=0`);
    await waitForRuns(page, 1);
    const T = (await page.evaluate(() => window.__attnscope.shape))[2];
    assert.ok(T >= 128, `only ${T} tokens`);   // the bundled model takes 128: 5.6 px cells at 1280 px
    const zoom = page.locator('.head-zoom');
    await zoom.waitFor({ state: 'visible' });
    assert.equal(await zoom.getAttribute('data-rows'), '0-31');
    // The full map has no room for labels (label column 0); the close-up has one.
    const labelW = await page.evaluate(() => ['.view-head .heatmap-overlay', '.head-zoom .heatmap-zoom-overlay']
      .map((sel) => Number(document.querySelector(sel).dataset.labelW)));
    assert.equal(labelW[0], 0);
    assert.ok(labelW[1] > 0);
    // Click the full map at cell (100, 110): the window moves there and the query is selected.
    const full = page.locator('.view-head .heatmap-overlay').first();
    const box = await full.boundingBox();
    const cell = box.width / T;
    await full.click({ position: { x: (110 + 0.5) * cell, y: (100 + 0.5) * cell } });
    await page.waitForFunction(() => window.__attnscope.state.selected.length === 1);
    const [row] = await page.evaluate(() => window.__attnscope.state.selected);
    assert.ok(Math.abs(row - 100) <= 1, `clicked row ${row}`);
    await page.waitForFunction((r) => document.querySelector('.head-zoom').dataset.rows === `${r - 16}-${r + 15}`, row);
    // The hovered close-up cell names the right tokens and weight.
    const zoomOverlay = page.locator('.head-zoom .heatmap-zoom-overlay');
    const zbox = await zoomOverlay.boundingBox();
    const geo = await page.evaluate(() => {
      const o = document.querySelector('.head-zoom .heatmap-zoom-overlay').dataset;
      return { labelW: Number(o.labelW), labelH: Number(o.labelH), cell: Number(o.cell) };
    });
    assert.ok(geo.labelW > 0 && geo.cell >= 9, `close-up without labels: ${JSON.stringify(geo)}`);
    await zoomOverlay.hover({ position: { x: geo.labelW + 3.5 * geo.cell, y: geo.labelH + 2.5 * geo.cell } });
    const tip = page.locator('.head-zoom .tooltip');
    await tip.waitFor({ state: 'visible' });
    // Independent of the close-up's code: the engine's raw matrix at the window's (2, 3).
    const expected = await page.evaluate(({ i, j }) => {
      const h = window.__attnscope, T = h.shape[2];
      return `#${i} ${h.tokens[i]} → #${j} ${h.tokens[j]}: ${h.raw(1, 0)[i * T + j].toFixed(4)}`;
    }, { i: row - 16 + 2, j: Number((await zoom.getAttribute('data-cols')).split('-')[0]) + 3 });
    assert.equal(await tip.textContent(), expected);
    assert.ok(zbox.width > 200);
    const cols = (await zoom.getAttribute('data-cols')).split('-').map(Number);
    assert.ok(cols[0] <= 110 && cols[1] >= 109, `columns ${cols} do not hold the clicked cell`);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
