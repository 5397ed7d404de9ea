// What a newcomer pass found, the items no other file checks, on the page as it is:
// arrow-key moves on the head heatmap and the grid are said through a live region; on a phone a
// table wider than the screen (the formula's score table, the head table) says it scrolls and
// fades its cut edge; the Generate panel shows the tokens it writes inside itself (the chips they
// join are a screen above on a phone); the query/key map's caption no longer says queries land
// near the keys they attend to, in either language. One page per viewport.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { guardedPage, launchBrowser, startServer, waitForRuns, keepScreenshot } from './helpers.js';
import { translate } from '../../web/src/i18n/i18n.js';

const PHONE = { width: 390, height: 844 };
let server, browser;
before(async () => {
  server = await startServer();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

test('arrow keys on the head heatmap and on the grid are announced (aria-live), naming the cell', async () => {
  const { page, context, problems } = await guardedPage(browser, server.origin);
  try {
    await page.goto(`${server.origin}/?view=head&layer=1&head=2`);
    await waitForRuns(page, 1);
    const region = page.locator('.view-head .heatmap [aria-live="polite"]');
    assert.equal(await region.count(), 1, 'the heatmap has no live region');
    await page.locator('.view-head .heatmap-overlay').focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowDown');
    const tokens = await page.evaluate(() => window.__attnscope.tokenTexts);
    const weight = await page.evaluate(() => { const m = window.__attnscope.shown(1, 2); return m[Math.sqrt(m.length) + 1]; });
    // Row 1 → column 1 after → and ↓ from (0, 0): "#1 the → #1 the: 0.1234" (the tooltip's words).
    await page.waitForFunction(() => /→/.test(document.querySelector('.view-head .heatmap [aria-live]').textContent));
    const said = await region.textContent();
    assert.ok(said.startsWith(`#1 ${tokens[1]} → #1 ${tokens[1]}: ${weight.toFixed(4)}`), `said "${said}"`);
    assert.equal(await page.locator('.view-head .tooltip').getAttribute('aria-hidden'), 'true', 'the tooltip would be read twice');
    // The grid: a move says the layer and head it lands on.
    await page.locator('[role=tab][data-view=grid]').click();
    await page.locator('canvas.model-grid').focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowRight');
    const grid = await page.locator('.view-grid [aria-live="polite"]').textContent();
    assert.ok(grid.startsWith(translate('en', 'layerHead', { layer: 2, head: 3 })), `grid said "${grid}"`);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('phone: the formula\'s score table and the head table say they scroll sideways; tabs are 44 px', async () => {
  const { page, context, problems } = await guardedPage(browser, server.origin, PHONE);
  try {
    for (const [view, table] of [['formula', '.formula-table'], ['heads', '.heads-table']]) {
      await page.goto(`${server.origin}/?view=${view}&lang=${view === 'heads' ? 'ko' : 'en'}`);
      await waitForRuns(page, 1);
      const box = page.locator(`.view-${view} .table-scroll:has(${table})`);
      await box.waitFor();
      await page.waitForFunction((sel) => !document.querySelector(sel).previousElementSibling.hidden, `.view-${view} .table-scroll:has(${table})`);
      const got = await box.evaluate((el) => ({ wider: el.scrollWidth > el.clientWidth, more: el.hasAttribute('data-more'),
        hint: el.previousElementSibling.textContent, fits: el.getBoundingClientRect().right <= window.innerWidth }));
      assert.ok(got.wider && got.fits, `${view}: the table should scroll inside the screen`);
      assert.ok(got.more, `${view}: the cut edge is not marked`);
      assert.equal(got.hint, translate(view === 'heads' ? 'ko' : 'en', 'scrollMore'));
      // Scrolled to its end: nothing more to the right.
      await box.evaluate((el) => { el.scrollLeft = el.scrollWidth; });
      await page.waitForFunction((sel) => !document.querySelector(sel).hasAttribute('data-more'), `.view-${view} .table-scroll:has(${table})`);
      await page.locator(`.view-${view} .scroll-hint`).scrollIntoViewIfNeeded();
      await keepScreenshot(page, `scroll-hint-${view}-phone.png`);
    }
    const tabHeights = await page.locator('[role=tab]:visible').evaluateAll((tabs) => tabs.map((t) => t.getBoundingClientRect().height));
    assert.ok(Math.min(...tabHeights) >= 44, `tabs ${Math.min(...tabHeights)} px`);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('phone: the Generate panel shows the new tokens where its button is', async () => {
  const { page, context, problems } = await guardedPage(browser, server.origin, PHONE);
  try {
    await page.goto(`${server.origin}/?model=bundled-causal&text=${encodeURIComponent('Once upon a time')}&gn=6&gt=0`);
    await waitForRuns(page, 1);
    await page.locator('#gen-start').scrollIntoViewIfNeeded();
    await page.locator('#gen-start').click();
    await page.waitForFunction(() => !document.body.dataset.generating && window.__attnscope.generation?.done, null, { timeout: 60000 });
    const written = page.locator('#gen-written mark');
    const steps = await page.evaluate(() => window.__attnscope.generation.steps.map((s) => s.text));
    assert.ok(steps.length > 0);
    assert.deepEqual(await written.allTextContents(), steps.map((t) => t.replace(/ /g, '␣') || '∅'));
    assert.equal(await page.locator('#chips .chip.generated').count(), steps.length);
    // In sight together with the button that wrote them (the chips are above, off screen).
    const [button, list] = [await page.locator('#gen-start').boundingBox(), await page.locator('#gen-written').boundingBox()];
    for (const [name, b] of [['button', button], ['new tokens', list]]) {
      assert.ok(b.y >= 0 && b.y + b.height <= PHONE.height, `${name} at ${Math.round(b.y)} px is off the screen`);
    }
    await keepScreenshot(page, 'generate-phone.png');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('the query/key map\'s caption: attention is a dot product, not a distance (EN, KO)', () => {
  const en = translate('en', 'mapHintDone', { a: 40, b: 20 });
  assert.match(en, /dot product, not a distance/);
  assert.doesNotMatch(en, /land near|close to the keys/i);
  const ko = translate('ko', 'mapHintDone', { a: 40, b: 20 });
  assert.match(ko, /거리가 아니라 내적/);
});
