// `node bench/decode.mjs` (npm run bench:decode): per-token generation time of AttnScope against
// onnxruntime-web (wasm backend, SIMD) running each model as a decoder-with-past graph (the KV
// cache as graph inputs and outputs: gpt2-onnx.mjs, llama-onnx.mjs, t5-onnx.mjs; int8 as
// onnxruntime's quantize_dynamic writes it, onnx-linear.mjs), on the same random weights
// (random-model.mjs) and the same thread count, for gpt2-small, the SmolLM2-135M shape and t5-small,
// at f32 and q8 (AttnScope's loadModel weightPrecision), over a --context-token prompt (for T5: the
// source) followed by --new-tokens timed tokens. Each case runs in its own process
// (decode-case.mjs: ORT's thread count is per process), which checks greedy ids and next-token
// probabilities equal before it times anything.
//   node bench/decode.mjs [--models gpt2-small,smollm2-135m,t5-small] [--precisions f32,q8]
//                         [--threads 1,2] [--context 128] [--new-tokens 32] [--runs 3] [--warmup 1]
//                         [--bandwidth-mb 128]
// The seventh column is the limit a token step has, reading every weight once: the bytes of the
// matrices it multiplies by (decode-families.mjs) over the copy bandwidth of wasm memory measured in
// this run at the same thread count (wasm-bandwidth.mjs), as a fraction of AttnScope's measured
// ms/token (1.0 = at the limit); the eighth the same with the read bandwidth of a plain SIMD loop
// that only loads (what a step that streams its weights can reach: reading is faster than
// copying, which also writes); the ninth that read-bandwidth time over ORT's ms/token: the ratio a
// step doing nothing but reading its weights would reach (no kernel gets below it on this machine,
// whatever the target). Printed twice: wall time, and this process's CPU time (what to
// read when other processes load the machine; the bandwidth then in bytes per CPU-second).
import { execFile, execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import * as ort from 'onnxruntime-web';

import { measureBandwidth } from './wasm-bandwidth.mjs';

const { values: args } = parseArgs({
  options: {
    models: { type: 'string', default: 'gpt2-small,smollm2-135m,t5-small' },
    precisions: { type: 'string', default: 'f32,q8' },
    threads: { type: 'string', default: '1,2' },
    context: { type: 'string', default: '128' },
    'new-tokens': { type: 'string', default: '32' },
    runs: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '1' },
    'bandwidth-mb': { type: 'string', default: '128' },
  },
});
const list = (s) => s.split(',').filter(Boolean);
const threadCounts = list(args.threads).map(Number);
const cpuName = (() => {
  try { return execFileSync('lscpu', { encoding: 'utf8' }).match(/Model name:\s*(.+)/)?.[1]?.trim() ?? 'unknown'; } catch { return 'unknown'; }
})();
const load0 = loadavg();

// The bandwidth before the cases and again after them (no case holding memory either time), the
// best of both kept: other load only ever lowers it.
const bandwidth = {};
async function measureAll() {
  for (const threads of threadCounts) {
    const b = await measureBandwidth({ threads, megabytes: Number(args['bandwidth-mb']) });
    console.error(`wasm memory, ${threads} thread(s): copy ${b.copy.wall.best.toFixed(2)} GB/s wall, ${b.copy.cpu.best.toFixed(2)} GB per CPU-second; ` +
      `SIMD read ${b.read.wall.best.toFixed(2)} GB/s wall, ${b.read.cpu.best.toFixed(2)} per CPU-second`);
    const old = bandwidth[threads];
    if (!old) { bandwidth[threads] = b; continue; }
    for (const kind of ['copy', 'read']) {
      for (const clock of ['wall', 'cpu']) {
        old[kind][clock] = { best: Math.max(old[kind][clock].best, b[kind][clock].best), median: Math.max(old[kind][clock].median, b[kind][clock].median) };
      }
    }
  }
}
await measureAll();

const runCase = (model, precision, threads) => new Promise((resolve) => {
  const caseArgs = ['--model', model, '--precision', precision, '--threads', String(threads), '--context', args.context,
    '--new-tokens', args['new-tokens'], '--runs', args.runs, '--warmup', args.warmup];
  const child = execFile(process.execPath, [join(import.meta.dirname, 'decode-case.mjs'), ...caseArgs], { maxBuffer: 1 << 20 }, (error, stdout) => {
    const line = stdout.trim().split('\n').at(-1);
    try { resolve(JSON.parse(line)); } catch { resolve({ model, precision, threads, failed: String(error?.message ?? 'no result').split('\n')[0] }); }
  });
  child.stderr.pipe(process.stderr);
});
const results = [];
for (const threads of threadCounts) {
  for (const model of list(args.models)) for (const precision of list(args.precisions)) results.push(await runCase(model, precision, threads));
}
await measureAll();

