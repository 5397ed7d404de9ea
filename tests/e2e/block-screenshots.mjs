// Screenshots of the block walk-through and positions views, desktop (1280×800) and
// phone (390×844), English and Korean. `node tests/e2e/block-screenshots.mjs [out]` writes
// block-<lang>-<size>.png, block-ffn-<lang>-<size>.png (scrolled to the feed-forward step and its
// GELU check) and positions-<lang>-<size>.png into docs/screenshots/ (default) — then look at
// them. Fails on any console or page problem.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitForRuns } from './helpers.js';
import { forEachScreen } from './screenshot-matrix.js';

const SHOTS = [
  { name: 'block', query: 'view=block&layer=0&q=2&text=There%20is%20a%20prince', ready: () => window.__attnscope.block, scrollTo: '.view-block .block-step:nth-of-type(3)' },
  { name: 'block-ffn', query: 'view=block&layer=1&q=2&text=There%20is%20a%20prince', ready: () => window.__attnscope.block, scrollTo: '.view-block .block-ffn', scrollDesktop: '.view-block .block-ffn' },
  { name: 'positions', query: 'view=positions&layer=1&head=2', ready: () => window.__attnscope.positions, scrollTo: '.tabs' },
];

export async function takeBlockScreenshots(out) {
  mkdirSync(out, { recursive: true });
  const files = [];
  const problems = await forEachScreen(async ({ size, lang, origin, newPage }) => {
    for (const shot of SHOTS) {
      const g = await newPage();
      await g.page.goto(`${origin}/?${shot.query}&lang=${lang}`);
      await waitForRuns(g.page, 1);
      await g.page.waitForFunction(shot.ready, null, { timeout: 60000 });
      await g.page.waitForTimeout(400);
      await g.page.evaluate((sel) => document.querySelector(sel)?.scrollIntoView(), size === 'phone' ? shot.scrollTo : (shot.scrollDesktop ?? '.tabs'));
      const path = join(out, `${shot.name}-${lang}-${size}.png`);
      await g.page.screenshot({ path });
      files.push(path);
    }
  });
  if (problems.length) throw new Error('page problems: ' + problems.join('; '));
  return files;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = process.argv[2] ?? fileURLToPath(new URL('../../docs/screenshots/', import.meta.url));
  console.log((await takeBlockScreenshots(out)).join('\n'));
}
