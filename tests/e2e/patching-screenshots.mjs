// Screenshots of the Patching view on the bundled decoder's church/school example, desktop
// (1280×800) and phone (390×844), English and Korean: the resid_pre grid (layer × position) and
// the head grid (layer × head); and on the bundled T5's doctor/little example: the encoder's
// resid_pre grid (layer × source position) and the decoder's head grid.
// `node tests/e2e/patching-screenshots.mjs [out]` writes them into docs/screenshots/ (default) —
// then look at them. Fails on any console or page problem.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitForRuns } from './helpers.js';
import { forEachScreen } from './screenshot-matrix.js';
import { PATCHING_EXAMPLE, PATCHING_SEQ2SEQ_EXAMPLE as T5 } from '../../web/src/model/patch-suggest.js';

const LINK = `model=bundled-causal&view=patching&text=${encodeURIComponent(PATCHING_EXAMPLE.clean)}` +
  `&corrupted=${encodeURIComponent(PATCHING_EXAMPLE.corrupted)}&answer=%20church&wrong=%20school`;
const T5_LINK = new URLSearchParams({ model: 'bundled-seq2seq', view: 'patching', text: T5.clean, tgt: 'The man a doctor was.',
  corrupted: T5.corrupted, prefix: T5.prefix, answer: T5.answer, wrong: T5.wrong }).toString();
// name, link, site
const SHOTS = [['', LINK, 'resid_pre'], ['', LINK, 'head'], ['t5-encoder-', T5_LINK, 'resid_pre'], ['t5-decoder-', `${T5_LINK}&stack=decoder`, 'head']];

export async function takePatchingScreenshots(out) {
  mkdirSync(out, { recursive: true });
  const files = [];
  const problems = await forEachScreen(async ({ size, lang, origin, newPage }) => {
    for (const [name, link, site] of SHOTS) {
      const g = await newPage();
      await g.page.goto(`${origin}/?${link}&site=${site}&lang=${lang}`);
      await waitForRuns(g.page, 1);
      await g.page.waitForFunction((s) => window.__attnscope.patching?.site === s && window.__attnscope.patching.state === 'done',
        site, { timeout: 60000 });
      await g.page.evaluate(() => document.querySelector('.patch-main').scrollIntoView({ block: 'start' }));
      await g.page.waitForTimeout(300);
      const path = join(out, `patching-${name}${site.replace('_', '-')}-${lang}-${size}.png`);
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
