// Shared set-up for the page tests: the static server on a free port (bundle rebuilt first),
// Debian's Chromium through playwright-core, a page wrapped with guards (console errors, uncaught
// errors and unhandled rejections, requests leaving the origin) and a writer for random
// BERT-shaped model folders (config.json, model.safetensors, vocab.txt) used as fixtures.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { after, before } from 'node:test';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { createStaticServer } from '../../scripts/serve.mjs';
import { buildExplorer } from '../../web/build.mjs';
import { safetensorsBytes } from '../js/helpers/safetensors.js';

// Debian's Chromium as its headless shell (the package chromium-headless-shell: the same Blink and
// V8 without the desktop browser's UI layer, what Playwright itself runs headless): a page costs
// the browser process about a third of the full browser's CPU (0.29 against 0.95 s a page load,
// measured on the 2-core AMD EPYC), which the ~300 page loads of the suite add up to minutes of.
// ATTNSCOPE_CHROMIUM names another binary (the full /usr/bin/chromium, say).
export const CHROMIUM_PATH = process.env.ATTNSCOPE_CHROMIUM ??
  (existsSync('/usr/bin/chromium-headless-shell') ? '/usr/bin/chromium-headless-shell' : '/usr/bin/chromium');

export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--no-first-run', '--disable-sync'];

export async function startServer() {
  // scripts/test.sh builds the bundles once and runs files two at a time: a file rebuilding them
  // then could serve another a half-written explorer.js.
  if (!process.env.ATTNSCOPE_E2E_PREBUILT) await buildExplorer({ quiet: true });
  const server = createStaticServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${server.address().port}`;
  return { origin, close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }) };
}

/** Screenshots for a person to look at (CI does not): taken only when ATTNSCOPE_SCREENSHOTS names a
 *  folder. `target` is a page or a locator; `name` the file's name in that folder. */
export async function keepScreenshot(target, name, options = {}) {
  const dir = process.env.ATTNSCOPE_SCREENSHOTS;
  if (dir) await target.screenshot({ ...options, path: join(dir, name) });
}

export function launchBrowser() {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
}

/** For a test file: starts the page server and Chromium before its tests and closes both after.
 *  The returned object's `server` and `browser` are set once the `before` hook has run. */
export function serverAndBrowser() {
  const env = { server: null, browser: null };
  before(async () => {
    env.server = await startServer();
    env.browser = await launchBrowser();
  });
  after(async () => {
    await env.browser?.close();
    await env.server?.close();
  });
  return env;
}

// A page that records every problem the tests must fail on. `problems` lists console errors,
// uncaught exceptions (which include unhandled promise rejections in Chromium) and any request
// to another origin (the page must make none unless the user picks a hub model).
// `allowed` (a Set of URL prefixes the test may add to) lists other origins a test expects, e.g.
// the hub after the user picks a hub model.
export async function guardedPage(browser, origin, viewport = { width: 1280, height: 800 }, allowed = new Set()) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console.error: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`uncaught: ${e.message}`));
  page.on('request', (r) => {
    const url = r.url();
    if (!url.startsWith(origin + '/') && !url.startsWith('data:') && !url.startsWith('blob:') &&
      ![...allowed].some((prefix) => url.startsWith(prefix))) problems.push(`request left the origin: ${url}`);
  });
  // A request the page aborted on purpose (a cancelled download) is not a failure.
  page.on('requestfailed', (r) => {
    if (r.failure()?.errorText !== 'net::ERR_ABORTED') problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`);
  });
  return { page, context, problems, allowed };
}

/** Resolves after the page's next animation frame. The page draws a state change or a finished run
 *  on the frame after it (main.js renderAll), scheduled before this frame's callback. */
export function nextFrame(page) {
  return page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => resolve())));
}

// Waits until the page has finished `count` runs in total, is idle and has drawn the last run: the
// run count and status change before its frame, and a loaded machine can be read in between.
export async function waitForRuns(page, count, timeout = 60000) {
  await page.waitForFunction((n) => window.__attnscope && window.__attnscope.runsDone >= n &&
    document.body.dataset.status === 'ready', count, { timeout });
  await nextFrame(page);
}

/** The page's settled-or-not signs, for an error that says where a page stood: body's data
 *  attributes (status, generating, busy, …), the status line under the chips, runs finished. */
export function pageSigns() {
  return { body: { ...document.body.dataset }, runStatus: document.getElementById('run-status')?.textContent ?? null,
    runsDone: window.__attnscope?.runsDone ?? null };
}

/** page.waitForFunction; on a timeout the error also gives `describe` (a function evaluated in the
 *  page, pageSigns by default) as JSON, so a wait that fails on CI says what the page was doing. */
export async function waitSaying(page, predicate, arg, { timeout = 30000, describe = pageSigns } = {}) {
  try {
    return await page.waitForFunction(predicate, arg, { timeout });
  } catch (error) {
    const at = await page.evaluate(describe).catch((e) => `(the page could not be read: ${e.message})`);
    error.message += `\n  the page then: ${JSON.stringify(at)}`;
    throw error;
  }
}