const fmt = (x, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : '—');
const line = (cells) => console.log(`| ${cells.join(' | ')} |`);
console.log(`\nCPU: ${cpuName}; Node ${process.version}; onnxruntime-web ${ort.env.versions?.web ?? ''} (wasm, SIMD, numThreads = the row's threads); load average ${load0.map((x) => x.toFixed(2)).join(' ')} → ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
console.log(`prompt (T5: source) of ${args.context} tokens, then ${args['new-tokens']} timed tokens (greedy); medians of ${args.runs} alternating generations' steps after ${args.warmup} warm-up`);
for (const t of threadCounts) {
  const b = bandwidth[t];
  console.log(`wasm memory at ${t} thread(s), ${b.megabytes} MiB buffers, best of 7 passes before and 7 after the cases: copy ${b.copy.wall.best.toFixed(2)} GB/s wall ` +
    `(the better median ${b.copy.wall.median.toFixed(2)}), ${b.copy.cpu.best.toFixed(2)} GB per CPU-second; SIMD read ${b.read.wall.best.toFixed(2)} GB/s wall, ${b.read.cpu.best.toFixed(2)} per CPU-second`);
}
for (const clock of ['wall', 'cpu']) {
  console.log(`\n${clock === 'wall' ? 'Wall time' : "This process's CPU time (all its threads)"}, ms per token:\n`);
  line(['model', 'precision', 'threads', 'AttnScope ms/token', 'ORT ms/token', 'ratio', 'bandwidth bound', 'read-bandwidth bound',
    'least ratio a read allows']);
  line(Array(9).fill('---'));
  for (const r of results) {
    if (r.failed) { line([r.model, r.precision, r.threads, `failed: ${r.failed}`, '', '', '', '', '']); continue; }
    const boundMs = r.weightBytes / (bandwidth[r.threads].copy[clock].best * 1e9) * 1e3;
    const readBoundMs = r.weightBytes / (bandwidth[r.threads].read[clock].best * 1e9) * 1e3;
    const ortCell = r.ortError ? `— (onnxruntime-web did not run: ${r.ortError})` : fmt(r.ort[clock], 2);
    const threads = r.attnscopeThreads === r.threads ? r.threads : `${r.threads} (AttnScope runs on ${r.attnscopeThreads}: model.info.threads)`;
    line([r.model, r.precision, threads, fmt(r.ours[clock], 2), ortCell, r.ortError ? '—' : fmt(r.ours[clock] / r.ort[clock], 2),
      `${fmt(boundMs / r.ours[clock], 2)} (${fmt(boundMs, 1)} ms for ${fmt(r.weightBytes / 2 ** 20, 0)} MiB)`,
      `${fmt(readBoundMs / r.ours[clock], 2)} (${fmt(readBoundMs, 1)} ms)`, r.ortError ? '—' : fmt(readBoundMs / r.ort[clock], 2)]);
  }
}
console.log('\nChecks (before timing) and builds:');
for (const r of results) {
  if (r.failed || !r.checks) continue;
  const c = r.checks;
  console.log(`- ${r.model} ${r.precision} ${r.threads} thread(s): greedy ids equal ${c.sameIds}/${c.of}; on AttnScope's ids ORT's argmax equal ${c.argmaxSame}/${c.of} (the rest near ties: ${c.nearTies}); ` +
    `max |Δ log p| over AttnScope's top ${c.candidates} at every step ${c.maxLogProbDiff.toExponential(1)} (< ${c.tolerance}); ` +
    `AttnScope ${r.attnscopeBuild}, ${r.attnscopeThreads} thread(s); worker threads started by AttnScope ${r.workers.attnscope}, by ORT ${r.workers.ort} (its pool: numThreads − 1); ` +
    `CPU/wall per step ORT ${fmt(r.ort.cpu / r.ort.wall, 2)}, AttnScope ${fmt(r.ours.cpu / r.ours.wall, 2)}`);
}
