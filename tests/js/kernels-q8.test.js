// The int8 kernels (engine/kernels/quantize.*, gemm_q8_wasmsimd.*, packed_linear_q8.*) in
// WebAssembly against a JavaScript model written here from the formulas in quantize.h: the
// quantized bytes, scales and zero points must be the engine's exactly, and the GEMM's output
// (before an activation) must be the model's to the last bit: the int32 sum is exact and the
// epilogue is a fixed sequence of f32 roundings (Math.fround after each step), so any lost or
// doubled product, wrong zero point or misplaced tile shows. Shapes straddle every tile and block
// size (4-row tiles, 8-column panels, k groups of 2 / 4, 128-row and 2048-deep blocks), outputs
// are pre-filled with NaN, inputs come from fixed seeds. Then the error of a q8 layer against
// the f32 one on bert-base shapes, printed and bounded.
// ATTNSCOPE_WASM_BUILD=build/wasm-relaxed (node --experimental-wasm-relaxed-simd) tests the
// relaxed build (activations in [0, 127], i16x8.relaxed_dot_i8x16_i7x16_s; its fused dot-add
// form is refused by Node 20's V8, and tests/e2e/kernels-q8-fused.test.js checks it in Chromium).
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const buildDir = resolve(process.env.ATTNSCOPE_WASM_BUILD ?? join(import.meta.dirname, '../../build/wasm'));
const harnessJs = join(buildDir, 'kernels-simd-harness.mjs');
let M;
let QMAX;  // the build's activation range: 255 plain, 127 relaxed

before(async () => {
  assert.ok(existsSync(harnessJs), `${harnessJs} is missing: run "bash scripts/build.sh wasm" first`);
  const { default: create } = await import(harnessJs);
  M = await create({ wasmBinary: readFileSync(join(buildDir, 'kernels-simd-harness.wasm')) });
  QMAX = M._h_q8_activation_max();
  const relaxed = buildDir.includes('relaxed');
  assert.equal(QMAX, relaxed ? 127 : 255, 'activation range of this build');
  assert.equal(M._h_q8_k_group(), relaxed ? 4 : 2);
});

// ---- helpers --------------------------------------------------------------------------------
function rng(seed) {  // mulberry32, uniform in [-1, 1)
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2147483648 - 1;
  };
}
const randomArray = (n, r, scale = 1) => Float32Array.from({ length: n }, () => r() * scale);
function normalArray(n, r, sigma = 1) {  // Box–Muller
  return Float32Array.from({ length: n }, () => {
    const u = (r() + 1) / 2 || 1e-12, v = (r() + 1) / 2;
    return sigma * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  });
}
const nanArray = (n) => new Float32Array(n).fill(NaN);
const f = Math.fround;

// Copies typed arrays into wasm memory, runs fn, returns the listed outputs (same types), frees.
function call(fn, args, outputs) {
  const ptrs = [];
  try {
    const vals = args.map((a) => {
      if (!ArrayBuffer.isView(a)) return a;
      const p = M._malloc(Math.max(4, a.byteLength));
      ptrs.push(p);
      new Uint8Array(M.HEAPU8.buffer, p, a.byteLength).set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
      return p;
    });
    const result = fn(...vals);
    const outs = outputs.map((i) => {
      const a = args[i];
      return new a.constructor(M.HEAPU8.buffer.slice(vals[i], vals[i] + a.byteLength));
    });
    return outputs.length ? outs : result;
  } finally {
    ptrs.forEach((p) => M._free(p));
  }
}

