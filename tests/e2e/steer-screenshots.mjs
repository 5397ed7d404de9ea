// Screenshots of the Steering panel on the bundled decoder's example (the prompt written plain and
// pushed from "the house" toward "the church") and of the lesson's flow and patching steps, desktop
// (1280×800) and phone (390×844), English and Korean.
// `node tests/e2e/steer-screenshots.mjs [out]` writes them into docs/screenshots/ (default) — then
// look at them. Fails on any console or page problem.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitForRuns } from './helpers.js';
import { forEachScreen } from './screenshot-matrix.js';
import { LESSONS } from '../../web/src/lesson/steps.js';
import { STEER_EXAMPLE } from '../../web/src/state/state.js';

const stepOf = (id) => LESSONS.attention.findIndex((s) => s.id === id) + 1;

export async function takeSteerScreenshots(out) {
  mkdirSync(out, { recursive: true });
  const files = [];
  const shot = async (page, name, size, lang) => {
    const path = join(out, `${name}-${lang}-${size}.png`);
    await page.screenshot({ path });
    files.push(path);
  };
  const problems = await forEachScreen(async ({ size, lang, origin, newPage }) => {
    const g = await newPage();
    await g.page.goto(`${origin}/?model=bundled-causal&lang=${lang}&text=${encodeURIComponent(STEER_EXAMPLE.prompt)}`);
    await waitForRuns(g.page, 1);
    await g.page.click('#steer-start');
    await g.page.waitForFunction(() => { const s = window.__attnscope.steering; return s && !s.running && s.steered; }, null, { timeout: 60000 });
    await g.page.evaluate(() => document.querySelector('#steer-size').scrollIntoView({ block: 'start' }));
    await g.page.waitForTimeout(300);
    await shot(g.page, 'steering', size, lang);
    for (const id of ['flow', 'patching']) {
      await g.page.goto(`${origin}/?lesson=attention&step=${stepOf(id)}&lang=${lang}`);
      await waitForRuns(g.page, 1);
      await g.page.waitForFunction((v) => document.querySelector(`.view-${v}`)?.childElementCount > 0 && document.body.dataset.status === 'ready', id, { timeout: 60000 });
      await g.page.waitForTimeout(500);
      await g.page.evaluate(() => document.getElementById('lesson').scrollIntoView({ block: 'start' }));
      await shot(g.page, `lesson-${id}`, size, lang);
    }
  });
  if (problems.length) throw new Error(`page problems:\n${problems.join('\n')}`);
  return files;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = process.argv[2] ?? fileURLToPath(new URL('../../docs/screenshots/', import.meta.url));
  for (const f of await takeSteerScreenshots(out)) console.log(f);
}
