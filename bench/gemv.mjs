// `node bench/gemv.mjs [--runs 7] [--reps 20] [--shapes 768x2304,...] [--megabytes 64] [--modules DIR]`: one
// generated token's matrix products alone (bench/wasm/gemv_bench.cpp) on gpt2-small's linear
// shapes (K in × N out: c_attn, c_fc, c_proj of the MLP, and the 50257-row vocabulary head), in the
// plain SIMD128 and the relaxed-SIMD builds: the f32 and f16 GEMV, the int8 GEMM at M = 1 and the
// int8 GEMV, the f32 and f16 vocabulary head over the row-major matrix (dot_rows), each as GB/s of weights read and as a share of a plain SIMD read of the same bytes
// timed in the same run (1.0: the kernel streams its weights as fast as a loop that only reads
// them). Each call reads another copy of the weights (at least --megabytes of int8 in all, as a
// model's layers: from memory, not a cache). One thread; this process's CPU time (the machine is shared: waiting for a core is not
// counted); the variants alternate, medians of --runs. The modules are build/wasm/attnscope-bench
// and build/wasm-relaxed/attnscope-bench (scripts/build.sh bench), or --modules DIR holding
// plain.mjs and relaxed.mjs.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';

import { cpuMs, median } from './clock.mjs';

setFlagsFromString('--experimental-wasm-relaxed-simd');  // before the first compile
const repo = resolve(import.meta.dirname, '..');
const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '7' }, reps: { type: 'string', default: '20' },
    shapes: { type: 'string', default: '768x2304,768x3072,3072x768,768x50257' },
    modules: { type: 'string' }, megabytes: { type: 'string', default: '64' },
  },
});
const RUNS = Number(args.runs), REPS = Number(args.reps);
const shapes = args.shapes.split(',').map((s) => s.split('x').map(Number));
const paths = args.modules
  ? { plain: join(args.modules, 'plain.mjs'), relaxed: join(args.modules, 'relaxed.mjs') }
  : { plain: join(repo, 'build/wasm/attnscope-bench.mjs'), relaxed: join(repo, 'build/wasm-relaxed/attnscope-bench.mjs') };
const KINDS = [
  { kind: 0, name: 'read f32', read: true }, { kind: 1, name: 'gemv f32', of: 0 },
  { kind: 2, name: 'read f16', read: true }, { kind: 3, name: 'gemv f16', of: 2 },
  { kind: 4, name: 'read int8', read: true }, { kind: 5, name: 'int8 GEMM M=1', of: 4 }, { kind: 6, name: 'gemv int8', of: 4 },
  { kind: 7, name: 'dot_rows f32 (row-major)', of: 0 }, { kind: 8, name: 'dot_rows f16 (row-major)', of: 2 },
];
const cpuName = (() => {
  try { return execFileSync('lscpu', { encoding: 'utf8' }).match(/Model name:\s*(.+)/)?.[1]?.trim() ?? 'unknown'; } catch { return 'unknown'; }
})();
const load0 = loadavg();
console.log(`CPU: ${cpuName}; Node ${process.version}; load average ${load0.map((x) => x.toFixed(2)).join(' ')}; ${REPS} calls per timing, medians of ${RUNS}, CPU time\n`);
console.log('| build | K × N | kernel | ms per call | GB/s | share of a read of the same bytes |');
console.log('| --- | --- | --- | --- | --- | --- |');
for (const build of ['plain', 'relaxed']) {
  const m = await (await import(pathToFileURL(paths[build]))).default({ wasmBinary: readFileSync(paths[build].replace(/\.mjs$/, '.wasm')) });
  for (const [K, N] of shapes) {
    m._gemv_bench_setup(N, K, Number(args.megabytes));
    const times = Object.fromEntries(KINDS.map((k) => [k.kind, []]));
    for (const k of KINDS) m._gemv_bench_run(k.kind, 2);  // warm-up
    for (let r = 0; r < RUNS; r++) {
      for (const k of KINDS) {
        const c0 = cpuMs();
        m._gemv_bench_run(k.kind, REPS);
        times[k.kind].push((cpuMs() - c0) / REPS);
      }
    }
    const ms = (kind) => median(times[kind]);
    for (const k of KINDS) {
      const bytes = m._gemv_bench_bytes(k.kind), gbs = bytes / (ms(k.kind) / 1e3) / 1e9;
      const share = k.read ? '' : (ms(k.of) / ms(k.kind)).toFixed(2);
      console.log(`| ${build} | ${K} × ${N} | ${k.name} | ${ms(k.kind).toFixed(3)} | ${gbs.toFixed(1)} | ${share} |`);
    }
  }
}
console.log(`\nload average after: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