// ---- the model of quantize.h ----------------------------------------------------------------
function roundHalfEven(v) {
  const fl = Math.floor(v), d = v - fl;
  if (d > 0.5) return fl + 1;
  if (d < 0.5) return fl;
  return fl % 2 === 0 ? fl : fl + 1;
}
const clamp = (v, lo, hi) => Math.min(Math.max(v, lo), hi);
function rowParams(lo, hi, qmax) {
  lo = Math.min(lo, 0); hi = Math.max(hi, 0);
  const range = f(hi - lo);
  if (!(range > 0)) return { scale: 1, inv: 1, zero: 0 };
  const scale = f(range / qmax), inv = f(1 / scale);
  return { scale, inv, zero: clamp(roundHalfEven(f(-lo * inv)), 0, qmax) };
}
function quantizeRow(x, qmax) {
  let lo = 0, hi = 0;
  for (const v of x) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
  const p = rowParams(lo, hi, qmax);
  const q = Uint8Array.from(x, (v) => clamp(roundHalfEven(f(v * p.inv)) + p.zero, 0, qmax));
  return { q, ...p };
}
function quantizeWeight(w, N, K) {
  const q = new Int8Array(N * K), scale = new Float32Array(N);
  for (let n = 0; n < N; n++) {
    let amax = 0;
    for (let k = 0; k < K; k++) amax = Math.max(amax, Math.abs(w[n * K + k]));
    const s = f(amax / 127);
    scale[n] = s;
    if (!(s > 0)) continue;
    for (let k = 0; k < K; k++) q[n * K + k] = clamp(roundHalfEven(f(w[n * K + k] / s)), -127, 127);
  }
  return { q, scale };
}
function randomInt8(n, r, max = 127) { return Int8Array.from({ length: n }, () => Math.round(r() * max)); }

const ACT = { none: -1, geluErf: 0, geluTanh: 1, relu: 2 };
const erf = (x) => M._h_erf_reference(x);  // libc's double erf (JavaScript has none)
const actRef = {
  [-1]: (x) => x,
  0: (x) => 0.5 * x * (1 + erf(x / Math.SQRT2)),
  1: (x) => 0.5 * x * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (x + 0.044715 * x ** 3))),
  2: (x) => Math.max(0, x),
};

// The GEMM model: C = act(f32(Σ (qa − za)·qw) · f32(sa · sw) + bias) + residual, every f32 step
// rounded. Returns { pre, out }: pre is exact (before the activation); out in float64.
function gemmModel({ a, lda, qw, wscale, bias, residual, M: m, N: n, K: k, act = ACT.none, qmax }) {
  const pre = new Float32Array(m * n), out = new Float64Array(m * n);
  for (let i = 0; i < m; i++) {
    const { q, scale, zero } = quantizeRow(a.subarray(i * lda, i * lda + k), qmax);
    for (let j = 0; j < n; j++) {
      let acc = 0;
      for (let kk = 0; kk < k; kk++) acc += (q[kk] - zero) * qw[j * k + kk];
      let y = f(f(acc) * f(scale * wscale[j]));
      y = f(y + (bias ? bias[j] : 0));
      pre[i * n + j] = y;
      let o = act === ACT.none ? y : actRef[act](y);
      if (residual) o = act === ACT.none ? f(o + residual[i * n + j]) : o + residual[i * n + j];
      out[i * n + j] = o;
    }
  }
  return { pre, out };
}

function checkExact(label, got, ldc, want, m, n) {
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < ldc; j++) {
      const g = got[i * ldc + j];
      if (j >= n) { assert.ok(Number.isNaN(g), `${label}: wrote outside the matrix at row ${i}, col ${j}`); continue; }
      const w = want[i * n + j];
      if (g !== w) assert.fail(`${label}: C[${i}][${j}] = ${g}, expected ${w}`);
    }
  }
}