// The page's own frames with nothing running: `frames` animation frames, their median interval
// and longest gap (ms). Timing assertions compare with these, measured in the same run on the
// same machine, rather than with fixed milliseconds.
export function idleFrames(page, frames = 60) {
  return page.evaluate((n) => new Promise((resolve) => {
    const gaps = [];
    let last = null;
    const frame = (now) => {
      if (last !== null) gaps.push(now - last);
      last = now;
      if (gaps.length < n) requestAnimationFrame(frame);
      else {
        const sorted = [...gaps].sort((a, b) => a - b);
        resolve({ frameMs: sorted[sorted.length >> 1], maxGap: sorted.at(-1), frames: gaps.length });
      }
    };
    requestAnimationFrame(frame);
  }), frames);
}

// ---- random BERT model folders ----------------------------------------------------------------

// Deterministic normal(0, std) numbers (mulberry32 + Box–Muller): fixtures are reproducible.
function normals(seed) {
  let a = seed >>> 0;
  const uniform = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) + 1) / 4294967297;
  };
  return (std) => std * Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
}

export const FIXTURE_WORDS = ['the', 'a', 'cat', 'dog', 'sat', 'on', 'mat', 'because', 'it', 'was',
  'tired', 'and', 'ran', 'to', 'park', 'she', 'he', 'saw', 'big', 'small', 'red', 'house', 'tree',
  'book', 'read', 'in', 'of', 'with', 'bank', 'river', 'money', 'is', 'are', 'they', 'we', 'you'];

// Writes a BERT model folder in Hugging Face layout. `hidden` must divide by `heads`.
// Weights: N(0, 0.02) like BERT's initialiser, except Q/K (N(0, qkStd)) so attention patterns are
// not all uniform; LayerNorm γ = 1, β = 0. With `mlm`, adds the masked-LM head (decoder tied).
export function writeBertFixture(dir, { layers = 2, heads = 4, hidden = 32, intermediate = 64,
  maxPositions = 64, seed = 7, qkStd = 0.5, mlm = true } = {}) {
  mkdirSync(dir, { recursive: true });
  const specials = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];
  const letters = 'abcdefghijklmnopqrstuvwxyz'.split('');
  const vocab = [...specials, ...FIXTURE_WORDS, ...letters, ...letters.map((c) => '##' + c), '.', ',', '!', '?', "'", '##s', '##ing', '##ed'];
  writeFileSync(join(dir, 'vocab.txt'), vocab.join('\n') + '\n');
  writeFileSync(join(dir, 'config.json'), JSON.stringify({
    architectures: [mlm ? 'BertForMaskedLM' : 'BertModel'], model_type: 'bert', vocab_size: vocab.length,
    hidden_size: hidden, num_hidden_layers: layers, num_attention_heads: heads, intermediate_size: intermediate,
    max_position_embeddings: maxPositions, type_vocab_size: 2, hidden_act: 'gelu', layer_norm_eps: 1e-12,
    pad_token_id: 0,
  }, null, 2));
  writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify({ do_lower_case: true }));
  const rand = normals(seed);
  const tensors = {};
  const add = (name, shape, init) => {
    const n = shape.reduce((x, y) => x * y, 1);
    const data = new Float32Array(n);
    for (let i = 0; i < n; i++) data[i] = init === 'ones' ? 1 : init === 'zeros' ? 0 : rand(init);
    tensors[name] = { shape, data };
  };
  const V = vocab.length, C = hidden, F = intermediate;
  add('bert.embeddings.word_embeddings.weight', [V, C], 0.5);
  add('bert.embeddings.position_embeddings.weight', [maxPositions, C], 0.5);
  add('bert.embeddings.token_type_embeddings.weight', [2, C], 0.5);
  add('bert.embeddings.LayerNorm.weight', [C], 'ones');
  add('bert.embeddings.LayerNorm.bias', [C], 'zeros');
  for (let l = 0; l < layers; l++) {
    const p = `bert.encoder.layer.${l}.`;
    for (const m of ['query', 'key']) { add(p + `attention.self.${m}.weight`, [C, C], qkStd / Math.sqrt(C) * 4); add(p + `attention.self.${m}.bias`, [C], 0.02); }
    add(p + 'attention.self.value.weight', [C, C], 0.2);
    add(p + 'attention.self.value.bias', [C], 0.02);
    add(p + 'attention.output.dense.weight', [C, C], 0.2);
    add(p + 'attention.output.dense.bias', [C], 0.02);
    add(p + 'attention.output.LayerNorm.weight', [C], 'ones');
    add(p + 'attention.output.LayerNorm.bias', [C], 'zeros');
    add(p + 'intermediate.dense.weight', [F, C], 0.1);
    add(p + 'intermediate.dense.bias', [F], 0.02);
    add(p + 'output.dense.weight', [C, F], 0.1);
    add(p + 'output.dense.bias', [C], 0.02);
    add(p + 'output.LayerNorm.weight', [C], 'ones');
    add(p + 'output.LayerNorm.bias', [C], 'zeros');
  }
  if (mlm) {
    add('cls.predictions.transform.dense.weight', [C, C], 0.2);
    add('cls.predictions.transform.dense.bias', [C], 0.02);
    add('cls.predictions.transform.LayerNorm.weight', [C], 'ones');
    add('cls.predictions.transform.LayerNorm.bias', [C], 'zeros');
    add('cls.predictions.bias', [V], 0.02);
  }
  writeFileSync(join(dir, 'model.safetensors'), safetensorsBytes(tensors));
  return { dir, vocab, config: { layers, heads, hidden, maxPositions } };
}

