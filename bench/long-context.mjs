// A long context on a small model: the SmolLM2-135M shape (random f32 weights: 30 layers, 576
// wide, 9 query heads over 3 key/value heads, vocabulary 49,152) runs a 4,096-token prompt and
// generates from it. Eager maps would be 30·9·4,096²·4 B = 18.1 GB, past wasm32's 4 GB: the run
// keeps them on demand (r.memoryBytes) and generate()'s prompt keeps only what they are made of.
// Prints the load time, the prefill (run) time, one map computed on demand, the generation's
// ms per token over the 4,096-token cache, the wasm memory and the process's peak, and the CPU.
//   node bench/long-context.mjs [--tokens 4096] [--precision q8|f16|f32] [--threads 1] [--new 16]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';

import { randomLlama, writeHfFolder } from './random-model.mjs';
import { timed } from './clock.mjs';

const repo = resolve(import.meta.dirname, '..');
const { values: args } = parseArgs({ options: {
  tokens: { type: 'string', default: '4096' },
  precision: { type: 'string', default: 'q8' },
  threads: { type: 'string', default: '1' },
  new: { type: 'string', default: '16' },
} });
const T = Number(args.tokens), THREADS = Number(args.threads), NEW = Number(args.new);
const { loadModel, heapStats } = await import(pathToFileURL(join(repo, 'js/index.js')));
const MiB = (bytes) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
const s = (ms) => `${(ms / 1000).toFixed(2)} s`;
const cpu = (() => {
  try { return execFileSync('lscpu', { encoding: 'utf8' }).match(/Model name:\s*(.+)/)?.[1]?.trim() ?? 'unknown'; } catch { return 'unknown'; }
})();

const m = randomLlama('smollm2-135m', 1);
const work = mkdtempSync(join(tmpdir(), 'attnscope-bench-long-context-'));
try {
  writeHfFolder(join(work, 'model'), m);
  const load = await timed(() => loadModel(join(work, 'model'), { weightPrecision: args.precision, threads: THREADS }));
  const model = load.value;
  const { numLayers: L, numHeads: H, vocabSize: V } = model.config;
  const ids = Int32Array.from({ length: T }, (_, t) => 5 + ((t * 7919) % (V - 5)));
  const run = await timed(() => model.runIds(ids, { topK: 0 }));
  const r = run.value;
  const oneMap = await timed(async () => r.attention(L - 1, H - 1));
  const afterRun = (await heapStats({ threads: THREADS })).memoryBytes;
  const runHolds = r.memoryBytes;
  r.release();
  const stepMs = [];
  let last = performance.now(), prefillMs = 0;
  const generation = model.generate(ids, { maxNewTokens: NEW, temperature: 0, stopAtEos: false, onToken: () => {
    const now = performance.now();
    if (stepMs.length === 0 && prefillMs === 0) prefillMs = now - last;   // the prompt and the first token
    else stepMs.push(now - last);
    last = now;
  } });
  const started = performance.now();
  last = started;
  const g = await generation.result;
  const perToken = stepMs.reduce((a, b) => a + b, 0) / stepMs.length;
  const peakWasm = (await heapStats({ threads: THREADS })).memoryBytes;
  console.log(`| SmolLM2-135M shape, ${T} tokens, ${model.info.weightPrecision ?? args.precision}, ${THREADS} thread(s), ${cpu} | |`);
  console.log('|---|---|');
  console.log(`| load | ${s(load.wall)} |`);
  console.log(`| prefill: run(), maps on demand | ${s(run.wall)} wall, ${s(run.cpu)} CPU; r.memoryBytes ${MiB(runHolds)} (eager maps: ${MiB(L * H * T * T * 4)}) |`);
  console.log(`| one ${T}×${T} map on demand | ${oneMap.wall.toFixed(0)} ms |`);
  console.log(`| generate(): prompt + first token | ${s(prefillMs)} |`);
  console.log(`| generate(): ms per token after, over ${T}+ keys (${stepMs.length} tokens) | ${perToken.toFixed(1)} ms |`);
  console.log(`| wasm memory after run() / after generate() | ${MiB(afterRun)} / ${MiB(peakWasm)} |`);
  console.log(`| process peak RSS | ${MiB(process.resourceUsage().maxRSS * 1024)} |`);
  console.log(`| generated | ${g.ids.length - T} tokens, stop: ${g.stopReason} |`);
  model.dispose();
} finally {
  rmSync(work, { recursive: true, force: true });
}
