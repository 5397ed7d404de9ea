// Screenshots of the Patching view on the bundled decoder's church/school example, desktop
// (1280×800) and phone (390×844), English and Korean: the resid_pre grid (layer × position) and
// the head grid (layer × head).
// `node tests/e2e/patching-screenshots.mjs [out]` writes them into docs/screenshots/ (default) —
// then look at them. Fails on any console or page problem.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitForRuns } from './helpers.js';
import { forEachScreen } from './screenshot-matrix.js';
import { PATCHING_EXAMPLE } from '../../web/src/patch-suggest.js';

const LINK = `model=bundled-causal&view=patching&text=${encodeURIComponent(PATCHING_EXAMPLE.clean)}` +
  `&corrupted=${encodeURIComponent(PATCHING_EXAMPLE.corrupted)}&answer=%20church&wrong=%20school`;

export async function takePatchingScreenshots(out) {
  mkdirSync(out, { recursive: true });
  const files = [];
  const problems = await forEachScreen(async ({ size, lang, origin, newPage }) => {
    for (const site of ['resid_pre', 'head']) {
      const g = await newPage();
      await g.page.goto(`${origin}/?${LINK}&site=${site}&lang=${lang}`);
      await waitForRuns(g.page, 1);
      await g.page.waitForFunction((s) => window.__attnscope.patching?.site === s && window.__attnscope.patching.state === 'done',
        site, { timeout: 60000 });
      await g.page.evaluate(() => document.querySelector('.patch-main').scrollIntoView({ block: 'start' }));
      await g.page.waitForTimeout(300);
      const path = join(out, `patching-${site.replace('_', '-')}-${lang}-${size}.png`);
      await g.page.screenshot({ path });
      files.push(path);
    }
  });
  if (problems.length) throw new Error(`page problems:\n${problems.join('\n')}`);
  return files;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = process.argv[2] ?? fileURLToPath(new URL('../../docs/screenshots/', import.meta.url));
  for (const f of await takePatchingScreenshots(out)) console.log(f);
}
