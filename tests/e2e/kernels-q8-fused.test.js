// The relaxed build's fused int8 micro-kernel (i32x4.relaxed_dot_i8x16_i7x16_add_s,
// engine/kernels/gemm_q8_wasmsimd.cpp) in Chromium, the engine it is chosen for: Node 20's V8
// computes that instruction wrong, so tests/js/kernels-q8.test.js can only check the pairwise form
// against its model there. Here the kernel harness (build/wasm-relaxed/kernels-simd-harness.*)
// runs every GEMM shape of that test's tile-edge and block-edge cases through both forms, forced,
// and the fused one must give the pairwise one's output bit for bit (the sums are exact integers);
// and the run-time check must pick the fused form in this Chromium (it computes it exactly).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createStaticServer } from '../../scripts/serve.mjs';
import { launchBrowser } from './helpers.js';

const buildDir = resolve(import.meta.dirname, '../../build/wasm-relaxed');
let server, browser, page;

before(async () => {
  assert.ok(existsSync(join(buildDir, 'kernels-simd-harness.wasm')), `${buildDir} has no kernel harness: run "bash scripts/build.sh wasm"`);
  server = createStaticServer({ isolated: true, mounts: { '/harness': buildDir } });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  browser = await launchBrowser();
  page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${server.address().port}/harness/kernels-simd-harness.mjs`);
});

after(async () => {
  await browser?.close();
  if (server) { server.closeAllConnections(); server.close(); }
});

test('fused and pairwise int8 micro-kernels agree bit for bit at every tile and block edge; auto picks the fused one', async () => {
  const result = await page.evaluate(async () => {
    const { default: create } = await import('/harness/kernels-simd-harness.mjs');
    const M = await create();
    let s = 99;
    const rnd = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2147483648) - 1;  // [-1, 1)
    const alloc = (array) => {
      const p = M._malloc(Math.max(4, array.byteLength));
      M.HEAPU8.set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), p);
      return p;
    };
    const run = (form, m, n, k, a, qw, wscale, bias) => {
      M._h_q8_set_dot_form(form);
      const pa = alloc(a), pw = alloc(qw), ps = alloc(wscale), pb = bias ? alloc(bias) : 0;
      const pc = alloc(new Float32Array(m * n).fill(NaN));
      M._h_gemm_q8(pc, n, pa, k, pw, ps, pb, 0, m, n, k, -1);
      const out = new Uint32Array(M.HEAPU8.buffer.slice(pc, pc + 4 * m * n));
      for (const p of [pa, pw, ps, pb, pc]) if (p) M._free(p);
      return out;
    };
    const edge = [1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17];
    const shapes = [];
    for (const k of [1, 2, 3, 4, 5, 7, 8, 9, 17, 33]) for (const m of edge) for (const n of edge) shapes.push([m, n, k]);
    shapes.push([127, 9, 2047], [129, 17, 2049], [131, 8, 2052], [257, 16, 4097], [3, 24, 6149], [128, 768, 768]);
    let mismatches = 0, first = null;
    for (const [m, n, k] of shapes) {
      const a = Float32Array.from({ length: m * k }, () => rnd() * 2);
      const qw = Int8Array.from({ length: n * k }, () => Math.round(rnd() * 127));
      const wscale = Float32Array.from({ length: n }, () => (rnd() + 1.5) * 0.01);
      const bias = (m + n) % 2 ? Float32Array.from({ length: n }, rnd) : null;
      const pairwise = run(1, m, n, k, a, qw, wscale, bias), fused = run(2, m, n, k, a, qw, wscale, bias);
      for (let i = 0; i < pairwise.length; i++) {
        if (pairwise[i] !== fused[i]) { mismatches++; first ??= `M=${m} N=${n} K=${k} at ${i}`; }
      }
    }
    M._h_q8_set_dot_form(0);
    return { cases: shapes.length, mismatches, first, auto: M._h_q8_fused_dot(), kGroup: M._h_q8_k_group() };
  });
  assert.equal(result.kGroup, 4, 'the relaxed build');
  assert.equal(result.mismatches, 0, `fused ≠ pairwise, first at ${result.first}`);
  assert.equal(result.cases, 10 * 12 * 12 + 6);
  assert.equal(result.auto, 1, 'this Chromium computes the fused dot product exactly: the run-time check should take it');
});
