// scripts/serve.mjs: `/` is the page, only web/, js/, dist/ and model/ are served, with the MIME
// types browsers need (application/wasm for streaming compilation, text/javascript for modules),
// no directory listings, no way out of the served folders, and PORT is honoured.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, writeBertFixture } from './helpers.js';

let server, tmp;
before(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'attnscope-serve-'));
  writeBertFixture(join(tmp, 'm'), { layers: 1, heads: 1, hidden: 4, intermediate: 4, maxPositions: 4 });
  process.env.ATTNSCOPE_MODEL_DIR = join(tmp, 'm');
  server = await startServer();
  delete process.env.ATTNSCOPE_MODEL_DIR;
});
after(async () => {
  await server?.close();
  rmSync(tmp, { recursive: true, force: true });
});

const get = (path, method = 'GET') => fetch(server.origin + path, { method, redirect: 'manual' });

test('the page and its assets, with the right MIME types', async () => {
  const cases = [
    ['/', 'text/html'],
    ['/web/style.css', 'text/css'],
    ['/dist/explorer.js', 'text/javascript'],
    ['/js/worker/client.js', 'text/javascript'],
    ['/dist/attnscope.wasm', 'application/wasm'],
    ['/model/config.json', 'application/json'],
    ['/model/model.safetensors', 'application/octet-stream'],
    ['/model/vocab.txt', 'text/plain'],
    ['/examples/embed.html', 'text/html'],
    ['/examples/blog.css', 'text/css'],
  ];
  for (const [path, type] of cases) {
    const r = await get(path);
    assert.equal(r.status, 200, path);
    assert.ok(r.headers.get('content-type').startsWith(type), `${path}: ${r.headers.get('content-type')}`);
    assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
    await r.arrayBuffer();
  }
  const page = await (await get('/')).text();
  assert.match(page, /<script type="module" src="\/dist\/explorer\.js"><\/script>/);
  // No inline script or handler: the strict CSP the server sends can stay strict.
  assert.doesNotMatch(page.replace(/<script type="module" src="[^"]+"><\/script>/g, ''), /<script|\son[a-z]+=/i);
  const csp = (await get('/')).headers.get('content-security-policy');
  assert.match(csp, /script-src 'self' 'wasm-unsafe-eval'/);
  assert.doesNotMatch(csp, /unsafe-inline|'unsafe-eval'/);
  const head = await get('/dist/attnscope.wasm', 'HEAD');
  assert.equal(head.status, 200);
  assert.ok(Number(head.headers.get('content-length')) > 1000);
});

test('nothing outside the page is served: no repo root, tests, node_modules, listings or traversal', async () => {
  for (const path of ['/package.json', '/tests/e2e/helpers.js', '/node_modules/esbuild/package.json',
    '/scripts/serve.mjs', '/.git/config', '/web/', '/js', '/model/', '/web/../package.json',
    '/web/%2e%2e/package.json', '/dist/%2e%2e%2fpackage.json', '/web/..%2f..%2fetc/passwd', '/web/%00',
    '/web/%E0%A4%A', '/docs/DESIGN.md']) {
    const r = await get(path);
    assert.equal(r.status, 404, path);
    await r.arrayBuffer();
  }
  const post = await get('/', 'POST');
  assert.equal(post.status, 405);
});

test('npm start honours PORT', async () => {
  const port = await new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => { const p = probe.address().port; probe.close(() => resolve(p)); });
  });
  const child = spawn(process.execPath, ['scripts/serve.mjs'], { cwd: join(import.meta.dirname, '../..'), env: { ...process.env, PORT: String(port) } });
  try {
    await new Promise((resolve, reject) => {
      child.stdout.on('data', (d) => { if (String(d).includes(`:${port}/`)) resolve(); });
      child.on('exit', (code) => reject(new Error(`serve.mjs exited with ${code}`)));
      setTimeout(() => reject(new Error('serve.mjs did not start')), 15000);
    });
    const r = await fetch(`http://127.0.0.1:${port}/`);
    assert.equal(r.status, 200);
    await r.text();
  } finally {
    child.kill();
  }
});
