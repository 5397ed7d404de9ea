// `node bench/gemm-q8.mjs [--browser] [--runs 7] [--reps 5] [--tokens 128]`: the int8 GEMM
// against the f32 one on bert-base's linear shapes at 128 tokens (--tokens 1: one
// generation step over the KV cache), one thread (the bench modules are single-threaded builds),
// in the plain SIMD128 build and the relaxed-SIMD build, on the same random weights
// (bench/wasm/gemm_bench.cpp, gemm_q8_bench.cpp). q8 is timed with the activations quantized
// inside each call (what a forward pass pays) and without (the kernel alone). The variants
// alternate; medians. Node runs the relaxed module behind --experimental-wasm-relaxed-simd (the
// script re-runs itself with it); --browser runs the same in Chromium (playwright-core).
// Build first: bash scripts/build.sh wasm (or the attnscope_bench target in build/wasm and
// build/wasm-relaxed, then scripts/relaxed-simd-opcodes.mjs on the relaxed one).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

import { cpuMs } from './clock.mjs';

const repo = resolve(import.meta.dirname, '..');
const { values: args } = parseArgs({
  options: {
    browser: { type: 'boolean', default: false }, runs: { type: 'string', default: '7' }, reps: { type: 'string', default: '5' },
    tokens: { type: 'string', default: '128' },  // M; 1 is a generation step over the KV cache
  },
});
const RUNS = Number(args.runs), REPS = Number(args.reps), TOKENS = Number(args.tokens);
if (!(TOKENS >= 1)) throw new Error('--tokens must be ≥ 1');
const SHAPES = [[TOKENS, 768, 768], [TOKENS, 3072, 768], [TOKENS, 768, 3072]];  // M, N, K

// Runs where `load(name)` gives a bench module ('plain' or 'relaxed'); returns per shape the
// medians in ms per GEMM by `clock` (Node: this process's CPU time, robust on a shared machine
// since waiting for a core is not counted; the browser: wall time). Self-contained: it is also
// sent to the browser as source.
async function measure(load, shapes, runs, reps, clock = () => performance.now()) {
  const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
  const modules = { plain: await load('plain'), relaxed: await load('relaxed') };
  const variants = [];
  for (const build of ['plain', 'relaxed']) {
    if (!modules[build]) continue;
    const B = modules[build];
    variants.push({ name: `${build} f32`, B, setup: B._gemm_bench_setup, run: () => B._gemm_bench_run(reps, 0) });
    variants.push({ name: `${build} q8`, B, setup: B._gemm_q8_bench_setup, run: () => B._gemm_q8_bench_run(reps, 1) });
    variants.push({ name: `${build} q8 kernel`, B, setup: B._gemm_q8_bench_setup, run: () => B._gemm_q8_bench_run(reps, 0) });
  }
  const out = [];
  for (const [M, N, K] of shapes) {
    for (const v of variants) { v.setup(M, N, K); v.run(); v.times = []; }  // warm-up
    for (let i = 0; i < runs; i++) {
      for (const v of variants) {
        const t0 = clock();
        v.run();
        v.times.push((clock() - t0) / reps);
      }
    }
    out.push({ shape: [M, N, K], ms: Object.fromEntries(variants.map((v) => [v.name, median(v.times)])) });
  }
  return out;
}

let results, where;
if (args.browser) {
  const { chromium } = await import('playwright-core');
  const FILES = {
    '/plain.mjs': 'build/wasm/attnscope-bench.mjs', '/plain.wasm': 'build/wasm/attnscope-bench.wasm',
    '/relaxed.mjs': 'build/wasm-relaxed/attnscope-bench.mjs', '/relaxed.wasm': 'build/wasm-relaxed/attnscope-bench.wasm',
  };
  const server = createServer((req, res) => {
    if (req.url === '/') { res.writeHead(200, { 'content-type': 'text/html' }); res.end('<!doctype html><title>bench</title>'); return; }
    const file = FILES[req.url];
    if (!file) { res.writeHead(404); res.end(); return; }
    res.writeHead(200, { 'content-type': file.endsWith('.mjs') ? 'text/javascript' : 'application/octet-stream' });
    res.end(readFileSync(join(repo, file)));
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    const r = await page.evaluate(async ({ source, shapes, runs, reps }) => {
      const measureFn = (0, eval)(`(${source})`);
      const load = async (name) => {
        const { default: create } = await import(`/${name}.mjs`);
        return create({ wasmBinary: await (await fetch(`/${name}.wasm`)).arrayBuffer() });
      };
      return { ua: navigator.userAgent, results: await measureFn(load, shapes, runs, reps) };
    }, { source: measure.toString(), shapes: SHAPES, runs: RUNS, reps: REPS });
    results = r.results;
    where = r.ua.match(/Chrome\/[\d.]+/)?.[0] ?? r.ua;
  } finally {
    await browser.close();
    server.close();
  }
} else {
  if (!process.execArgv.includes('--experimental-wasm-relaxed-simd')) {
    const child = spawnSync(process.execPath, ['--experimental-wasm-relaxed-simd', ...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit' });
    process.exit(child.status ?? 1);
  }
  const load = async (name) => {
    const dir = join(repo, name === 'plain' ? 'build/wasm' : 'build/wasm-relaxed');
    const { default: create } = await import(join(dir, 'attnscope-bench.mjs'));
    return create({ wasmBinary: readFileSync(join(dir, 'attnscope-bench.wasm')) });
  };
  results = await measure(load, SHAPES, RUNS, REPS, cpuMs);
  where = `Node ${process.version} (V8 ${process.versions.v8}), process CPU time`;
}

console.log(`CPU: ${cpus()[0].model}; ${where}; 1 thread; medians of ${RUNS} runs of ${REPS} GEMMs; load average ${loadavg()[0].toFixed(2)} on ${cpus().length} CPUs`);
console.log('M×K·K×N           variant            ms     GFLOP/s  vs f32 (same build)');
for (const { shape: [M, N, K], ms } of results) {
  const gflop = (2 * M * N * K) / 1e9;
  for (const [name, t] of Object.entries(ms)) {
    const f32 = ms[`${name.split(' ')[0]} f32`];
    console.log(`${`${M}×${K}·${K}×${N}`.padEnd(18)}${name.padEnd(18)}${t.toFixed(3).padStart(7)}  ${(gflop / t * 1e3).toFixed(1).padStart(7)}  ${(f32 / t).toFixed(2)}×`);
  }
}
