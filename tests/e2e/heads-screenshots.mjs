// Screenshots of the head-probing views (head table, ablation, query/key map) with the bundled model, at desktop (1280×800) and phone
// (390×844) size, English and Korean: the head table (with corpus statistics and ablation
// effects computed), the query/key map (coloured by POS, one point hovered) and an ablation diff
// (layer 0 head 1 switched off). `node tests/e2e/heads-screenshots.mjs` writes docs/screenshots/
// heads-*.png, map-*.png, ablation-*.png and prints how long the corpus computations took; then
// look at them. (The corpus statistics, the maps and the ablation effects are computed in the
// page's model worker.)
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { waitForRuns } from './helpers.js';
import { forEachScreen } from './screenshot-matrix.js';

const TEXT = 'The [MASK] sat on the mat because it was tired.';
const out = join(import.meta.dirname, '../../docs/screenshots');
mkdirSync(out, { recursive: true });

const problems = await forEachScreen(async ({ size, lang, origin, newPage }) => {
  const { page, context } = await newPage();
  const url = (q) => `${origin}/?text=${encodeURIComponent(TEXT)}&lang=${lang}&${q}`;
  await page.goto(url('view=heads'));
  await waitForRuns(page, 1);
  await page.locator('.heads-corpus').click();   // (the layer and head columns stay in view, sticky)
  await page.waitForFunction(() => window.__attnscope.heads?.corpusMs != null, null, { timeout: 120000 });
  await page.locator('.heads-ablate').click();
  await page.waitForFunction(() => window.__attnscope.heads?.ablationMs != null, null, { timeout: 600000 });
  const h = await page.evaluate(() => window.__attnscope.heads);
  console.log(`${lang}-${size}: corpus statistics ${(h.corpusMs / 1000).toFixed(2)} s, ablation effects ${(h.ablationMs / 1000).toFixed(1)} s`);
  await page.locator('.heads-table th button[data-sort="delta"]').click();
  await page.locator('.heads-table th button[data-sort="delta"]').click();   // ascending: the heads that matter most first
  await page.evaluate(() => { const el = document.querySelector('.table-scroll'); el.scrollLeft = el.scrollWidth; });
  await page.locator('#view-host').screenshot({ path: join(out, `heads-${lang}-${size}.png`) });

  await page.locator('[role=tab][data-view="map"]').click();
  await page.waitForFunction(() => window.__attnscope.qkMap?.points > 0);
  await page.locator('.view-map .layer-picker select').selectOption('0');
  await page.locator('.view-map .head-picker select').selectOption('1');
  await page.locator('.view-map .colour-picker select').selectOption('2');
  // Each head's map is projected in the worker: wait for layer 0 head 1's to be on screen.
  await page.waitForFunction(() => window.__attnscope.qkMap?.head?.join(':') === '0:1' &&
    document.querySelector('.map-controls progress').hidden);
  const m = await page.evaluate(() => window.__attnscope.qkMap);
  console.log(`${lang}-${size}: map 0:1 projected in the worker in ${m.projectionMs.toFixed(0)} ms (${m.mapWallMs.toFixed(0)} ms with the round trip), ${m.points} points`);
  const box = await page.locator('canvas.qk-map').boundingBox();
  for (let k = 0; k < 30; k++) {
    await page.mouse.move(box.x + box.width * (0.35 + 0.01 * k), box.y + box.height * (0.45 + 0.005 * k));
    if (await page.locator('.qk-wrap .tooltip').isVisible()) break;
  }
  await page.locator('#view-host').screenshot({ path: join(out, `map-${lang}-${size}.png`) });
  await context.close();

  const second = await newPage();
  await second.page.goto(url('view=diff&layer=1&head=2&off=0:1'));
  await waitForRuns(second.page, 1);
  await second.page.waitForFunction(() => window.__attnscope.edit?.kind === 'heads');
  await second.page.waitForTimeout(500);
  await second.page.locator('#view-host').screenshot({ path: join(out, `ablation-${lang}-${size}.png`) });
  await second.page.locator('[role=tab][data-view="grid"]').click();
  await second.page.waitForTimeout(500);
  await second.page.locator('#view-host').screenshot({ path: join(out, `ablation-grid-${lang}-${size}.png`) });
});
if (problems.length) console.error(problems.join('\n'));
console.log(`screenshots written to ${out}`);
