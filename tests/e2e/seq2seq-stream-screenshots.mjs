// Screenshots of the bundled T5 writing its target (web/src/model/target-stream.js), taken
// mid-generation at desktop (1280×800) and phone (390×844) size, English and Korean: the cross
// view growing a row per token, and the Block view waiting for the whole target.
// `node tests/e2e/seq2seq-stream-screenshots.mjs` writes build/screenshots/seq2seq-stream-*.png;
// then look at them. Also checks the page does not overflow and the console stays clean.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitForRuns } from './helpers.js';
import { forEachScreen } from './screenshot-matrix.js';
import { bundledModelFile } from '../../js/index.js';

const MODEL = 'bundled-seq2seq';
const pairs = readFileSync(bundledModelFile(MODEL, 'heldout.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
// The source of seq2seq-stream.test.js: a target of a couple of dozen tokens.
const SOURCE = [...pairs].sort((a, b) => a.source.length - b.source.length)[Math.floor(pairs.length / 2)].source;
const out = join(import.meta.dirname, '../../build/screenshots');
mkdirSync(out, { recursive: true });

const problems = await forEachScreen(async ({ size, viewport, lang, origin, newPage }) => {
  for (const view of ['cross', 'block']) {
    const { page } = await newPage();
    await page.goto(`${origin}/?${new URLSearchParams({ model: MODEL, lang, view, text: SOURCE, gn: '40' })}`);
    await waitForRuns(page, 1);
    await page.waitForFunction(() => window.__attnscope.info?.kind === 'encoder-decoder' && document.body.dataset.status === 'ready', null, { timeout: 60000 });
    await page.locator('#gen-target').click();
    // A few rows in, while the generation still runs (a token every 60 ms: the shot lands mid-way).
    await page.waitForFunction(() => window.__attnscope.streamed && window.__attnscope.seq2seq.crossShape[2] >= 5);
    const clip = await page.evaluate(() => {
      const a = document.querySelector('#seq2seq-panel').getBoundingClientRect(), b = document.querySelector('#view-host').getBoundingClientRect();
      const top = Math.min(a.top, b.top), bottom = Math.max(a.bottom, b.bottom);
      return { x: 0, y: top + window.scrollY, width: document.documentElement.clientWidth, height: Math.min(bottom - top, 1400) };
    });
    const generating = await page.evaluate(() => document.body.dataset.generating !== undefined);
    await page.screenshot({ path: join(out, `seq2seq-stream-${view}-${lang}-${size}.png`), clip, fullPage: true });
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    if (width > viewport.width) throw new Error(`${lang}-${size}-${view}: page ${width}px wide`);
    if (!generating) throw new Error(`${lang}-${size}-${view}: the generation had ended before the shot`);
    await page.waitForFunction(() => document.body.dataset.generating === undefined && document.body.dataset.status === 'ready', null, { timeout: 60000 });
  }
});
if (problems.length) {
  console.error(problems.join('\n'));
  process.exitCode = 1;
} else console.log('seq2seq stream screenshots written, clean console');
