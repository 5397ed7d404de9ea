// Regenerates docs/screenshots/: every view at desktop (1280×800) and phone (390×844) size, plus
// the Korean UI, with the bundled model. Not a test (it writes files in the repo): run it by hand
// after changing the page — `node tests/e2e/screenshots.mjs` — and look at the results.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { guardedPage, launchBrowser, startServer, waitForRuns } from './helpers.js';

const OUT = join(import.meta.dirname, '../../docs/screenshots');
const SIZES = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } };
const TEXT = 'The cat sat on the mat because it was tired.';
const SHOTS = [
  ['grid', `view=grid`],
  ['head', `view=head&layer=1&head=0&sel=2,3`],
  ['lines', `view=lines&layer=1`],
  ['formula', `view=formula&layer=1&head=0&q=2`],
  ['aggregates', `view=aggregates&layer=1&head=0`],
  ['korean-formula', `view=formula&layer=1&head=0&q=2&lang=ko`],
];

mkdirSync(OUT, { recursive: true });
const server = await startServer();
const browser = await launchBrowser();
try {
  for (const [size, viewport] of Object.entries(SIZES)) {
    for (const [name, query] of SHOTS) {
      const { page, context, problems } = await guardedPage(browser, server.origin, viewport);
      await page.goto(`${server.origin}/?text=${encodeURIComponent(TEXT)}&${query}`);
      await waitForRuns(page, 1);
      await page.waitForTimeout(800);   // chunked drawing, rollout worker
      await page.locator('#view-host').screenshot({ path: join(OUT, `${name}-${size}.png`) });
      if (name === 'grid') await page.screenshot({ path: join(OUT, `page-${size}.png`), fullPage: true });
      if (problems.length) console.error(name, size, problems);
      await context.close();
    }
    // The diff view after masking token 3.
    const { page, context } = await guardedPage(browser, server.origin, viewport);
    await page.goto(`${server.origin}/?text=${encodeURIComponent(TEXT)}&view=head&layer=1&sel=3`);
    await waitForRuns(page, 1);
    await page.locator('#mask-btn').click();
    await page.waitForFunction(() => window.__attnscope.edit);
    await page.waitForTimeout(500);
    await page.locator('#view-host').screenshot({ path: join(OUT, `diff-${size}.png`) });
    await context.close();
  }
  console.log(`screenshots written to ${OUT}`);
} finally {
  await browser.close();
  await server.close();
}
