// A stand-in for the Hugging Face hub on 127.0.0.1: serves model folders at
// /<owner>/<name>/resolve/<revision>/<file> with Content-Length, 404 for anything else, and can
// misbehave on purpose (slow bodies, a lying Content-Length, 500s) for the error and cancellation
// tests. Records every request so tests can count downloads.
import { createServer } from 'node:http';

/**
 * @param {Record<string, Record<string, string|Uint8Array>>} repos repo id → file name → contents
 * @param {{
 *   slowFiles?: Set<string>,           // bodies sent in small chunks with a delay (cancellation)
 *   chunkDelayMs?: number,
 *   fakeSizes?: Record<string, number>, // file name → Content-Length to claim (body not sent)
 *   failFiles?: Record<string, number>, // file name → HTTP status to answer
 *   gzipFiles?: Set<string>,            // drop Content-Length (as a compressed response would)
 *   truncateFiles?: Set<string>,        // send half the body, then drop the connection
 * }} [behaviour]
 * @returns {Promise<{url: string, requests: string[], close: () => Promise<void>}>}
 */
export async function startMockHub(repos, behaviour = {}) {
  const requests = [];
  const sockets = new Set();
  const server = createServer((request, response) => {
    requests.push(request.url);
    // The real hub allows cross-origin reads: pages on any origin fetch from it.
    response.setHeader('access-control-allow-origin', '*');
    response.setHeader('access-control-expose-headers', 'content-length');
    const match = /^\/(.+)\/resolve\/([^/]+)\/([^/?]+)$/.exec(request.url.split('?')[0]);
    const repo = match && repos[decodeURIComponent(match[1])];
    const name = match && decodeURIComponent(match[3]);
    if (!repo) {
      // The real hub answers 401 for a repository that does not exist.
      response.writeHead(match ? 401 : 404, { 'content-type': 'text/plain' }).end('Repository not found');
      return;
    }
    if (behaviour.failFiles?.[name]) {
      response.writeHead(behaviour.failFiles[name], { 'content-type': 'text/plain' }).end('failure');
      return;
    }
    if (!(name in repo)) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Entry not found');
      return;
    }
    const body = typeof repo[name] === 'string' ? Buffer.from(repo[name]) : Buffer.from(repo[name]);
    if (behaviour.fakeSizes?.[name] !== undefined) {
      response.writeHead(200, { 'content-length': String(behaviour.fakeSizes[name]) });
      response.flushHeaders();
      return; // never sends the body; the client must refuse before reading it
    }
    const headers = { 'content-type': 'application/octet-stream' };
    if (!behaviour.gzipFiles?.has(name)) headers['content-length'] = String(body.length);
    response.writeHead(200, headers);
    if (behaviour.truncateFiles?.has(name)) {
      response.write(body.subarray(0, body.length >> 1), () => response.destroy());
      return;
    }
    if (!behaviour.slowFiles?.has(name)) {
      response.end(body);
      return;
    }
    let offset = 0;
    const step = 1024;
    const timer = setInterval(() => {
      if (response.destroyed) return clearInterval(timer);
      response.write(body.subarray(offset, offset + step));
      offset += step;
      if (offset >= body.length) {
        clearInterval(timer);
        response.end();
      }
    }, behaviour.chunkDelayMs ?? 20);
    response.on('close', () => clearInterval(timer));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    }),
  };
}

/** An http URL on 127.0.0.1 where nothing listens (a port that was just freed): connection refused. */
export async function unreachableUrl() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}/model/`;
}
