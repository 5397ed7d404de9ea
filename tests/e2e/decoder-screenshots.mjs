// Screenshots of the page with decoders, desktop (1280×800) and phone (390×844),
// English and Korean: the bundled decoder's grid (masked upper triangles), the encoder-vs-decoder
// view, and a generation in progress. `node tests/e2e/decoder-screenshots.mjs [out]` writes them
// into docs/screenshots/ (default) — then look at them. Fails on any console or page problem.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitForRuns } from './helpers.js';
import { forEachScreen } from './screenshot-matrix.js';

const TEXT = 'The river bank was quiet and the water ran slowly';
const PROMPT = 'The man said that he';

export async function takeDecoderScreenshots(out) {
  mkdirSync(out, { recursive: true });
  const files = [];
  const problems = await forEachScreen(async ({ size, lang, origin, newPage }) => {
    const open = async (query) => {
      const g = await newPage();
      await g.page.goto(`${origin}/?${query}&lang=${lang}`);
      await waitForRuns(g.page, 1);
      await g.page.waitForTimeout(600);
      return g;
    };
    const done = async (g, name, fullPage = false) => {
      const path = join(out, `${name}-${lang}-${size}.png`);
      await g.page.screenshot({ path, fullPage });
      files.push(path);
      await g.page.waitForFunction(() => !document.body.dataset.generating, null, { timeout: 30000 });
      await g.context.close();
    };
    // The decoder's grid: every head lower-triangular, the mask hatched.
    let g = await open(`model=bundled-causal&text=${encodeURIComponent(TEXT)}&q=3`);
    if (size === 'phone') await g.page.locator('#view-host').scrollIntoViewIfNeeded();
    await done(g, 'decoder-grid');
    // Encoder vs decoder.
    g = await open(`view=compare&layer=1&head=1&text=${encodeURIComponent('The river bank was quiet')}`);
    await g.page.waitForFunction(() => [...document.querySelectorAll('.compare-panel')].filter((p) => p.dataset.ready === '1').length === 2);
    if (size === 'phone') await g.page.evaluate(() => document.querySelector('.tabs').scrollIntoView());
    await done(g, 'compare');
    // A generation in progress: the 9th new token has just joined the chips and the heatmap.
    g = await open(`model=bundled-causal&view=head&layer=2&head=1&text=${encodeURIComponent(PROMPT)}&gn=30&gs=3&gt=0.8`);
    await g.page.evaluate(() => new Promise((resolve) => {
      document.getElementById('generate-panel').addEventListener('generation-step', (e) => {
        if (e.detail.index === 8) resolve();
      });
      document.getElementById('gen-start').click();
    }));
    // Taken while it runs (one step per 60 ms: about 1.3 s of the 30 tokens are still to come).
    // A phone shows the chips and the heatmap one after the other: the whole page.
    await done(g, 'generate', size === 'phone');
  });
  return { files, problems };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const out = process.argv[2] ?? fileURLToPath(new URL('../../docs/screenshots', import.meta.url));
  const { files, problems } = await takeDecoderScreenshots(out);
  for (const f of files) console.log(f);
  if (problems.length) { console.error(problems); process.exit(1); }
}
