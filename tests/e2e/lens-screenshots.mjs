// Screenshots of the logit-lens views (Layers, Contributions), desktop (1280×800) and phone (390×844), English and Korean: the
// Layers view (logit lens) on the bundled decoder with a cell open and on the bundled BERT, the
// Contributions view on the bundled decoder, the KV cache after a generation, and the next-token
// panel's sampling controls.
// `node tests/e2e/lens-screenshots.mjs [out]` writes them into docs/screenshots/ (default) — then
// look at them. Fails on any console or page problem.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitForRuns } from './helpers.js';
import { forEachScreen } from './screenshot-matrix.js';

const TEXT = 'The river bank was quiet and the water';

export async function takeLensScreenshots(out, only = null) {
  mkdirSync(out, { recursive: true });
  const files = [];
  const problems = await forEachScreen(async ({ size, lang, origin, newPage }) => {
    const shoot = async (name, query, ready, { fullPage = size === 'phone', scrollTo = null, before = null } = {}) => {
      if (only && !only.includes(name)) return;
      const g = await newPage();
      await g.page.goto(`${origin}/?${query}&lang=${lang}`);
      await waitForRuns(g.page, 1);
      await g.page.waitForSelector(ready, { timeout: 60000 });
      if (scrollTo) await g.page.evaluate((sel) => document.querySelector(sel).scrollIntoView({ block: 'center' }), scrollTo);
      if (before) await before(g.page);
      await g.page.waitForTimeout(300);
      const path = join(out, `${name}-${lang}-${size}.png`);
      await g.page.screenshot({ path, fullPage });
      files.push(path);
      await g.context.close();
    };
    await shoot('lens-decoder', `model=bundled-causal&view=layers&lr=6&q=3&text=${encodeURIComponent(TEXT)}`, '.lens-detail h4');
    await shoot('lens-bert', `view=layers&lr=2&q=4&text=${encodeURIComponent('The bank of the [MASK] was quiet.')}`, '.lens-detail h4');
    await shoot('contributions', `model=bundled-causal&view=contributions&text=${encodeURIComponent(TEXT)}`, '.contrib-list li');
    await shoot('kv-cache', `model=bundled-causal&gn=12&gt=0&text=${encodeURIComponent(TEXT)}`, '#gen-start',
      { fullPage: false, scrollTo: '.generate-panel', before: async (page) => {
        await page.click('#gen-start');
        await page.waitForFunction(() => window.__attnscope.generation?.done && !document.body.dataset.generating, null, { timeout: 30000 });
        await page.evaluate(() => document.querySelector('.kv-cache').scrollIntoView({ block: 'center' }));
      } });
    await shoot('sampling', `model=bundled-causal&view=head&gt=0.7&gk=8&gp=0.9&q=7&text=${encodeURIComponent(TEXT)}`, '.sampling-list li',
      { fullPage: false, scrollTo: '.sampling' });
  });
  if (problems.length) throw new Error(`page problems:\n${problems.join('\n')}`);
  return files;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = process.argv[2] ?? fileURLToPath(new URL('../../docs/screenshots/', import.meta.url));
  for (const f of await takeLensScreenshots(out, process.argv[3]?.split(','))) console.log(f);
}
