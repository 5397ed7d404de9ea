// The static server behind `npm start`: serves the explorer page at `/` and only the folders it
// needs (web/, js/, dist/, model/, model-causal/, model-seq2seq/, and examples/ for the <attn-scope> blog example), with correct MIME types (application/wasm for streaming
// compilation), cross-origin isolated (see ISOLATION_HEADERS). Zero dependencies; not a
// production server. PORT=0 picks a free port; ATTNSCOPE_ISOLATION=off serves without isolation
// (to try the one-thread fallback by hand).
import { createServer } from 'node:http';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { pipeline } from 'node:stream';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SERVED_FOLDERS = ['web', 'js', 'dist', 'model', 'model-causal', 'model-seq2seq', 'examples'];

// Cross-origin isolation: with these two headers on the page (and on every script, worker and
// iframe it loads) `crossOriginIsolated` is true, so SharedArrayBuffer exists and the engine can
// run on several threads. require-corp, not credentialless: everything the page loads is
// same-origin except a hub model, which the worker fetches in CORS mode from huggingface.co (and
// the CDN it redirects to) — CORS responses pass require-corp, and no <img>/<script> from
// another origin is ever used (the CSP below forbids them anyway).
export const ISOLATION_HEADERS = Object.freeze({
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  // Our files are only ever loaded by our own pages; say so, so another origin's isolated page
  // cannot pull them in with a no-cors request either.
  'Cross-Origin-Resource-Policy': 'same-origin',
});

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.jsonl': 'application/jsonl; charset=utf-8',  // model-seq2seq/heldout.jsonl, one JSON a line
  '.wasm': 'application/wasm',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.map': 'application/json; charset=utf-8',
  '.safetensors': 'application/octet-stream',
  '.d.ts': 'text/plain; charset=utf-8',
};

// Maps a URL path to a file under one of the served folders, or null. Rejects traversal
// ("..", encoded or not) by resolving and checking the prefix rather than pattern-matching.
// `mounts` ({'/url/path': file or folder}) come first: the benchmark adds its page, data and
// onnxruntime-web's files this way.
function fileFor(urlPath, folders, mounts) {
  let path;
  try {
    path = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (path.includes('\0')) return null;
  for (const [prefix, target] of Object.entries(mounts)) {
    if (path === prefix) return target;
    if (path.startsWith(prefix + '/')) return inside(target, path.slice(prefix.length));
  }
  if (path === '/' || path === '/index.html') return join(ROOT, 'web', 'index.html');
  const top = path.split('/')[1];
  if (!SERVED_FOLDERS.includes(top)) return null;
  return inside(folders[top], path.slice(top.length + 1));
}

function inside(folder, rest) {
  const file = resolve(folder, '.' + rest);
  return file !== folder && file.startsWith(folder + sep) ? file : null;
}

// The path of a request target (origin-form "/web/x.js" or absolute-form "http://host/web/x.js"),
// or null when it is not a URL at all ("http://[bad/"): the client's mistake, answered with 400.
function requestPath(target) {
  try {
    return new URL(target, 'http://localhost').pathname;
  } catch {
    return null;
  }
}

function send(res, status, text) {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

// modelDir: serve /model/ from another folder (e.g. a test fixture); default the repo's model/.
// isolated: send ISOLATION_HEADERS (default; false gives a plain server, as most blogs are).
// mounts: extra {'/url/path': absolute file or folder} served before the usual folders.
export function createStaticServer({ modelDir = process.env.ATTNSCOPE_MODEL_DIR,
  isolated = process.env.ATTNSCOPE_ISOLATION !== 'off', mounts = {} } = {}) {
  const folders = Object.fromEntries(SERVED_FOLDERS.map((f) => [f, join(ROOT, f)]));
  if (modelDir) folders.model = resolve(modelDir);
  const resolvedMounts = Object.fromEntries(Object.entries(mounts).map(([prefix, target]) => [prefix.replace(/\/+$/, ''), resolve(target)]));
  const policy = isolated ? ISOLATION_HEADERS : {};
  const server = createServer((req, res) => {
    // Nothing a request carries may end the process: an error here is this request's 500 (or,
    // once the headers are out, its closed connection), never an unhandled rejection.
    respond(req, res).catch(() => {
      if (res.headersSent) return res.destroy();
      try {
        send(res, 500, 'internal error');
      } catch {
        res.destroy();
      }
    });
  });

  async function respond(req, res) {
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'method not allowed');
    const path = requestPath(req.url);
    if (path === null) return send(res, 400, 'bad request target');
    const file = fileFor(path, folders, resolvedMounts);
    if (!file) return send(res, 404, 'not found');
    let info;
    try {
      info = await stat(file);
    } catch {
      return send(res, 404, 'not found');
    }
    if (!info.isFile()) return send(res, 404, 'not found');  // no directory listings
    const type = MIME[file.endsWith('.d.ts') ? '.d.ts' : extname(file)] || 'application/octet-stream';
    res.writeHead(200, {
      'Content-Type': type,
      'Content-Length': info.size,
      'Cache-Control': 'no-cache',
      'X-Content-Type-Options': 'nosniff',
      // The page needs no inline script, eval or third-party origin except the hub, which the
      // worker fetches only when the user picks a hub model.
      'Content-Security-Policy': "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; " +
        "worker-src 'self' blob:; style-src 'self'; img-src 'self' data: blob:; " +
        "connect-src 'self' https://huggingface.co https://*.huggingface.co https://*.hf.co https://*.xethub.hf.co",
      ...policy,
    });
    if (req.method === 'HEAD') return res.end();
    // pipeline, not pipe: when the client goes away mid-download, pipe leaves the file stream
    // paused and open (one descriptor kept per aborted download); pipeline destroys it.
    pipeline(createReadStream(file), res, (error) => { if (error) res.destroy(); });
  }
  server.isolated = isolated;
  return server;
}

// Started directly (npm start), not imported by the tests.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const port = Number(process.env.PORT ?? 8080);
  // The page and the element are served from their bundles (dist/explorer.js,
  // dist/attnscope-element.js): rebuild them so edits show up.
  const { buildExplorer } = await import('../web/build.mjs');
  await buildExplorer({ quiet: true });
  const { buildEmbed } = await import('./build-embed.mjs');
  await buildEmbed({ quiet: true }).catch((error) => console.warn(`embed not rebuilt: ${error.message}`));
  const server = createStaticServer();
  server.listen(port, '127.0.0.1', () => {
    const origin = `http://127.0.0.1:${server.address().port}`;
    console.log(`AttnScope explorer: ${origin}/\n<attn-scope> blog example: ${origin}/examples/embed.html\n` +
      (server.isolated ? 'cross-origin isolated (COOP/COEP): the engine may use several threads' :
        'not cross-origin isolated (ATTNSCOPE_ISOLATION=off): one thread'));
  });
}