// ---- quantization ---------------------------------------------------------------------------
describe('quantize_row_u8 / quantize_weight_q8 (quantize.h)', () => {
  const rows = (r) => [
    randomArray(37, r, 3),                                   // two-sided
    Float32Array.from(randomArray(41, r, 2), (v) => Math.max(v, -0.17)),  // GELU-like, one-sided
    new Float32Array(19),                                    // all zeros
    Float32Array.from({ length: 23 }, (_, i) => (i === 5 ? 40 : r() * 0.5)),  // one outlier
    Float32Array.from({ length: 16 }, () => -0.75),          // constant negative
    Float32Array.from({ length: 33 }, (_, i) => (i - 16) / 8),  // exact ties of x · inv
  ];

  it('matches the model byte for byte (scale, zero point, every q), both ranges, SIMD body and tail', () => {
    let checked = 0;
    for (const qmax of [255, 127]) {
      for (let len = 1; len <= 35; len++) {
        for (const base of rows(rng(len * 7 + qmax))) {
          const x = base.subarray(0, Math.min(len, base.length));
          const K = x.length;
          const [q, scale, zero] = call(M._h_quantize_rows, [new Uint8Array(K), new Float32Array(1), new Int32Array(1), x.slice(), 1, K, K, qmax], [0, 1, 2]);
          const want = quantizeRow(x, qmax);
          assert.equal(scale[0], want.scale, `qmax ${qmax} K ${K}: scale`);
          assert.equal(zero[0], want.zero, `qmax ${qmax} K ${K}: zero point`);
          assert.deepEqual([...q], [...want.q], `qmax ${qmax} K ${K}: bytes`);
          assert.ok(Math.max(...q) <= qmax);
          checked++;
        }
      }
    }
    assert.ok(checked > 300);
  });

  it('round trip: |x − scale·(q − zero)| ≤ scale/2, zero maps to zero, the range ends are reached', () => {
    for (const qmax of [255, 127]) {
      const r = rng(qmax);
      for (const x of [...rows(r), randomArray(3072, r, 5), normalArray(768, r)]) {
        const K = x.length;
        const [q, scale, zero] = call(M._h_quantize_rows, [new Uint8Array(K), new Float32Array(1), new Int32Array(1), x, 1, K, K, qmax], [0, 1, 2]);
        const [back] = call(M._h_dequantize_rows, [nanArray(K), q, scale, zero, 1, K], [0]);
        for (let k = 0; k < K; k++) {
          assert.ok(Math.abs(x[k] - back[k]) <= scale[0] * (0.5 + 1e-5), `qmax ${qmax}: x ${x[k]} → ${back[k]} (scale ${scale[0]})`);
          if (x[k] === 0) assert.equal(back[k], 0);
        }
        if (x.some((v) => v !== 0)) {
          const lo = Math.min(0, ...x), hi = Math.max(0, ...x);
          if (lo < 0) assert.ok(q.includes(0), 'the minimum maps to 0');
          if (hi > 0 && lo === 0) assert.ok(q.includes(qmax), 'the maximum maps to qmax');
        }
      }
    }
  });

  it('weights: symmetric per row, bytes as the model, |w − scale·q| ≤ scale/2, max |q| = 127 on every row', () => {
    for (const [N, K] of [[1, 1], [3, 17], [9, 33], [16, 768], [5, 1031]]) {
      const r = rng(N * 31 + K);
      const w = normalArray(N * K, r, 0.05);
      if (N > 2) w.fill(0, K, 2 * K);  // an all-zero row: scale 0, q 0
      const [q, scale] = call(M._h_quantize_weight, [new Int8Array(N * K), new Float32Array(N), w, N, K], [0, 1]);
      const want = quantizeWeight(w, N, K);
      assert.deepEqual([...scale], [...want.scale], `N ${N} K ${K}: scales`);
      assert.deepEqual([...q], [...want.q], `N ${N} K ${K}: bytes`);
      for (let n = 0; n < N; n++) {
        let top = 0;
        for (let k = 0; k < K; k++) {
          const i = n * K + k;
          assert.ok(Math.abs(w[i] - scale[n] * q[i]) <= scale[n] * (0.5 + 1e-6), `w ${w[i]} → ${scale[n] * q[i]}`);
          top = Math.max(top, Math.abs(q[i]));
        }
        assert.equal(top, scale[n] > 0 ? 127 : 0, `row ${n}`);
      }
    }
  });
});

// ---- the GEMM ---------------------------------------------------------------------------------
const EDGE = [1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17];

