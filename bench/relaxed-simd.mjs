// `npm run bench:relaxed`: the relaxed-SIMD build (GEMM on f32x4.relaxed_madd, i.e. FMA;
// `bash scripts/build.sh wasm` then `bash scripts/build.sh bench`) against the plain SIMD128 build, in Chromium, one tab,
// alternating, medians:
//   1. the bound: two loops in the GEMM micro-kernel's shape (12 independent accumulators,
//      acc += x · b), one with f32x4.mul + f32x4.add, one with f32x4.relaxed_madd;
//   2. the GEMM alone on bert-base's linear shapes at M = 128 (build/*/attnscope-bench);
//   3. the engine: a bert-base-shaped forward pass at 128 tokens keeping every attention map,
//      same random weights in both builds (their hidden states must agree).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import createWabt from 'wabt';

import { randomBert, writeHfFolder } from './random-model.mjs';

const repo = resolve(import.meta.dirname, '..');

const ACCUMULATORS = 12;

function loopWat(name, op) {
  const acc = Array.from({ length: ACCUMULATORS }, (_, i) => `$a${i}`);
  const body = acc.map((a, i) => {
    const x = i % 2 ? '$x1' : '$x0';
    return op === 'madd'
      ? `(local.set ${a} (f32x4.relaxed_madd (local.get ${x}) (local.get $b) (local.get ${a})))`
      : `(local.set ${a} (f32x4.add (local.get ${a}) (f32x4.mul (local.get ${x}) (local.get $b))))`;
  }).join('\n        ');
  return `
  (func (export "${name}") (param $n i32) (result f32)
    (local $x0 v128) (local $x1 v128) (local $b v128) ${acc.map((a) => `(local ${a} v128)`).join(' ')}
    (local.set $x0 (f32x4.splat (f32.const 0.999)))
    (local.set $x1 (f32x4.splat (f32.const 1.001)))
    (local.set $b (f32x4.splat (f32.const 1e-7)))
    (loop $l
        ${body}
      (local.set $n (i32.sub (local.get $n) (i32.const 1)))
      (br_if $l (local.get $n)))
    (f32x4.extract_lane 0 ${acc.reduce((s, a) => (s ? `(f32x4.add ${s} (local.get ${a}))` : `(local.get ${a})`), '')}))`;
}

async function wasmBytes(wat, features) {
  const wabt = await createWabt();
  const module = wabt.parseWat('peak.wat', wat, features);
  try {
    return Array.from(module.toBinary({}).buffer);
  } finally {
    module.destroy();
  }
}

const plain = await wasmBytes(`(module ${loopWat('muladd', 'muladd')})`, { simd: true });
const relaxed = await wasmBytes(`(module ${loopWat('madd', 'madd')})`, { simd: true, relaxed_simd: true });

