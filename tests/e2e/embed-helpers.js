// Set-up for the <attn-scope> tests: a static server for dist/, model/ and examples/ that sends
// the strict Content-Security-Policy the element must live under (plus in-memory test pages),
// the embed bundle built once, Debian's Chromium, and a page that records console errors,
// uncaught errors and CSP violations.
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { buildEmbed } from '../../scripts/build-embed.mjs';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './helpers.js';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const STRICT_CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; " +
  "worker-src 'self' blob:; img-src 'self' data: blob:";

const FOLDERS = ['dist', 'model', 'model-causal', 'model-seq2seq', 'examples', 'tests'];   // tests: fixture folders as model URLs
const MIME = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.json': 'application/json',
  '.wasm': 'application/wasm', '.txt': 'text/plain; charset=utf-8' };

let built = null;
/** Builds dist/attnscope-element.js and dist/attnscope-embed.html once per test process. */
export function ensureBuilt() {
  built ??= buildEmbed({ quiet: true });
  return built;
}

/**
 * Serves dist/, model/, examples/ and `pages` ({'/path.html': html}) with the strict CSP.
 * `log` collects every request path (to count model downloads).
 */
export async function startServer({ pages = {}, csp = STRICT_CSP } = {}) {
  const log = [];
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    log.push(path);
    const headers = { 'Content-Security-Policy': csp, 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store' };
    if (Object.hasOwn(pages, path)) {
      res.writeHead(200, { ...headers, 'Content-Type': MIME['.html'] });
      return res.end(pages[path]);
    }
    const top = path.split('/')[1];
    const file = resolve(ROOT, '.' + path);
    if (!FOLDERS.includes(top) || !file.startsWith(join(ROOT, top) + sep)) {
      res.writeHead(404, headers);
      return res.end('not found');
    }
    try {
      const body = await readFile(file);
      res.writeHead(200, { ...headers, 'Content-Type': MIME[extname(file)] ?? 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404, headers);
      res.end('not found');
    }
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${server.address().port}`;
  return { origin, log, close: () => new Promise((r) => { server.closeAllConnections(); server.close(r); }) };
}

export function launchBrowser() {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
}

/**
 * A page that records problems: console errors, uncaught errors, CSP violations (reported by a
 * listener installed before any page script), dialogs (alert() from injected markup) and
 * window.__pwned being set. `workers` counts Web Workers the page starts.
 */
export async function guardedPage(browser, { viewport = { width: 1100, height: 900 }, offline = false, deviceScaleFactor = 1 } = {}) {
  const context = await browser.newContext({ viewport, deviceScaleFactor, acceptDownloads: true });
  if (offline) await context.setOffline(true);
  const page = await context.newPage();
  const problems = [];
  const workers = [];
  await page.addInitScript(() => {
    window.__violations = [];
    window.__attnscopeErrors = [];
    document.addEventListener('attnscope-error', (e) => window.__attnscopeErrors.push(e.detail));
    document.addEventListener('securitypolicyviolation', (e) => {
      window.__violations.push(`${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console.error: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`uncaught: ${e.message}`));
  page.on('dialog', (d) => { problems.push(`dialog: ${d.message()}`); d.dismiss().catch(() => {}); });
  page.on('worker', (w) => workers.push(w.url()));
  const check = async () => {
    const violations = await page.evaluate(() => window.__violations);
    const pwned = await page.evaluate(() => window.__pwned ?? null);
    return [...problems, ...violations.map((v) => `CSP violation: ${v}`), ...(pwned ? [`script ran: ${pwned}`] : [])];
  };
  return { page, context, problems, workers, check };
}

/** Waits until every <attn-scope> on the page has finished (ready or error). */
export async function waitForElements(page, count, timeout = 60000) {
  await page.waitForFunction((n) => {
    const els = [...document.querySelectorAll('attn-scope')];
    return els.length >= n && els.every((e) => e.dataset.status === 'ready' || e.dataset.status === 'error');
  }, count, { timeout });
}

/** An HTML page that loads the element bundle and holds `body` (markup only: no inline script). */
export function elementPage(body, { scripts = [] } = {}) {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>embed test</title><link rel="icon" href="data:,">
<script type="module" src="/dist/attnscope-element.js"></script>
${scripts.map((s) => `<script type="module" src="${s}"></script>`).join('\n')}
</head><body>${body}</body></html>`;
}
