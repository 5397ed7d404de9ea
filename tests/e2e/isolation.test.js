// Cross-origin isolation (scripts/serve.mjs, `npm start`): every response carries COOP/COEP/CORP,
// the explorer page and its model worker are crossOriginIsolated (SharedArrayBuffer, so the
// engine may use threads) and the page still runs the bundled model and loads a hub model (a CORS
// fetch, which require-corp allows). The <attn-scope> element and the single-file embed must run
// on that server AND on a plain one without those headers (as most blogs are), where there is no
// SharedArrayBuffer and the engine has to fall back to one thread by itself; both give the same
// attention.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ISOLATION_HEADERS, createStaticServer } from '../../scripts/serve.mjs';
import { buildExplorer } from '../../web/build.mjs';
import { guardedPage, launchBrowser, waitForRuns, writeBertFixture } from './helpers.js';
import { ROOT, ensureBuilt, guardedPage as guardedEmbedPage, waitForElements } from './embed-helpers.js';

const HUB = 'https://huggingface.co/';
const EXPECTED = { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp',
  'cross-origin-resource-policy': 'same-origin' };
let isolated, plain, browser, tmp;

async function serve(options) {
  const server = createStaticServer(options);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }) };
}

before(async () => {
  await buildExplorer({ quiet: true });
  await ensureBuilt();
  tmp = mkdtempSync(join(tmpdir(), 'attnscope-isolation-'));
  writeBertFixture(join(tmp, 'hub'), { layers: 2, heads: 3, hidden: 24, intermediate: 48, maxPositions: 64, seed: 5 });
  isolated = await serve({ isolated: true });
  plain = await serve({ isolated: false });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await isolated?.close();
  await plain?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

test('the isolated server sends COOP, COEP and CORP on the page, scripts, workers, wasm, model and embeds; the plain one none', async () => {
  assert.deepEqual(Object.fromEntries(Object.entries(ISOLATION_HEADERS).map(([k, v]) => [k.toLowerCase(), v])), EXPECTED);
  const paths = ['/', '/dist/explorer.js', '/dist/worker.js', '/dist/attnscope.wasm', '/dist/attnscope-relaxed.wasm',
    '/dist/attnscope-element.js', '/dist/attnscope-embed.html', '/examples/embed.html', '/model/model.safetensors'];
  for (const path of paths) {
    const [a, b] = [await fetch(isolated.origin + path, { method: 'HEAD' }), await fetch(plain.origin + path, { method: 'HEAD' })];
    assert.equal(a.status, 200, path);
    assert.equal(b.status, 200, path);
    for (const [name, value] of Object.entries(EXPECTED)) {
      assert.equal(a.headers.get(name), value, `${path}: ${name}`);
      assert.equal(b.headers.get(name), null, `${path}: ${name} on the plain server`);
    }
  }
});

test('the page is crossOriginIsolated, so is its model worker, and it runs the bundled model', async (t) => {
  const { page, context, problems } = await guardedPage(browser, isolated.origin);
  const workerSeen = page.waitForEvent('worker', (w) => w.url().endsWith('/dist/worker.js'));
  await page.goto(isolated.origin + '/');
  await waitForRuns(page, 1);
  assert.deepEqual(await page.evaluate(() => [self.crossOriginIsolated, typeof SharedArrayBuffer]), [true, 'function']);
  const worker = await workerSeen;
  assert.equal(await worker.evaluate(() => self.crossOriginIsolated), true);
  const shape = await page.evaluate(() => window.__attnscope.shape);
  const rowSum = await page.evaluate(() => window.__attnscope.raw(0, 0).slice(0, window.__attnscope.shape[2]).reduce((a, b) => a + b, 0));
  assert.equal(shape.length, 4);
  assert.ok(Math.abs(rowSum - 1) < 1e-4, `row 0 of layer 0 head 0 sums to ${rowSum}`);
  // The model runs on the cores (capped at 8), and the model line says so.
  const cores = await page.evaluate(() => Math.min(navigator.hardwareConcurrency, 8));
  assert.equal((await page.evaluate(() => window.__attnscope.info)).threads, cores);
  assert.match(await page.locator('#model-info').innerText(), cores === 1 ? /1 thread\b/ : new RegExp(`${cores} threads`));
  assert.deepEqual(problems, []);
  await context.close();
});

test('without isolation the page runs on one thread (no SharedArrayBuffer) and says so', async () => {
  const { page, context, problems } = await guardedPage(browser, plain.origin);
  const wasm = [];
  page.on('request', (request) => { if (request.url().endsWith('.wasm')) wasm.push(new URL(request.url()).pathname); });
  await page.goto(plain.origin + '/');
  await waitForRuns(page, 1);
  assert.deepEqual(await page.evaluate(() => [self.crossOriginIsolated, typeof SharedArrayBuffer]), [false, 'undefined']);
  assert.equal((await page.evaluate(() => window.__attnscope.info)).threads, 1);
  assert.deepEqual(wasm, ['/dist/attnscope-encoder.wasm']);   // the bundled BERT: the encoder build (js/api/wasm.js)
  assert.match(await page.locator('#model-info').innerText(), /1 thread\b/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('under isolation the page still loads a hub model (a CORS fetch)', async () => {
  const { page, context, problems } = await guardedPage(browser, isolated.origin, undefined, new Set([HUB]));
  const hits = [];
  await context.route(HUB + '**', (route) => {
    const name = new URL(route.request().url()).pathname.split('/').pop();
    hits.push(name);
    const headers = { 'access-control-allow-origin': '*', 'content-type': 'application/octet-stream' };
    try {
      return route.fulfill({ status: 200, headers, body: readFileSync(join(tmp, 'hub', name)) });
    } catch {
      return route.fulfill({ status: 404, headers, body: 'Entry not found' });
    }
  });
  await page.goto(`${isolated.origin}/?model=someone%2Fisolated-bert&view=head`);
  await page.waitForFunction(() => window.__attnscope.info?.source === 'hub' && window.__attnscope.runsDone >= 1);
  assert.equal(await page.evaluate(() => self.crossOriginIsolated), true);
  assert.deepEqual((await page.evaluate(() => window.__attnscope.shape)).slice(0, 2), [2, 3]);
  assert.ok(hits.includes('model.safetensors'), `hub requests: ${hits}`);
  assert.deepEqual(problems, []);
  await context.close();
});

// A blog host for the single-file embed: serves only dist/attnscope-embed.html (its scripts are
// inline, so not under the page's CSP) and a post that shows it in an iframe, with or without
// the isolation headers. An iframe inside an isolated page must itself say COEP, as this one does.
async function singleFileHost({ isolated: isolate }) {
  const file = readFileSync(join(ROOT, 'dist/attnscope-embed.html'));
  const post = Buffer.from('<!doctype html><title>post</title><link rel="icon" href="data:,"><iframe src="/attnscope-embed.html?text=The%20bank%20of%20the%20river." ' +
    'width="900" height="560" title="attention"></iframe>');
  const server = createServer((req, res) => {
    const path = new URL(req.url, 'http://x').pathname;
    const body = path === '/attnscope-embed.html' ? file : path === '/post.html' ? post : null;
    if (path === '/favicon.ico') return res.writeHead(204).end();  // the single file names none
    res.writeHead(body ? 200 : 404, { 'Content-Type': 'text/html; charset=utf-8', ...(isolate ? ISOLATION_HEADERS : {}) });
    res.end(body ?? 'not found');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }) };
}

// The elements' state in the page (or its first iframe): status, whether that document is
// isolated, and the first element's attention.
async function embedRun(origin, path, count, { inFrame = false } = {}) {
  const { page, context, check } = await guardedEmbedPage(browser);
  const wasm = [];  // which builds were fetched (reported, not asserted: the lead names them)
  page.on('response', (r) => { if (r.ok() && r.url().endsWith('.wasm')) wasm.push(new URL(r.url()).pathname); });
  await page.goto(origin + path);
  const frame = inFrame ? await (await page.waitForSelector('iframe')).contentFrame() : page;
  await waitForElements(frame, count);
  const state = await frame.evaluate(() => {
    const elements = [...document.querySelectorAll('attn-scope')], result = elements[0].result;
    return { isolated: self.crossOriginIsolated, sharedMemory: typeof SharedArrayBuffer,
      statuses: elements.map((e) => e.dataset.status),
      messages: elements.map((e) => e.shadowRoot.querySelector('.status')?.textContent ?? ''),
      shape: result ? [...result.shape] : null, attentions: result ? [...result.attentions] : null };
  });
  const problems = await check();
  await context.close();
  return { ...state, problems, wasm };
}

function maxAbsDiff(a, b) {
  assert.equal(a.length, b.length);
  return a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);
}

function assertSameRuns(a, b, count) {
  assert.deepEqual([a.isolated, a.sharedMemory], [true, 'function']);
  assert.deepEqual([b.isolated, b.sharedMemory], [false, 'undefined']);
  for (const r of [a, b]) {
    assert.deepEqual(r.statuses, Array(count).fill('ready'), `isolated: ${r.isolated}; ${r.messages.join(' | ')}`);
    assert.deepEqual(r.problems, []);
  }
  assert.deepEqual(a.shape, b.shape);
  // Threads split the work, not the arithmetic of one row: allow only summation-order noise.
  const diff = maxAbsDiff(a.attentions, b.attentions);
  assert.ok(diff <= 1e-5, `isolated vs plain attention differ by ${diff}`);
}

test('<attn-scope> (examples/embed.html, two elements) runs on the isolated server and on a plain one (no SharedArrayBuffer), with the same attention', async (t) => {
  const a = await embedRun(isolated.origin, '/examples/embed.html', 2);
  const b = await embedRun(plain.origin, '/examples/embed.html', 2);
  t.diagnostic(`wasm fetched: isolated ${a.wasm.join(', ')}; plain ${b.wasm.join(', ')}`);
  assertSameRuns(a, b, 2);
});

test('the single-file embed runs on an isolated host and a plain one, alone and in an iframe, with the same attention', async () => {
  const hosts = [await singleFileHost({ isolated: true }), await singleFileHost({ isolated: false })];
  try {
    const path = '/attnscope-embed.html?text=The%20bank%20of%20the%20river.&view=head&layer=3&head=1';
    const [a, b] = [await embedRun(hosts[0].origin, path, 1), await embedRun(hosts[1].origin, path, 1)];
    assertSameRuns(a, b, 1);
    const [fa, fb] = [await embedRun(hosts[0].origin, '/post.html', 1, { inFrame: true }),
      await embedRun(hosts[1].origin, '/post.html', 1, { inFrame: true })];
    assertSameRuns(fa, fb, 1);
    assert.equal(maxAbsDiff(fa.attentions, a.attentions), 0);
  } finally {
    for (const h of hosts) await h.close();
  }
});
