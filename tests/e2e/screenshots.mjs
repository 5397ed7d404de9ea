// Screenshots of every view at desktop (1280×800) and phone (390×844) size, plus the Korean UI,
// with the bundled model, for a developer to look at: `node tests/e2e/screenshots.mjs` regenerates
// docs/screenshots/ by hand after changing the page — then look at the results, and say if a page
// logged a problem. (CI no longer takes them: 77 s of the page tests for images nobody saw there;
// each view's own test keeps its console clean.)
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { guardedPage, launchBrowser, startServer, waitForRuns } from './helpers.js';

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

// Writes the PNGs into `out`; returns their paths and every console/page problem seen.
export async function takeScreenshots(out) {
  mkdirSync(out, { recursive: true });
  const files = [], problems = [];
  const server = await startServer();
  const browser = await launchBrowser();
  const shoot = async (locator, name) => {
    const path = join(out, `${name}.png`);
    await locator.screenshot({ path });
    files.push(path);
  };
  try {
    for (const [size, viewport] of Object.entries(SIZES)) {
      for (const [name, query] of SHOTS) {
        const { page, context, problems: seen } = await guardedPage(browser, server.origin, viewport);
        await page.goto(`${server.origin}/?text=${encodeURIComponent(TEXT)}&${query}`);
        await waitForRuns(page, 1);
        await page.waitForTimeout(800);   // chunked drawing, rollout worker
        await shoot(page.locator('#view-host'), `${name}-${size}`);
        if (name === 'grid') {
          const path = join(out, `page-${size}.png`);
          await page.screenshot({ path, fullPage: true });
          files.push(path);
        }
        if (name === 'grid' || name === 'korean-formula') {
          // The first screen a visitor sees (viewport only), in English and Korean.
          const path = join(out, `first-screen-${name === 'grid' ? 'en' : 'ko'}-${size}.png`);
          await page.evaluate(() => window.scrollTo(0, 0));
          await page.screenshot({ path });
          files.push(path);
        }
        problems.push(...seen.map((p) => `${name}-${size}: ${p}`));
        await context.close();
      }
      // The diff view after masking token 3.
      const { page, context, problems: seen } = await guardedPage(browser, server.origin, viewport);
      await page.goto(`${server.origin}/?text=${encodeURIComponent(TEXT)}&view=head&layer=1&sel=3`);
      await waitForRuns(page, 1);
      await page.locator('#mask-btn').click();
      await page.waitForFunction(() => window.__attnscope.edit);
      await page.waitForTimeout(500);
      await shoot(page.locator('#view-host'), `diff-${size}`);
      problems.push(...seen.map((p) => `diff-${size}: ${p}`));
      await context.close();
    }
  } finally {
    await browser.close();
    await server.close();
  }
  return { files, problems };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const out = join(import.meta.dirname, '../../docs/screenshots');
  const { files, problems } = await takeScreenshots(out);
  if (problems.length) { console.error(problems.join('\n')); process.exitCode = 1; }
  console.log(`${files.length} screenshots written to ${out}`);
}