describe('gemm_q8_wasmsimd (packed int8 B, per-row quantized A, int32 accumulation)', () => {
  it('equals the model bit for bit at every tile edge (M, N around 4 and 8; K around 2 and 4), C pre-filled with NaN, ldc > N', () => {
    let cases = 0;
    for (const k of [1, 2, 3, 4, 5, 7, 8, 9, 17, 33]) {
      for (const m of EDGE) {
        for (const n of EDGE) {
          const r = rng(1000 * k + 31 * m + n);
          const lda = k + 3, ldc = n + 2;
          const a = randomArray(m * lda, r, 2), qw = randomInt8(n * k, r), wscale = randomArray(n, r, 0.01);
          const bias = (m + n) % 2 ? randomArray(n, r) : 0;
          const [c] = call(M._h_gemm_q8, [nanArray(m * ldc), ldc, a, lda, qw, wscale, bias, 0, m, n, k, ACT.none], [0]);
          const { pre } = gemmModel({ a, lda, qw, wscale, bias: bias || null, M: m, N: n, K: k, qmax: QMAX });
          checkExact(`M=${m} N=${n} K=${k}`, c, ldc, pre, m, n);
          cases++;
        }
      }
    }
    assert.equal(cases, 10 * EDGE.length ** 2);
  });

  it('relaxed build: the run-time choice of micro-kernel (fused dot-add only where this engine computes it exactly)', (t) => {
    if (QMAX !== 127) return t.skip('the plain build has one micro-kernel');
    // Under auto the tests above ran whichever form was chosen. Forced fused: where auto took it,
    // it equals the model; where auto refused it (Node 20's V8 gets the instruction wrong), it must
    // really differ from the model, or the check threw a fast kernel away for nothing.
    const fusedChosen = M._h_q8_fused_dot() === 1;
    const [m, n, k] = [5, 12, 72], r = rng(4242);
    const a = randomArray(m * k, r, 2), qw = randomInt8(n * k, r), wscale = randomArray(n, r, 0.01);
    const { pre } = gemmModel({ a, lda: k, qw, wscale, M: m, N: n, K: k, qmax: QMAX });
    try {
      M._h_q8_set_dot_form(2);
      const [c] = call(M._h_gemm_q8, [nanArray(m * n), n, a, k, qw, wscale, 0, 0, m, n, k, ACT.none], [0]);
      const exact = c.every((v, i) => v === pre[i]);
      assert.equal(exact, fusedChosen, fusedChosen ? 'auto took an inexact fused kernel' : 'auto refused a fused kernel that is exact');
      M._h_q8_set_dot_form(1);
      const [p] = call(M._h_gemm_q8, [nanArray(m * n), n, a, k, qw, wscale, 0, 0, m, n, k, ACT.none], [0]);
      checkExact('pairwise forced', p, n, pre, m, n);
    } finally {
      M._h_q8_set_dot_form(0);
    }
    t.diagnostic(`fused dot-add ${fusedChosen ? 'chosen' : 'refused'} by this engine (V8 ${process.versions.v8})`);
  });

  it('the extremes: A rows spanning [0, qmax] with weights ±127 (the largest pair sums) and −128-free bytes', () => {
    for (const [m, n, k] of [[5, 9, 64], [4, 8, 4096]]) {
      const r = rng(m + n + k);
      // Each row has its minimum −1 and maximum 1 at the start, so q takes 0 and qmax; weights ±127.
      const a = Float32Array.from({ length: m * k }, (_, i) => (i % k === 0 ? -1 : i % k === 1 ? 1 : (r() > 0 ? 1 : -1)));
      const qw = Int8Array.from({ length: n * k }, () => (r() > 0 ? 127 : -127));
      const wscale = Float32Array.from({ length: n }, () => 2 ** -10);
      const [c] = call(M._h_gemm_q8, [nanArray(m * n), n, a, k, qw, wscale, 0, 0, m, n, k, ACT.none], [0]);
      checkExact(`extreme M=${m} N=${n} K=${k}`, c, n, gemmModel({ a, lda: k, qw, wscale, M: m, N: n, K: k, qmax: QMAX }).pre, m, n);
    }
  });

  it('rows on each side of the 128-row blocks, K on each side of the 2048-deep K blocks (int32 partial sums kept in C)', () => {
    const shapes = [[127, 2047], [128, 2048], [129, 2049], [131, 2052], [255, 7], [256, 4096], [257, 4097], [259, 33], [3, 6149]];
    for (const [m, k] of shapes) {
      for (const n of [9, 16]) {
        const r = rng(13 * m + 7 * k + n), ldc = n + 1;
        const a = randomArray(m * k, r), qw = randomInt8(n * k, r), wscale = randomArray(n, r, 0.001);
        const bias = randomArray(n, r), residual = randomArray(m * n, r);
        const [c] = call(M._h_gemm_q8, [nanArray(m * ldc), ldc, a, k, qw, wscale, bias, 0, m, n, k, ACT.none], [0]);
        checkExact(`M=${m} N=${n} K=${k}`, c, ldc, gemmModel({ a, lda: k, qw, wscale, bias, M: m, N: n, K: k, qmax: QMAX }).pre, m, n);
        const [d] = call(M._h_gemm_q8, [nanArray(m * n), n, a, k, qw, wscale, bias, residual, m, n, k, ACT.none], [0]);
        checkExact(`M=${m} N=${n} K=${k} residual`, d, n, gemmModel({ a, lda: k, qw, wscale, bias, residual, M: m, N: n, K: k, qmax: QMAX }).out, m, n);
      }
    }
  });

  it('fuses each activation and the residual (activation within 1e-6 of float64; the rest exact)', () => {
    for (const act of [ACT.geluErf, ACT.geluTanh, ACT.relu]) {
      for (const [m, n, k] of [[1, 1, 1], [5, 9, 33], [17, 15, 64], [4, 8, 300], [9, 17, 1031]]) {
        const r = rng(7 * act + 11 * m + n + k);
        const a = randomArray(m * k, r, 2), qw = randomInt8(n * k, r), wscale = randomArray(n, r, 0.002);
        const bias = randomArray(n, r), residual = randomArray(m * n, r);
        const [c] = call(M._h_gemm_q8, [nanArray(m * n), n, a, k, qw, wscale, bias, residual, m, n, k, act], [0]);
        const { out } = gemmModel({ a, lda: k, qw, wscale, bias, residual, M: m, N: n, K: k, act, qmax: QMAX });
        for (let i = 0; i < m * n; i++) {
          assert.ok(Math.abs(c[i] - out[i]) <= 1e-6 * (1 + Math.abs(out[i])), `act ${act} M=${m} N=${n} K=${k} [${i}]: ${c[i]} vs ${out[i]}`);
        }
      }
    }
  });

  it('zero-depth K gives the bias; the reference loops (the native path) give the same bits', () => {
    const bias = Float32Array.from([1, -2, 3]);
    const [c] = call(M._h_gemm_q8, [nanArray(6), 3, new Float32Array(1), 1, new Int8Array(1), new Float32Array(3).fill(1), bias, 0, 2, 3, 0, ACT.none], [0]);
    assert.deepEqual([...c], [1, -2, 3, 1, -2, 3]);
    for (const [m, n, k] of [[7, 13, 77], [130, 20, 2100]]) {
      const r = rng(m * n * k);
      const a = randomArray(m * k, r), qw = randomInt8(n * k, r), wscale = randomArray(n, r, 0.01);
      const bias = randomArray(n, r), residual = randomArray(m * n, r);
      const [c1] = call(M._h_gemm_q8, [nanArray(m * n), n, a, k, qw, wscale, bias, residual, m, n, k, ACT.none], [0]);
      const [c2] = call(M._h_gemm_q8_reference, [nanArray(m * n), n, a, k, qw, wscale, bias, residual, m, n, k], [0]);
      checkExact(`reference M=${m} N=${n} K=${k}`, c1, n, c2, m, n);
    }
  });
});

