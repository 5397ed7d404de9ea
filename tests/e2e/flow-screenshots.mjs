// Screenshots of the Flow view, desktop (1280×800) and phone (390×844), English and Korean: the
// bundled decoder with an edge pointed at and a dot's logit lens open, and the bundled BERT.
// `node tests/e2e/flow-screenshots.mjs [out]` writes them into docs/screenshots/ (default) — then
// look at them. Fails on any console or page problem.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitForRuns } from './helpers.js';
import { forEachScreen } from './screenshot-matrix.js';

export async function takeFlowScreenshots(out) {
  mkdirSync(out, { recursive: true });
  const files = [];
  const problems = await forEachScreen(async ({ size, lang, origin, newPage }) => {
    const shoot = async (name, query, before) => {
      const g = await newPage();
      await g.page.goto(`${origin}/?${query}&lang=${lang}`);
      await waitForRuns(g.page, 1);
      await g.page.waitForSelector('svg.flow-graph line.flow-edge', { timeout: 60000 });
      await before?.(g.page);
      await g.page.waitForTimeout(300);
      const path = join(out, `${name}-${lang}-${size}.png`);
      await g.page.screenshot({ path, fullPage: true });
      const view = join(out, `${name}-${lang}-${size}-view.png`);
      await g.page.locator('.view-flow').screenshot({ path: view });
      files.push(path, view);
      await g.context.close();
    };
    await shoot('flow-decoder', `model=bundled-causal&view=flow&text=${encodeURIComponent('The river bank was quiet and the water')}`, async (page) => {
      await page.locator('.flow-node.is-resid[data-level="8"]').first().dispatchEvent('click');
      await page.waitForSelector('.flow-lens .lens-top li');
      await page.locator('line.flow-edge.is-token').first().dispatchEvent('pointerenter');
    });
    await shoot('flow-bert', `view=flow&tau=0.03&text=${encodeURIComponent('The bank of the [MASK] was quiet.')}`);
  });
  if (problems.length) throw new Error(`page problems:\n${problems.join('\n')}`);
  return files;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = process.argv[2] ?? fileURLToPath(new URL('../../docs/screenshots/', import.meta.url));
  for (const f of await takeFlowScreenshots(out)) console.log(f);
}
