// scripts/serve.mjs (`npm start`) against hostile clients, over loopback: request lines whose
// target is no URL get 400 and the server keeps serving; downloads the client aborts close their
// file (the server's open descriptors, counted in /proc, stay flat over 1,000 of them).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SERVE = fileURLToPath(new URL('../../scripts/serve.mjs', import.meta.url));
// Larger than loopback's socket buffers (tcp_wmem's 4 MB at most), so an aborted download is
// still being read from disk when its client goes away. Sparse: costs no disk.
const BIG_FILE_BYTES = 64 * 1024 ** 2;

let tmp, server, port;

before(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'attnscope-serve-hostile-'));
  writeFileSync(join(tmp, 'config.json'), '{}');
  writeFileSync(join(tmp, 'model.safetensors'), '');
  truncateSync(join(tmp, 'model.safetensors'), BIG_FILE_BYTES);
  // The server in its own process, as `npm start` runs it (without the bundle rebuild), so its
  // descriptors can be counted and its death seen.
  const program = `import { createStaticServer } from ${JSON.stringify(SERVE)};
    const server = createStaticServer({ modelDir: ${JSON.stringify(tmp)} });
    server.listen(0, '127.0.0.1', () => console.log('port ' + server.address().port));`;
  server = spawn(process.execPath, ['--input-type=module', '-e', program], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  server.stderr.on('data', (d) => { stderr += d; });
  port = await new Promise((resolve, reject) => {
    server.stdout.on('data', (d) => { const m = /port (\d+)/.exec(String(d)); if (m) resolve(Number(m[1])); });
    server.on('exit', (code) => reject(new Error(`the server exited with ${code}: ${stderr}`)));
    setTimeout(() => reject(new Error('the server did not start in 15 s')), 15000).unref();
  });
});

after(() => {
  server?.kill();
  rmSync(tmp, { recursive: true, force: true });
});

// Sends `bytes` raw and resolves to what came back before the server closed the connection (or
// 2 s passed: a keep-alive answer leaves it open).
function rawRequest(bytes) {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let reply = '';
    const done = () => { socket.destroy(); resolve(reply); };
    socket.setTimeout(2000, done);
    socket.on('data', (d) => {
      reply += d.toString('latin1');
      if (/\r\n\r\n/.test(reply)) done();   // the status line and headers are all we read
    });
    socket.on('end', done);
    socket.on('close', done);
    socket.on('error', (error) => (error.code === 'ECONNRESET' ? done() : reject(error)));
    socket.write(bytes);
  });
}

const statusOf = (reply) => Number(/^HTTP\/1\.1 (\d{3})/.exec(reply)?.[1] ?? NaN);

async function assertServing(after) {
  assert.equal(server.exitCode, null, `the server died after ${after}`);
  const r = await fetch(`http://127.0.0.1:${port}/model/config.json`);
  assert.equal(r.status, 200, `after ${after}`);
  assert.equal(await r.text(), '{}');
}

test('request targets that are no URL get 400, and the server keeps serving', async () => {
  // Targets Node's HTTP parser lets through but WHATWG URL refuses (the first one killed the
  // server with an unhandled "TypeError: Invalid URL").
  for (const target of ['http://[bad/', 'http://[::1/', 'http://a:99999/', 'http://', 'http://a b/', 'https://[/web/x']) {
    const reply = await rawRequest(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    // A target the parser itself refuses is answered 400 by Node; ours must be 400 too.
    assert.equal(statusOf(reply), 400, `${target}: ${JSON.stringify(reply.slice(0, 60))}`);
    await assertServing(target);
  }
  // Request lines that are not HTTP at all, or merely odd: whatever the answer, the server lives.
  const oddities = ['GARBAGE\r\n\r\n', 'GET\r\n\r\n', 'GET  HTTP/1.1\r\n\r\n', `GET /${'a'.repeat(100000)} HTTP/1.1\r\n\r\n`,
    'GET /web/%ZZ HTTP/1.1\r\nHost: x\r\n\r\n', 'GET * HTTP/1.1\r\nHost: x\r\n\r\n', 'GET //evil.example/x HTTP/1.1\r\nHost: x\r\n\r\n',
    'GET /\x00\x01\x7f HTTP/1.1\r\n\r\n', 'GET http://[bad/ HTTP/1.1\r\nHost: x\r\n\r\nGET http://[bad/ HTTP/1.1\r\nHost: x\r\n\r\n'];
  for (const request of oddities) {
    const reply = await rawRequest(request);
    const status = statusOf(reply);
    assert.ok(reply === '' || (status >= 400 && status < 500), `${JSON.stringify(request.slice(0, 40))} → ${JSON.stringify(reply.slice(0, 60))}`);
    await assertServing(JSON.stringify(request.slice(0, 40)));
  }
});

// The server's open file descriptors, from /proc (Linux).
const openDescriptors = () => readdirSync(`/proc/${server.pid}/fd`).length;

// Starts a download of the big file, reads its first bytes, then drops the connection.
function abortedDownload() {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    socket.on('data', () => { socket.destroy(); resolve(); });
    socket.on('error', reject);
    socket.setTimeout(10000, () => { socket.destroy(); reject(new Error('no bytes of the download in 10 s')); });
    socket.write('GET /model/model.safetensors HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  });
}

test('1,000 aborted downloads leave the server\'s open descriptors flat', { skip: process.platform !== 'linux' && 'counts /proc/<pid>/fd' }, async () => {
  await abortedDownload();  // the first download opens what the server keeps (e.g. libuv's)
  await new Promise((resolve) => setTimeout(resolve, 200));
  const before = openDescriptors();
  const DOWNLOADS = 1000, AT_ONCE = 20;
  for (let started = 0; started < DOWNLOADS; started += AT_ONCE) {
    await Promise.all(Array.from({ length: AT_ONCE }, abortedDownload));
  }
  // The server learns of each abort asynchronously: give it up to 5 s to close what it should.
  let now = openDescriptors();
  for (let waited = 0; now > before + 10 && waited < 5000; waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    now = openDescriptors();
  }
  assert.ok(now <= before + 10, `${DOWNLOADS} aborted downloads: ${before} → ${now} open descriptors`);
  await assertServing(`${DOWNLOADS} aborted downloads`);
});