describe('gemv_q8_wasmsimd (one row: a generated token)', () => {
  it('equals the model and the GEMM at M = 1 bit for bit: every panel edge, K around the 4-k groups and the GEMM\'s 2048-deep blocks, each activation, bias and residual', () => {
    let cases = 0;
    for (const k of [1, 2, 3, 4, 5, 7, 9, 33, 2047, 2049, 3072]) {
      for (const n of [1, 2, 7, 8, 9, 15, 16, 17, 33]) {
        const r = rng(77 * k + n);
        const x = randomArray(k, r, 2), qw = randomInt8(n * k, r), wscale = randomArray(n, r, 0.01);
        const bias = (k + n) % 2 ? randomArray(n, r) : 0, residual = (k + n) % 3 ? randomArray(n, r) : 0;
        const act = [ACT.none, ACT.geluErf, ACT.geluTanh, ACT.relu][(k + n) % 4];
        const [y] = call(M._h_gemv_q8, [nanArray(n), x, qw, wscale, bias, residual, n, k, act], [0]);
        const [c] = call(M._h_gemm_q8, [nanArray(n), n, x, k, qw, wscale, bias, residual, 1, n, k, act], [0]);
        checkExact(`GEMM N=${n} K=${k} act ${act}`, y, n, c, 1, n);
        if (act === ACT.none) {
          const model = gemmModel({ a: x, lda: k, qw, wscale, bias: bias || null, residual: residual || null, M: 1, N: n, K: k, qmax: QMAX });
          checkExact(`model N=${n} K=${k}`, y, n, residual ? Float32Array.from(model.out) : model.pre, 1, n);
        }
        cases++;
      }
    }
    assert.equal(cases, 11 * 9);
  });

  it('relaxed build: the pairwise micro-kernel forced gives the same bits', (t) => {
    if (QMAX !== 127) return t.skip('the plain build has one micro-kernel');
    const [n, k] = [19, 777], r = rng(99);
    const x = randomArray(k, r, 2), qw = randomInt8(n * k, r), wscale = randomArray(n, r, 0.01), bias = randomArray(n, r);
    const { pre } = gemmModel({ a: x, lda: k, qw, wscale, bias, M: 1, N: n, K: k, qmax: QMAX });
    try {
      M._h_q8_set_dot_form(1);
      const [y] = call(M._h_gemv_q8, [nanArray(n), x, qw, wscale, bias, 0, n, k, ACT.none], [0]);
      checkExact('pairwise forced', y, n, pre, 1, n);
    } finally {
      M._h_q8_set_dot_form(0);
    }
  });
});

