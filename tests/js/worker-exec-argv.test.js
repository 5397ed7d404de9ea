// createWorkerClient() in a Node started with flags a worker_thread cannot take (--expose-gc,
// --max-old-space-size, --stack-trace-limit, --title: Node threw its raw
// ERR_WORKER_INVALID_EXEC_ARGV) works, and the worker still inherits the flags it can take.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { startWorkerWithProcessFlags } from '../../js/api/node-worker-flags.js';

const CLIENT = fileURLToPath(new URL('../../js/worker/client.js', import.meta.url));

test('the worker client runs under --expose-gc and other process-only Node flags', () => {
  const program = `import { createWorkerClient } from ${JSON.stringify(CLIENT)};
    const client = createWorkerClient();
    await client.load('bundled');
    const r = await client.run('the cat sat');
    await client.terminate();
    console.log(JSON.stringify({ tokens: r.tokens.length, gc: typeof globalThis.gc }));`;
  const flags = ['--expose-gc', '--max-old-space-size=2048', '--stack-trace-limit=30', '--title=attnscope-test', '--no-warnings'];
  const child = spawnSync(process.execPath, [...flags, '--input-type=module', '-e', program], { encoding: 'utf8', timeout: 60000 });
  assert.equal(child.status, 0, child.stderr);
  assert.doesNotMatch(child.stderr, /ERR_WORKER_INVALID_EXEC_ARGV/);
  assert.deepEqual(JSON.parse(child.stdout), { tokens: 5, gc: 'function' });
});

// The worker's process.execArgv is what it was started with.
const REPORT_FLAGS = 'require("node:worker_threads").parentPort.postMessage(process.execArgv)';

async function flagsOfWorkerStartedWith(processFlags) {
  const worker = startWorkerWithProcessFlags(REPORT_FLAGS, { eval: true }, processFlags);
  const flags = await new Promise((resolve) => worker.once('message', resolve));
  await worker.terminate();
  return flags;
}

test('flags a worker can take are kept; process-only ones and --input-type dropped', async () => {
  assert.deepEqual(await flagsOfWorkerStartedWith(['--expose-gc', '--conditions=attnscope-test', '--title=x',
    '--stack-trace-limit=30', '--enable-source-maps', '--input-type=module']), ['--conditions=attnscope-test', '--enable-source-maps']);
  assert.deepEqual(await flagsOfWorkerStartedWith(['--no-warnings']), ['--no-warnings']);
  assert.deepEqual(await flagsOfWorkerStartedWith([]), []);
  // A worker refused for another reason is still refused, with Node's own error.
  assert.throws(() => startWorkerWithProcessFlags('not-a-path.js', {}, ['--expose-gc']), { code: 'ERR_WORKER_PATH' });
});
