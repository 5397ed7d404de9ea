// The model card's pictures: the explorer's head view (the bundled model, Chromium, desktop size)
// for the heads tools/train/analyze_heads.py found most previous-token-like and most [CLS]/[SEP]
// sink, and the head whose determiners most often attend most to their noun *without* being a
// next-token head (next-token share < 0.5: a next-token head finds the noun whenever it is
// adjacent, which says nothing about syntax). Reads build/train/heads.json, writes
// docs/screenshots/model-*.png. Run after `SKIP_TRAIN=1 bash tools/train/train.sh` and a page
// build (`bash scripts/build.sh wasm`); then look at the pictures.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { guardedPage, launchBrowser, startServer, waitForRuns } from '../../tests/e2e/helpers.js';

const root = join(import.meta.dirname, '../..');
const TEXT = 'The old man walked to the river and sat on the bank of the river.';
const PICKS = [
  ['model-previous-token', (h) => bestHead(h, 'prev')],
  ['model-sink', (h) => bestHead(h, 'cls', (l, k) => h.per_head.cls[l][k] + h.per_head.sep[l][k])],
  ['model-determiner-noun', (h) => bestHead(h, 'det_to_noun_top1', undefined, (l, k) => h.per_head.next[l][k] < 0.5)],
];

// The (layer, head) with the largest score among those passing `keep`.
function bestHead(h, metric, score = (l, k) => h.per_head[metric][l][k], keep = () => true) {
  let best = null;
  h.per_head[metric].forEach((row, l) => row.forEach((_, k) => {
    if (keep(l, k) && (!best || score(l, k) > best.value)) best = { layer: l, head: k, value: score(l, k) };
  }));
  return { ...best, metric };
}

const heads = JSON.parse(readFileSync(join(root, 'build/train/heads.json'), 'utf8'));
const server = await startServer();
const browser = await launchBrowser();
const problems = [];
try {
  for (const [name, pick] of PICKS) {
    const best = pick(heads);
    const { page, context, problems: seen } = await guardedPage(browser, server.origin, { width: 1280, height: 800 });
    await page.goto(`${server.origin}/?text=${encodeURIComponent(TEXT)}&view=head&layer=${best.layer}&head=${best.head}`);
    await waitForRuns(page, 1);
    await page.waitForTimeout(800);
    const path = join(root, 'docs/screenshots', `${name}.png`);
    await page.locator('#view-host').screenshot({ path });
    console.log(`${path}: layer ${best.layer} head ${best.head} (${best.metric} = ${best.value.toFixed(3)})`);
    problems.push(...seen);
    await context.close();
  }
} finally {
  await browser.close();
  await server.close();
}
if (problems.length) {
  console.error(problems.join('\n'));
  process.exitCode = 1;
}