// ---- PackedLinearQ8 ---------------------------------------------------------------------------
function halfValue(h) {
  const sign = h & 0x8000 ? -1 : 1, e = (h >> 10) & 0x1f, m = h & 0x3ff;
  if (e === 0) return sign * m * 2 ** -24;
  if (e === 31) return m ? NaN : sign * Infinity;
  return sign * 2 ** (e - 15) * (1 + m / 1024);
}

describe('PackedLinearQ8 (quantized once at load from f32 or f16, applied with the fused epilogue)', () => {
  it('linear_packed_q8 = the model on the quantized weight, every panel edge, from f32 and from f16 bits', () => {
    for (const f16 of [0, 1]) {
      for (const [t, inC, outC, res] of [[1, 1, 1, false], [7, 24, 40, true], [13, 33, 17, false], [5, 17, 64, true], [129, 70, 9, true]]) {
        const r = rng(t * inC + outC + f16);
        const x = randomArray(t * inC, r);
        let w = normalArray(outC * inC, r, 0.1), wArg = w;
        if (f16) {
          const bits = Uint16Array.from(w, (v) => {  // a half near v: sign, exponent 9..16, random mantissa
            const e = Math.min(30, Math.max(1, Math.floor(Math.log2(Math.abs(v) || 1e-4)) + 15));
            return (v < 0 ? 0x8000 : 0) | (e << 10) | (Math.floor((r() + 1) * 512) & 0x3ff);
          });
          wArg = bits;
          w = Float32Array.from(bits, halfValue);
        }
        const b = randomArray(outC, r), residual = res ? randomArray(t * outC, r) : null;
        const [out] = call(M._h_linear_q8, [nanArray(t * outC), x, wArg, b, residual ?? 0, t, inC, outC, ACT.none, f16], [0]);
        const { q, scale } = quantizeWeight(w, outC, inC);
        const model = gemmModel({ a: x, lda: inC, qw: q, wscale: scale, bias: b, residual, M: t, N: outC, K: inC, qmax: QMAX });
        checkExact(`linear f16=${f16} T=${t} in=${inC} out=${outC}`, out, outC, model.out, t, outC);
      }
    }
  });

  it('linear_packed_slice_q8 = the model on x · W[:, k0:k0+n]ᵀ (one head through W_O), slice rows quantized alone', () => {
    for (const [t, inC, outC, k0, kn] of [[9, 48, 20, 16, 16], [5, 64, 9, 0, 64], [130, 768, 17, 704, 64], [3, 40, 8, 12, 7], [1, 2100, 24, 64, 2036]]) {
      const r = rng(t + inC + outC + k0 + kn), ldx = inC;
      const x = randomArray(t * ldx, r, 3), w = normalArray(outC * inC, r, 0.1);
      const xs = x.subarray(k0);  // the head's columns start at k0 in each row
      const [out] = call(M._h_linear_slice_q8, [nanArray(t * outC), xs.slice(), ldx, w, t, inC, outC, k0, kn], [0]);
      const { q, scale } = quantizeWeight(w, outC, inC);
      const qSlice = new Int8Array(outC * kn);
      for (let o = 0; o < outC; o++) for (let kk = 0; kk < kn; kk++) qSlice[o * kn + kk] = q[o * inC + k0 + kk];
      const model = gemmModel({ a: xs, lda: ldx, qw: qSlice, wscale: scale, M: t, N: outC, K: kn, qmax: QMAX });
      checkExact(`slice T=${t} in=${inC} out=${outC} k0=${k0} n=${kn}`, out, outC, model.pre, t, outC);
    }
  });

  // How far a q8 layer is from the f32 one, on bert-base's shapes with bert-like data: the
  // attention / FFN-in matrices read LayerNorm outputs (two-sided, a few large dimensions), the
  // FFN-out matrix reads GELU outputs (one-sided). Relative Frobenius error of the output.
  it('error against the f32 layer on bert-base shapes (printed)', (t) => {
    const T = 128, errors = {};
    for (const [name, inC, outC, input] of [
      ['768→768 (LayerNorm input)', 768, 768, 'ln'],
      ['768→3072 (LayerNorm input)', 768, 3072, 'ln'],
      ['3072→768 (GELU input)', 3072, 768, 'gelu'],
    ]) {
      const r = rng(inC + outC);
      const x = normalArray(T * inC, r);
      if (input === 'ln') for (let i = 0; i < T; i++) { x[i * inC + 7] *= 8; x[i * inC + 300] *= -6; }  // outlier dimensions
      else for (let i = 0; i < x.length; i++) x[i] = actRef[0](x[i]);
      const w = normalArray(outC * inC, r, 0.02), b = normalArray(outC, r, 0.02);
      const [y8] = call(M._h_linear_q8, [nanArray(T * outC), x, w, b, 0, T, inC, outC, ACT.none, 0], [0]);
      const [y32] = call(M._h_linear_packed, [nanArray(T * outC), x, w, b, 0, T, inC, outC, ACT.none, 0], [0]);
      let num = 0, den = 0;
      for (let i = 0; i < y8.length; i++) { num += (y8[i] - y32[i]) ** 2; den += y32[i] ** 2; }
      errors[name] = Math.sqrt(num / den);
    }
    const line = Object.entries(errors).map(([k, v]) => `${k}: ${(100 * v).toFixed(3)}%`).join(', ');
    t.diagnostic(`activations [0, ${QMAX}]: ${line}`);
    console.log(`# q8 vs f32 relative error, activations [0, ${QMAX}]: ${line}`);
    for (const [name, e] of Object.entries(errors)) assert.ok(e < (QMAX === 255 ? 0.025 : 0.05), `${name}: ${e}`);
  });
});