// The two bench modules and a bert-base-shaped random model, served to the page.
const work = mkdtempSync(join(tmpdir(), 'attnscope-relaxed-'));
writeHfFolder(join(work, 'model'), randomBert('bert-base', 1));
const FILES = {
  '/plain.mjs': join(repo, 'build/wasm/attnscope-bench.mjs'), '/plain.wasm': join(repo, 'build/wasm/attnscope-bench.wasm'),
  '/relaxed.mjs': join(repo, 'build/wasm-relaxed/attnscope-bench.mjs'),
  '/relaxed.wasm': join(repo, 'build/wasm-relaxed/attnscope-bench.wasm'),
  '/config.json': join(work, 'model/config.json'), '/model.safetensors': join(work, 'model/model.safetensors'),
};
const server = createServer((req, res) => {
  const file = FILES[req.url];
  if (req.url === '/') { res.writeHead(200, { 'content-type': 'text/html' }); res.end('<!doctype html><title>bench</title>'); return; }
  if (!file) { res.writeHead(404); res.end(); return; }
  res.writeHead(200, { 'content-type': file.endsWith('.mjs') ? 'text/javascript' : 'application/octet-stream' });
  res.end(readFileSync(file));
});
await new Promise((done) => server.listen(0, '127.0.0.1', done));
const origin = `http://127.0.0.1:${server.address().port}`;

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium', headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
});
try {
  const page = await browser.newPage();
  await page.goto(origin);
  const report = await page.evaluate(async ({ plain, relaxed, accumulators }) => {
    const supported = WebAssembly.validate(new Uint8Array(relaxed));
    const load = async (bytes) => (await WebAssembly.instantiate(new Uint8Array(bytes))).instance.exports;
    const { muladd } = await load(plain);
    const { madd } = supported ? await load(relaxed) : {};
    const iterations = 20_000_000, flops = iterations * accumulators * 8;  // 4 lanes × (mul + add)
    const time = (f) => { const t = performance.now(); f(iterations); return performance.now() - t; };
    for (let i = 0; i < 2; i++) { muladd(1_000_000); madd?.(1_000_000); }  // tier up
    const t = { muladd: [], madd: [] };
    for (let i = 0; i < 7; i++) {  // alternating
      t.muladd.push(time(muladd));
      if (madd) t.madd.push(time(madd));
    }
    const median = (a) => a.sort((x, y) => x - y)[a.length >> 1];
    return {
      userAgent: navigator.userAgent, supported,
      muladd: flops / median(t.muladd) / 1e6,
      madd: madd ? flops / median(t.madd) / 1e6 : null,
    };
  }, { plain, relaxed, accumulators: ACCUMULATORS });
  console.log(`${report.userAgent}`);
  console.log(`relaxed SIMD supported: ${report.supported}`);
  console.log(`f32x4.mul + f32x4.add: ${report.muladd.toFixed(1)} GFLOP/s`);
  if (report.madd) {
    console.log(`f32x4.relaxed_madd:    ${report.madd.toFixed(1)} GFLOP/s (${(report.madd / report.muladd).toFixed(2)}× mul + add)`);
  }

  const builds = await page.evaluate(async () => {
    const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
    const load = async (name) => {
      const { default: create } = await import(`/${name}.mjs`);
      return create({ wasmBinary: await (await fetch(`/${name}.wasm`)).arrayBuffer() });
    };
    const modules = { plain: await load('plain'), relaxed: await load('relaxed') };
    const out = { gemm: [], engine: {} };
    for (const [M, N, K] of [[128, 768, 768], [128, 3072, 768], [128, 768, 3072]]) {
      const t = { plain: [], relaxed: [] };
      for (const name of ['plain', 'relaxed']) { modules[name]._gemm_bench_setup(M, N, K); modules[name]._gemm_bench_run(3, 0); }
      for (let i = 0; i < 7; i++) {
        for (const name of ['plain', 'relaxed']) {
          const t0 = performance.now();
          modules[name]._gemm_bench_run(10, 0);
          t[name].push(performance.now() - t0);
        }
      }
      const gflop = 2 * M * N * K * 10 / 1e9;
      out.gemm.push({ shape: `${M}×${K} · ${K}×${N}`, plain: gflop / median(t.plain) * 1e3, relaxed: gflop / median(t.relaxed) * 1e3 });
    }
    const config = new Uint8Array(await (await fetch('/config.json')).arrayBuffer());
    const weights = new Uint8Array(await (await fetch('/model.safetensors')).arrayBuffer());
    const T = 128, ids = Int32Array.from({ length: T }, (_, i) => (i === 0 ? 2 : i === T - 1 ? 3 : 5 + (i * 7919) % 30000));
    const idPtr = {}, first = {};
    for (const [name, B] of Object.entries(modules)) {
      const pc = B._malloc(config.length), pw = B._malloc(weights.length);
      B.HEAPU8.set(config, pc); B.HEAPU8.set(weights, pw);
      if (B._encoder_bench_load(pc, config.length, pw, weights.length) !== 0) throw new Error(`${name}: load failed`);
      B._free(pc); B._free(pw);
      idPtr[name] = B._malloc(T * 4);
      B.HEAP32.set(ids, idPtr[name] >> 2);
      first[name] = B._encoder_bench_forward(idPtr[name], T, 1);
    }
    const t = { plain: [], relaxed: [] };
    for (let i = 0; i < 7; i++) {
      for (const name of ['plain', 'relaxed']) {
        const t0 = performance.now();
        modules[name]._encoder_bench_forward(idPtr[name], T, 1);
        t[name].push(performance.now() - t0);
      }
    }
    out.engine = { plain: median(t.plain), relaxed: median(t.relaxed), firstHidden: first };
    return out;
  });
  console.log('\nGEMM alone (GFLOP/s, plain → relaxed build, 1 thread each: the bench modules are single-threaded builds):');
  for (const g of builds.gemm) console.log(`  ${g.shape}: ${g.plain.toFixed(1)} → ${g.relaxed.toFixed(1)} (${(g.relaxed / g.plain).toFixed(2)}×)`);
  const e = builds.engine;
  console.log(`bert-base @128, every map kept, 1 thread each: plain ${e.plain.toFixed(0)} ms, relaxed ${e.relaxed.toFixed(0)} ms ` +
    `(${(e.relaxed / e.plain).toFixed(2)}×); hidden[0] ${e.firstHidden.plain} vs ${e.firstHidden.relaxed}`);
  if (!(Math.abs(e.firstHidden.plain - e.firstHidden.relaxed) <= 1e-3 * (1 + Math.abs(e.firstHidden.plain)))) {
    throw new Error('the two builds disagree on the hidden state');
  }
} finally {
  await browser.close();
  server.close();
  rmSync(work, { recursive: true, force: true });
}
