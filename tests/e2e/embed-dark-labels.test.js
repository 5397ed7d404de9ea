// The dark theme's head view (found in a newcomer pass): the heatmap is drawn on its own white
// (so a saved PNG reads anywhere), and its token labels must be dark on it — they took the
// theme's light text colour and were white on white. The row-label strip's darkest pixel is read
// back from the canvas, in both themes.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { elementPage, ensureBuilt, guardedPage, launchBrowser, startServer, waitForElements } from './embed-helpers.js';

let server, browser;
before(async () => {
  await ensureBuilt();
  server = await startServer({ pages: { '/t.html': elementPage(['light', 'dark'].map((theme) =>
    `<attn-scope id="${theme}" theme="${theme}" view="head" text="The cat sat on the mat."></attn-scope>`).join('')) } });
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

test('heatmap token labels are dark on the heatmap\'s white in the light and the dark theme', async () => {
  const { page, check } = await guardedPage(browser);
  await page.goto(`${server.origin}/t.html`);
  await waitForElements(page, 2);
  for (const theme of ['light', 'dark']) {
    const darkest = await page.evaluate((id) => {
      const canvas = document.getElementById(id).shadowRoot.querySelector('.heatmap canvas');
      const ctx = canvas.getContext('2d');
      // The left strip (row labels), below the column labels: no cells there, only text.
      const strip = ctx.getImageData(0, Math.floor(canvas.height * 0.3), Math.floor(canvas.width * 0.12), Math.floor(canvas.height * 0.6)).data;
      let min = 255;
      for (let i = 0; i < strip.length; i += 4) min = Math.min(min, (strip[i] + strip[i + 1] + strip[i + 2]) / 3);
      return min;
    }, theme);
    assert.ok(darkest < 90, `${theme}: the labels' darkest pixel is ${darkest} (white on white is ~200+)`);
  }
  assert.deepEqual(await check(), []);
  await page.context().close();
});
