// The static server behind `npm start`: serves the explorer page at `/` and only the folders it
// needs (web/, js/, dist/, model/, model-causal/, and examples/ for the <attn-scope> blog example), with correct MIME types (application/wasm for streaming
// compilation). Zero dependencies; not a production server. PORT=0 picks a free port.
import { createServer } from 'node:http';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SERVED_FOLDERS = ['web', 'js', 'dist', 'model', 'model-causal', 'examples'];

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
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
function fileFor(urlPath, folders) {
  let path;
  try {
    path = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (path.includes('\0')) return null;
  if (path === '/' || path === '/index.html') return join(ROOT, 'web', 'index.html');
  const top = path.split('/')[1];
  if (!SERVED_FOLDERS.includes(top)) return null;
  const folder = folders[top];
  const file = resolve(folder, '.' + path.slice(top.length + 1));
  if (file !== folder && !file.startsWith(folder + sep)) return null;
  return file;
}

function send(res, status, text) {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

// modelDir: serve /model/ from another folder (e.g. a test fixture); default the repo's model/.
export function createStaticServer({ modelDir = process.env.ATTNSCOPE_MODEL_DIR } = {}) {
  const folders = Object.fromEntries(SERVED_FOLDERS.map((f) => [f, join(ROOT, f)]));
  if (modelDir) folders.model = resolve(modelDir);
  return createServer(async (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'method not allowed');
    const url = new URL(req.url, 'http://localhost');
    const file = fileFor(url.pathname, folders);
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
    });
    if (req.method === 'HEAD') return res.end();
    createReadStream(file).on('error', () => res.destroy()).pipe(res);
  });
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
    console.log(`AttnScope explorer: ${origin}/\n<attn-scope> blog example: ${origin}/examples/embed.html`);
  });
}
