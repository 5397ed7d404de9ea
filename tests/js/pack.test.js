// The npm package as users get it: `npm pack` holds exactly what users need (no tests, fixtures,
// sources), installs offline into an empty project, works from Node (API, worker, bin), bundles
// with Vite and esbuild with no configuration, and the Vite build runs in Chromium: the bundled
// model in the page and in a Web Worker, and a hub model downloaded once then served from
// Cache Storage (a second visit makes no request).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, statSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

import { tinyBertFiles } from './helpers/api-tiny-model.js';
import { startMockHub } from './helpers/api-mock-hub.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'attnscope-pack-'));
const app = join(work, 'app');
const npmEnv = { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };
let tarball;
let packed;

const sh = (cmd, args, cwd, options = {}) => execFileSync(cmd, args, { cwd, env: npmEnv, encoding: 'utf8', maxBuffer: 1 << 26, ...options });

before(() => {
  [packed] = JSON.parse(sh('npm', ['pack', '--json', '--pack-destination', work], ROOT));
  tarball = join(work, packed.filename);
  sh('mkdir', ['-p', app], work);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  sh('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], app);
});
after(() => rmSync(work, { recursive: true, force: true }));

describe('npm package', () => {
  it('holds what users need and nothing else', () => {
    const files = packed.files.map((f) => f.path).sort();
    console.log(`# tarball ${packed.filename}: ${packed.size} bytes packed, ${packed.unpackedSize} unpacked, ${files.length} files`);
    for (const needed of ['package.json', 'dist/attnscope.mjs', 'dist/attnscope.wasm', 'dist/attnscope-relaxed.wasm', 'dist/attnscope-core.wasm', 'dist/attnscope-core-relaxed.wasm', 'dist/attnscope-encoder.wasm', 'dist/attnscope-mt.mjs', 'dist/attnscope-mt.wasm',
      'dist/attnscope-mt-relaxed.wasm', 'dist/attnscope-mt.worker.js', 'js/node-pthread-worker.js', 'js/index.js', 'js/index.d.ts',
      'js/worker.js', 'js/worker/client.js', 'js/worker/client.d.ts', 'js/cli/cli.js', 'js/platform-node.js',
      'js/platform-browser.js', 'model/config.json', 'model/model.safetensors', 'model/vocab.txt',
      'model-causal/config.json', 'model-causal/model.safetensors', 'model-causal/tokenizer.json',
      'model-seq2seq/config.json', 'model-seq2seq/model.safetensors', 'model-seq2seq/tokenizer.json', 'model-seq2seq/heldout.jsonl']) {
      assert.ok(files.includes(needed), `${needed} missing from the tarball`);
    }
    const allowed = /^(package\.json|README\.md|LICENSE|dist\/attnscope(-mt|-core|-encoder)?(\.mjs|\.wasm|-relaxed\.wasm|\.worker\.js)|js\/([a-z]+\/)?([\w-]+\.(js|d\.ts)|README\.md)|model(-causal|-seq2seq)?\/[\w.-]+)$/;
    const unexpected = files.filter((f) => !allowed.test(f));
    assert.deepEqual(unexpected, [], 'files users do not need');
    assert.ok(!files.some((f) => /(^|\/)(tests?|fixtures|engine|bindings|scripts|tools|web|docs|build)\//.test(f)));
    const manifest = JSON.parse(readFileSync(join(app, 'node_modules/attnscope/package.json'), 'utf8'));
    assert.equal(manifest.dependencies, undefined, 'the package must have no runtime dependencies');
    assert.deepEqual(Object.keys(manifest.exports['.']), ['types', 'default']);
  });

  it('works from Node: API, worker, and the attnscope bin', () => {
    writeFileSync(join(app, 'node-check.mjs'), `
      import { loadModel } from 'attnscope';
      import { createWorkerClient } from 'attnscope/worker';
      const model = await loadModel();
      const r = await model.run('The bank of the river.');
      const client = createWorkerClient();
      await client.load();
      const w = await client.run('The bank of the river.');
      await client.terminate();
      console.log(JSON.stringify({ tokens: r.tokens, shape: r.shape, location: model.info.location,
        same: w.attentions.length === r.attentions.length && w.attentions.every((x, i) => x === r.attentions[i]) }));`);
    const out = JSON.parse(sh(process.execPath, ['node-check.mjs'], app));
    assert.equal(out.tokens[0], '[CLS]');
    assert.equal(out.tokens.at(-1), '[SEP]');
    assert.equal(out.shape[2], out.tokens.length);
    assert.equal(out.location, join(app, 'node_modules/attnscope/model'));
    assert.equal(out.same, true);
    const info = JSON.parse(sh(join(app, 'node_modules/.bin/attnscope'), ['info'], app));
    assert.equal(info.path, join(app, 'node_modules/attnscope/model'));
  });

  it('bundles with esbuild for the browser with no configuration', async () => {
    writeFileSync(join(app, 'main.js'), PAGE_SCRIPT);
    const esbuild = await import(join(ROOT, 'node_modules/esbuild/lib/main.js'));
    const result = await (esbuild.default ?? esbuild).build({
      entryPoints: [join(app, 'main.js')], bundle: true, format: 'esm', platform: 'browser', outdir: join(work, 'esbuild-out'),
      absWorkingDir: app, logLevel: 'silent', write: true,
    });
    assert.deepEqual(result.errors, []);
    const bundle = readFileSync(join(work, 'esbuild-out', 'main.js'), 'utf8');
    assert.doesNotMatch(bundle, /from\s*["']node:/, 'Node built-ins leaked into the browser bundle');
  });

  describe('Vite build in Chromium', () => {
    let server;
    let hub;
    let browser;
    before(async () => {
      writeFileSync(join(app, 'index.html'), '<!doctype html><title>loading</title><script type="module" src="./main.js"></script>');
      writeFileSync(join(app, 'main.js'), PAGE_SCRIPT);
      const log = sh(process.execPath, [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'], app,
        { stdio: ['ignore', 'pipe', 'pipe'] });
      assert.doesNotMatch(log, /error/i);
      server = await serveStatic(join(app, 'dist'));
      hub = await startMockHub({ 'org/tiny': tinyBertFiles({ seed: 21 }) });
      const { chromium } = await import('playwright-core');
      browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
    });
    after(async () => {
      await browser?.close();
      await hub?.close();
      await new Promise((resolve) => (server ? server.close(resolve) : resolve()));
    });

    it('emits the wasm, the worker and the bundled model as assets', () => {
      const assets = readdirSync(join(app, 'dist/assets'));
      const sizes = Object.fromEntries(assets.map((a) => [a, statSync(join(app, 'dist/assets', a)).size]));
      console.log(`# vite assets: ${JSON.stringify(sizes)}`);
      assert.ok(assets.some((a) => /^attnscope-.*\.wasm$/.test(a)), 'no wasm asset');
      assert.ok(assets.some((a) => /^worker-.*\.js$/.test(a)), 'no worker chunk');
      assert.ok(assets.some((a) => /^model-.*\.safetensors$/.test(a)), 'no bundled weights asset');
    });

    async function visit(page, query) {
      await page.goto(`http://127.0.0.1:${server.address().port}/index.html${query}`);
      await page.waitForFunction(() => document.title === 'done', null, { timeout: 60000 });
      return page.evaluate(() => window.__result);
    }

    it('runs the bundled model in the page and in a Web Worker', async () => {
      const page = await browser.newPage();
      const errors = [];
      page.on('pageerror', (e) => errors.push(e.message));
      const result = await visit(page, '');
      assert.equal(result.error, undefined, result.error);
      assert.equal(result.tokens[0], '[CLS]');
      assert.equal(result.shape[2], result.tokens.length);
      assert.equal(result.rowSum.toFixed(4), '1.0000');
      assert.equal(result.same, true, 'worker and page results differ');
      assert.deepEqual(errors, []);
      await page.close();
    });

    it('downloads a hub model once; a second visit is served from Cache Storage', async () => {
      const context = await browser.newContext();
      const page = await context.newPage();
      const query = `?source=org/tiny&hub=${encodeURIComponent(hub.url)}`;
      const first = await visit(page, query);
      assert.equal(first.error, undefined, first.error);
      const weights = hub.requests.filter((u) => u.endsWith('model.safetensors')).length;
      assert.equal(weights, 1, `first visit: weights fetched ${weights} times (page + worker share the cache)`);
      const before = hub.requests.length;
      const second = await visit(page, query);
      assert.equal(second.error, undefined, second.error);
      assert.deepEqual(second.tokens, first.tokens);
      assert.equal(hub.requests.length, before, `second visit made requests: ${hub.requests.slice(before)}`);
      await context.close();
    });
  });
});

// The app's page script: loads ?source (default: the bundled model) in the page and in a worker.
const PAGE_SCRIPT = `
import { loadModel } from 'attnscope';
import { createWorkerClient } from 'attnscope/worker';
(async () => {
  const params = new URLSearchParams(location.search);
  const source = params.get('source') ?? undefined;
  const hubUrl = params.get('hub') ?? undefined;
  const out = {};
  try {
    const model = await loadModel(source, { hubUrl });
    const r = await model.run('The bank of the river.');
    out.tokens = r.tokens;
    out.shape = r.shape;
    out.rowSum = r.attention(0, 0).subarray(0, r.shape[2]).reduce((a, b) => a + b, 0);
    const client = createWorkerClient();
    await client.load(source, { hubUrl });
    const w = await client.run('The bank of the river.');
    out.same = w.attentions.length === r.attentions.length && w.attentions.every((x, i) => x === r.attentions[i]);
    await client.terminate();
    model.dispose();
  } catch (e) {
    out.error = (e.code || e.name) + ': ' + e.message;
  }
  window.__result = out;
  document.title = 'done';
})();
`;

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json' };

function serveStatic(dir) {
  const server = createServer((request, response) => {
    const path = normalize(join(dir, decodeURIComponent(new URL(request.url, 'http://x').pathname)));
    if (!path.startsWith(dir) || !existsSync(path) || statSync(path).isDirectory()) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream' });
    response.end(readFileSync(path));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}
