// Screenshots of a Llama-layout folder in the page, at desktop (1280×800) and phone
// (390×844) size, English and Korean: the layer × head grid with its K/V groups, the formula
// naming the shared K/V head, the rotary Positions view, the head table with the induction
// column, the Block walk through the Llama layer and the Contributions split. `node tests/e2e/llama-screenshots.mjs` writes docs/screenshots/llama-*.png; then look at
// them. The folder is tests/fixtures/llama_page (random weights, a Llama 2-layout tokenizer).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { waitForRuns } from './helpers.js';
import { forEachScreen } from './screenshot-matrix.js';

const FOLDER = join(import.meta.dirname, '../fixtures/llama_page');
const out = join(import.meta.dirname, '../../docs/screenshots');
mkdirSync(out, { recursive: true });

const problems = await forEachScreen(async ({ size, lang, origin, newPage }) => {
  const { page } = await newPage();
  await page.goto(`${origin}/?lang=${lang}&q=4&layer=1&head=5`);
  await waitForRuns(page, 1);
  const runs = await page.evaluate(() => window.__attnscope.runsDone);
  await page.locator('#model-select').selectOption('__local');
  await page.locator('#folder-input').setInputFiles(FOLDER);
  await page.waitForFunction((r) => window.__attnscope.runsDone > r && window.__attnscope.info?.config.family === 'llama', runs, { timeout: 60000 });
  await waitForRuns(page, runs + 1);
  const shot = async (view, name, ready) => {
    await page.locator(`[role=tab][data-view="${view}"]`).click();
    await page.waitForFunction(ready, null, { timeout: 60000 });
    await page.waitForTimeout(200);   // the frame after the data is in
    await page.locator('#view-host').screenshot({ path: join(out, `llama-${name}-${lang}-${size}.png`) });
  };
  await shot('grid', 'grid', () => Number(document.querySelector('canvas.model-grid')?.dataset.rendered) > 0);
  await shot('formula', 'formula', () => window.__attnscope.formula !== null);
  await shot('positions', 'rotary', () => document.querySelector('.view-positions')?.dataset.ready === '1');
  await shot('heads', 'heads', () => window.__attnscope.heads?.rows?.[0]?.inductionScore !== undefined);
  await shot('block', 'block', () => window.__attnscope.block?.family === 'llama');
  await shot('contributions', 'contributions', () => document.querySelector('.contrib-list li') !== null);
  if (size === 'desktop') await page.screenshot({ path: join(out, `llama-page-${lang}-${size}.png`) });
});
if (problems.length) {
  console.error(problems.join('\n'));
  process.exitCode = 1;
} else console.log('llama screenshots written, clean console');
