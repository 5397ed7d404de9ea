// A TinyLlama-shaped model in a Chromium tab: 22 layers, 2,048 wide, 32 query heads over 4
// key/value heads, FFN 5,632, random f16 weights (1.9 GB, written at run time under the system's
// temporary folder and removed after) loaded from the page's local-folder input at q8, then a
// 1,024-token text. Prints the load time, the prefill time (the page's own run time), the worker's
// wasm memory after the load, the browser's resident memory (every process, sampled) at its peak,
// and whether the grid (704 heads drawn), the head view and the formula draw. Heavy: run alone.
//   node bench/tinyllama-tab.mjs [--keep DIR]   (needs dist/: npm run build, node web/build.mjs)
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { TINYLLAMA, writeTinyLlamaFolder } from '../tests/e2e/helpers/tinyllama-folder.js';
import { guardedPage, launchBrowser, startServer, waitForRuns } from '../tests/e2e/helpers.js';

const { values } = parseArgs({ options: { keep: { type: 'string' } } });
const TOKENS = 1024;
// The fixture tokenizer reads this sentence as 14 tokens, plus <s> and the last space's: 73 → 1,024.
const text = 'The cat sat on the mat because it was tired. '.repeat((TOKENS - 2) / 14);
const MB = (bytes) => (bytes / 1048576).toFixed(0);

const dir = values.keep ?? join(mkdtempSync(join(tmpdir(), 'attnscope-tinyllama-')), 'tinyllama');
if (!existsSync(join(dir, 'model.safetensors'))) {
  const started = Date.now();
  const folder = writeTinyLlamaFolder(dir, { ...TINYLLAMA, dtype: 'F16' });
  console.log(`folder: ${(folder.parameters / 1e9).toFixed(2)} B parameters, ${MB(folder.bytes)} MB f16, written in ${Date.now() - started} ms`);
}

// Resident memory of the browser and every process under it, in bytes.
function browserRss(pid) {
  const tree = execFileSync('ps', ['-e', '-o', 'pid=,ppid=,rss='], { encoding: 'utf8' }).trim().split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number));
  const mine = new Set([pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [p, pp] of tree) if (mine.has(pp) && !mine.has(p)) { mine.add(p); grew = true; }
  }
  return tree.filter(([p]) => mine.has(p)).reduce((sum, [, , rss]) => sum + rss * 1024, 0);
}

const server = await startServer();
const browser = await launchBrowser();
const { page, context, problems } = await guardedPage(browser, server.origin);
let peak = 0;
// The browser is this process's child (others' browsers on the machine are not counted).
const browserPid = Number(execFileSync('pgrep', ['-P', String(process.pid)], { encoding: 'utf8' }).trim().split('\n')[0]);
const sampler = setInterval(() => { try { peak = Math.max(peak, browserRss(browserPid)); } catch { /* exited */ } }, 250);
try {
  await page.goto(`${server.origin}/?wp=q8&view=grid&text=${encodeURIComponent(text)}`);
  await waitForRuns(page, 1);
  const before = browserRss(browserPid);
  const runs = await page.evaluate(() => window.__attnscope.runsDone);
  await page.locator('#model-select').selectOption('__local');
  let started = Date.now();
  await page.locator('#folder-input').setInputFiles(dir);
  await page.waitForFunction((r) => window.__attnscope.runsDone > r && document.body.dataset.status === 'ready',
    runs, { timeout: 1800000, polling: 1000 });
  const loadAndRun = Date.now() - started;
  const info = await page.evaluate(() => window.__attnscope.info);
  const shape = await page.evaluate(() => window.__attnscope.shape);
  const maps = await page.evaluate(() => window.__attnscope.maps);
  const status = await page.locator('#run-status').textContent();
  const runMs = Number(/([\d,]+) ms/.exec(status)?.[1].replace(/,/g, ''));
  started = Date.now();
  await page.waitForFunction(() => {
    const c = document.querySelector('canvas.model-grid');
    return c && Number(c.dataset.rendered) === Number(c.dataset.layers) * Number(c.dataset.heads);
  }, null, { timeout: 600000, polling: 500 });
  const gridMs = Date.now() - started;
  started = Date.now();
  await page.locator('[role=tab][data-view="head"]').click();
  await page.waitForSelector('.view-head canvas', { timeout: 120000 });
  const headMs = Date.now() - started;
  started = Date.now();
  await page.locator('[role=tab][data-view="formula"]').click();
  await page.waitForFunction(() => window.__attnscope.formula, null, { timeout: 120000 });
  const formula = await page.evaluate(() => { const f = window.__attnscope.formula; return { maxError: f.maxError, query: f.query }; });
  const formulaMs = Date.now() - started;
  console.log(`CPU: ${cpus()[0].model}, ${cpus().length} vCPUs; ${info.config.numLayers} layers × ${info.config.numHeads} heads ` +
    `(${TINYLLAMA.kvHeads} K/V), hidden ${info.config.hiddenSize}, ${info.weightPrecision} weights ${MB(info.memoryBytes)} MB`);
  console.log(`| tokens | load + first run s | prefill s (page) | worker wasm after load MB | maps in worker MB (eager would be) | browser RSS before / peak MB | grid ${shape[0] * shape[1]} heads s | head view s | formula s |`);
  console.log(`| ${shape[2]} | ${(loadAndRun / 1000).toFixed(1)} | ${(runMs / 1000).toFixed(1)} | ${MB(info.wasmMemoryBytes)} | ` +
    `${MB(maps.memoryBytes)} (${MB(shape[0] * shape[1] * shape[2] * shape[3] * 4)}) | ${MB(before)} / ${MB(peak)} | ` +
    `${(gridMs / 1000).toFixed(1)} | ${(headMs / 1000).toFixed(1)} | ${(formulaMs / 1000).toFixed(1)} |`);
  console.log(`maps in the worker: ${maps.inWorker}; formula vs engine max error ${formula.maxError.toExponential(2)} (query ${formula.query}); ` +
    `console problems: ${JSON.stringify(problems).slice(0, 300)}`);
} finally {
  clearInterval(sampler);
  await context.close();
  await browser.close();
  await server.close();
  if (!values.keep) rmSync(dir, { recursive: true, force: true });
}
