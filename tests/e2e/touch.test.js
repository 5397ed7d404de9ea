// Touch on a phone (390×844, touch, DPR 2): a tap on a token in the lines view
// selects it and follows its lines (there is no hover to do that), and after Mask on a phone —
// where the views sit above the controls — the diff comes into view.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser, waitForRuns } from './helpers.js';

const TEXT = 'The cat sat on the mat because it was tired.';
const env = serverAndBrowser();

async function openPhone(query) {
  const context = await env.browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, deviceScaleFactor: 2 });
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console.error: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`uncaught: ${e.message}`));
  await page.goto(`${env.server.origin}/?text=${encodeURIComponent(TEXT)}&${query}`);
  await waitForRuns(page, 1);
  return { page, context, problems };
}

test('a tap on a token in the lines view selects it and shows its lines; a second tap unselects it', async () => {
  const g = await openPhone('view=lines&layer=1');
  try {
    const canvas = g.page.locator('canvas.lines');
    await canvas.scrollIntoViewIfNeeded();
    const box = await canvas.boundingBox();
    const tokens = await g.page.evaluate(() => window.__attnscope.tokens);
    const a = tokens.indexOf('cat');
    assert.ok(a > 0);
    // Rows are 20 px from y = 4 for short inputs; the query labels are on the left.
    const at = { x: box.x + 12, y: box.y + 4 + (a + 0.5) * 20 };
    await g.page.touchscreen.tap(at.x, at.y);
    await g.page.waitForFunction((p) => window.__attnscope.state.selected.includes(p), a);
    assert.equal(await canvas.getAttribute('data-focus'), `left:${a}`, 'the tapped token\'s lines are not shown');
    await g.page.touchscreen.tap(at.x, at.y);
    await g.page.waitForFunction((p) => !window.__attnscope.state.selected.includes(p), a);
    assert.deepEqual(g.problems, []);
  } finally {
    await g.context.close();
  }
});

test('after Mask on a phone the diff is scrolled into view', async () => {
  const g = await openPhone('view=head&layer=1&sel=3');
  try {
    const mask = g.page.locator('#mask-btn');
    await mask.scrollIntoViewIfNeeded();
    const before = await g.page.evaluate(() => document.querySelector('.tabs').getBoundingClientRect().top);
    assert.ok(before < 0, `the views are not above the controls here (tabs at ${before})`);
    await mask.tap();
    await g.page.waitForFunction(() => window.__attnscope.edit && window.__attnscope.state.view === 'diff');
    await g.page.waitForFunction(() => {
      const top = document.querySelector('.tabs').getBoundingClientRect().top;
      return top >= -1 && top <= window.innerHeight / 2;   // (sub-pixel: the tabs can sit at -0.5)
    }, null, { timeout: 5000 });
    assert.ok(await g.page.locator('.view-diff').isVisible());
    assert.deepEqual(g.problems, []);
  } finally {
    await g.context.close();
  }
});
