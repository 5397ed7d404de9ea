// Screenshots of an encoder–decoder folder in the page, at desktop (1280×800) and
// phone (390×844) size, English and Korean: the whole page on the cross view with the known
// alignment, the cross-attention grid, the decoder's self-attention head, and the head table's
// alignment accuracy. `node tests/e2e/seq2seq-screenshots.mjs` writes build/screenshots/seq2seq-*.png;
// then look at them. The folder is tests/fixtures/seq2seq_page (random weights).
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitForRuns } from './helpers.js';
import { forEachScreen } from './screenshot-matrix.js';

const FOLDER = join(import.meta.dirname, '../fixtures/seq2seq_page');
const [PAIR] = readFileSync(join(FOLDER, 'heldout.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
const out = join(import.meta.dirname, '../../build/screenshots');
mkdirSync(out, { recursive: true });

const problems = await forEachScreen(async ({ size, lang, origin, newPage }) => {
  const { page } = await newPage();
  await page.goto(`${origin}/?${new URLSearchParams({ lang, view: 'cross', layer: '1', head: '1', text: PAIR.source, tgt: PAIR.target })}`);
  await waitForRuns(page, 1);
  const runs = await page.evaluate(() => window.__attnscope.runsDone);
  await page.locator('#model-select').selectOption('__local');
  await page.locator('#folder-input').setInputFiles(FOLDER);
  await page.waitForFunction((r) => window.__attnscope.runsDone > r && window.__attnscope.info?.kind === 'encoder-decoder', runs, { timeout: 60000 });
  await waitForRuns(page, runs + 1);
  await page.waitForFunction(() => document.querySelector('.view-cross .heatmap-overlay')?.dataset.n);
  await page.waitForTimeout(200);
  await page.screenshot({ path: join(out, `seq2seq-page-${lang}-${size}.png`), fullPage: size === 'phone' });
  await page.locator('#view-host').screenshot({ path: join(out, `seq2seq-cross-${lang}-${size}.png`) });
  const shot = async (patch, name, ready) => {
    await page.evaluate((p) => {
      if (p.view) document.querySelector(`[role=tab][data-view="${p.view}"]`).click();
      if (p.kind) document.querySelector(`#kind-switch [data-kind="${p.kind}"]`).click();
    }, patch);
    await page.waitForFunction(ready, null, { timeout: 60000 });
    await page.waitForTimeout(200);
    // From the tabs to the view's end (the attention switch between them).
    const clip = await page.evaluate(() => {
      const a = document.querySelector('.tabs').getBoundingClientRect(), b = document.querySelector('#view-host').getBoundingClientRect();
      return { x: Math.min(a.left, b.left), y: a.top + window.scrollY, width: Math.max(a.right, b.right) - Math.min(a.left, b.left), height: b.bottom - a.top };
    });
    await page.screenshot({ path: join(out, `seq2seq-${name}-${lang}-${size}.png`), clip, fullPage: true });
  };
  await shot({ view: 'grid', kind: 'cross' }, 'grid-cross', () => document.querySelector('canvas.cross-grid')?.dataset.rendered);
  await shot({ view: 'head', kind: 'dec' }, 'head-dec', () => document.querySelector('.view-head .heatmap-overlay')?.dataset.n);
  await shot({ view: 'heads' }, 'heads', () => document.querySelector('table.cross-heads tr[data-kind="diagonal"]'));
  await page.locator('#seq2seq-panel').screenshot({ path: join(out, `seq2seq-target-${lang}-${size}.png`) });
});
if (problems.length) {
  console.error(problems.join('\n'));
  process.exitCode = 1;
} else console.log('seq2seq screenshots written, clean console');
