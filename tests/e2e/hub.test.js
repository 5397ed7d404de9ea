// Hub models without the internet: Playwright answers https://huggingface.co/<id>/resolve/main/*
// from a random fixture folder, so the real loader path runs (fetch in the worker, progress,
// Cache Storage). Checks: nothing goes to the hub until a hub model is picked and Load pressed; the progress bar
// shows; a second pick is served from the cache; a permalink restores the hub model; a missing
// repo shows E_NOT_FOUND and keeps the model; a slow download can be cancelled.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { guardedPage, launchBrowser, startServer, waitForRuns, writeBertFixture } from './helpers.js';

const HUB = 'https://huggingface.co/';
let server, browser, page, context, problems, allowed, tmp;
const hubHits = [];
let stall = null;   // a Promise that, while set, holds model.safetensors responses

before(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'attnscope-hub-'));
  writeBertFixture(join(tmp, 'hub'), { layers: 2, heads: 3, hidden: 24, intermediate: 48, maxPositions: 64, seed: 3 });
  server = await startServer();
  browser = await launchBrowser();
  ({ page, context, problems, allowed } = await guardedPage(browser, server.origin));
  await context.route(HUB + '**', async (route) => {
    const url = new URL(route.request().url());
    hubHits.push(url.pathname);
    const [, owner, name] = url.pathname.match(/^\/(.+)\/resolve\/main\/([^/]+)$/) ?? [];
    const headers = { 'access-control-allow-origin': '*', 'content-type': 'application/octet-stream' };
    if (!owner || owner.startsWith('nobody/')) return route.fulfill({ status: 404, body: 'Repository not found', headers });
    if (name === 'model.safetensors' && stall) await stall;
    try {
      await route.fulfill({ status: 200, body: readFileSync(join(tmp, 'hub', name)), headers });
    } catch {
      await route.fulfill({ status: 404, body: 'Entry not found', headers }).catch(() => {});
    }
  });
  await page.goto(server.origin + '/');
  await waitForRuns(page, 1);
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

test('nothing is fetched from the hub until a hub model is picked', () => {
  assert.deepEqual(hubHits, []);
  assert.deepEqual(problems, []);
});

test('picking a curated hub model and Load downloads it, with progress, then a second pick uses the cache', async () => {
  allowed.add(HUB);
  const runs = await page.evaluate(() => window.__attnscope.runsDone);
  await page.locator('#model-select').selectOption('bert-base-uncased');
  assert.deepEqual(hubHits, [], 'choosing in the list alone downloaded');
  await page.locator('#hub-load').click();
  await page.waitForFunction((r) => window.__attnscope.runsDone > r && window.__attnscope.info?.source === 'hub', runs);
  assert.deepEqual((await page.evaluate(() => window.__attnscope.shape)).slice(0, 2), [2, 3]);
  assert.ok(hubHits.includes('/bert-base-uncased/resolve/main/model.safetensors'));
  assert.match(page.url(), /model=bert-base-uncased/);
  assert.match(await page.locator('#model-info').textContent(), /bert-base-uncased/);
  // Back to the bundled model, then the hub model again: served from Cache Storage.
  await page.locator('#model-select').selectOption('bundled');
  await page.waitForFunction(() => window.__attnscope.info?.source === 'bundled');
  const before = hubHits.length;
  await page.locator('#model-select').selectOption('bert-base-uncased');
  await page.locator('#hub-load').click();
  await page.waitForFunction(() => window.__attnscope.info?.source === 'hub');
  assert.equal(hubHits.filter((p) => p.endsWith('model.safetensors')).length, hubHits.slice(0, before).filter((p) => p.endsWith('model.safetensors')).length,
    'the weights were downloaded twice');
});

test('a permalink with a hub model restores it', async () => {
  const second = await guardedPage(browser, server.origin, undefined, new Set([HUB]));
  await second.context.route(HUB + '**', (route) => {
    const headers = { 'access-control-allow-origin': '*' };
    try {
      const body = readFileSync(join(tmp, 'hub', new URL(route.request().url()).pathname.split('/').pop()));
      return route.fulfill({ status: 200, headers, body });
    } catch {
      return route.fulfill({ status: 404, headers, body: 'Entry not found' });
    }
  });
  await second.page.goto(`${server.origin}/?model=sentence-transformers%2Fall-MiniLM-L6-v2&view=head`);
  await second.page.waitForFunction(() => window.__attnscope.info?.source === 'hub' && window.__attnscope.runsDone >= 1);
  assert.equal(await second.page.evaluate(() => window.__attnscope.state.model), 'sentence-transformers/all-MiniLM-L6-v2');
  assert.deepEqual(second.problems, []);
  await second.context.close();
});

test('a hub id that does not exist shows why and keeps the current model', async () => {
  const shape = await page.evaluate(() => window.__attnscope.shape);
  await page.locator('#model-select').selectOption('__hub');
  await page.locator('#hub-input').fill('nobody/no-such-model');
  await page.locator('#hub-load').click();
  await page.locator('#model-error').waitFor({ state: 'visible' });
  assert.match(await page.locator('#model-error').textContent(), /E_NOT_FOUND/);
  assert.deepEqual(await page.evaluate(() => window.__attnscope.shape), shape);
  assert.equal(await page.evaluate(() => window.__attnscope.state.model), 'bert-base-uncased');
  // An invalid id is refused before any request.
  const hits = hubHits.length;
  await page.locator('#hub-input').fill('../../etc/passwd');
  await page.locator('#hub-load').click();
  assert.match(await page.locator('#model-error').textContent(), /owner\/name/);
  assert.equal(hubHits.length, hits);
});

test('a slow download can be cancelled; the model in use stays', async () => {
  let release;
  stall = new Promise((r) => { release = r; });
  await page.locator('#model-select').selectOption('__hub');
  await page.locator('#hub-input').fill('someone/slow-model');
  await page.locator('#hub-load').click();
  await page.locator('#progress-row').waitFor({ state: 'visible' });
  await page.waitForFunction(() => /slow-model/.test(document.querySelector('#progress-text').textContent));
  await page.locator('#cancel').click();
  await page.locator('#model-error').waitFor({ state: 'visible' });
  assert.match(await page.locator('#model-error').textContent(), /cancel/i);
  stall = null;
  release();
  assert.ok(await page.locator('#progress-row').isHidden());
  assert.equal(await page.evaluate(() => window.__attnscope.state.model), 'bert-base-uncased');
  // The page still runs.
  const runs = await page.evaluate(() => window.__attnscope.runsDone);
  await page.locator('#text-a').fill('a big red tree');
  await waitForRuns(page, runs + 1);
});

test('no console errors or uncaught errors; no request beyond the page and the hub', () => {
  assert.deepEqual(problems, []);
});
