// Screenshots of a Marian folder as the hub ships it (source.spm + target.spm + vocab.json, no
// tokenizer.json) loaded in the page, at desktop (1280×800) and phone (390×844) size, English and
// Korean: the page on the cross view with a language-coded source and a typed target (tokenized
// by target.spm), and the model picker offering Helsinki-NLP/opus-mt-en-de with its download size
// (no "cannot load" note any more). `node tests/e2e/marian-screenshots.mjs` writes
// build/screenshots/marian-*.png; then look at them. The folder is tests/fixtures/tokenizer/marian
// (random weights).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { guardedPage, launchBrowser, startServer, waitForRuns } from './helpers.js';

const SIZES = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } };
const FOLDER = join(import.meta.dirname, '../fixtures/tokenizer/marian');
const out = join(import.meta.dirname, '../../build/screenshots');
mkdirSync(out, { recursive: true });

const server = await startServer();
const browser = await launchBrowser();
const problems = [];
try {
  for (const lang of ['en', 'ko']) {
    for (const [size, viewport] of Object.entries(SIZES)) {
      const { page, context, problems: seen } = await guardedPage(browser, server.origin, viewport);
      await page.goto(`${server.origin}/?${new URLSearchParams({ lang, view: 'cross', text: '>>de<< Hello world', tgt: 'Hallo Welt' })}`);
      await waitForRuns(page, 1);
      await page.locator('#model-select').selectOption('Helsinki-NLP/opus-mt-en-de');
      await page.waitForFunction(() => !document.querySelector('#hub-size').hidden);
      await page.locator('#hub-size').evaluate((el) => el.closest('div, p, section').scrollIntoView());
      await page.screenshot({ path: join(out, `marian-picker-${lang}-${size}.png`) });
      const runs = await page.evaluate(() => window.__attnscope.runsDone);
      await page.locator('#model-select').selectOption('__local');
      await page.locator('#folder-input').setInputFiles(FOLDER);
      await page.waitForFunction((r) => window.__attnscope.runsDone > r && window.__attnscope.info?.kind === 'encoder-decoder', runs, { timeout: 120000 });
      await page.waitForFunction(() => document.querySelector('.view-cross .heatmap-overlay')?.dataset.n, null, { timeout: 60000 });
      await page.waitForTimeout(300);
      await page.screenshot({ path: join(out, `marian-page-${lang}-${size}.png`), fullPage: size === 'phone' });
      problems.push(...seen.map((p) => `${lang}-${size}: ${p}`));
      await context.close();
    }
  }
} finally {
  await browser.close();
  await server.close();
}
if (problems.length) {
  console.error(problems.join('\n'));
  process.exitCode = 1;
} else console.log('marian screenshots written, clean console');
