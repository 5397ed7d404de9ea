// The one-row kernels of a generated token's step (engine/kernels/gemv_f32_wasmsimd.h, dot_rows.h)
// in WebAssembly: the packed-panel GEMV against naive float64 loops and, bit for bit, against the
// GEMM at M = 1 (a step over the KV cache must give what the full forward pass gives), f32 and f16
// panels, at every edge of its four-panel groups (N around 8, 16, 24, 32, 40) and of K; dot_rows
// (the vocabulary head over the row-major embedding matrix) against naive loops, its f16 form
// equal to its f32 form on the widened weights. Outputs pre-filled with NaN, fixed seeds.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

// ATTNSCOPE_WASM_BUILD=build/wasm-relaxed (with node --experimental-wasm-relaxed-simd): the
// relaxed build's kernels (its GEMV multiply-adds fused, as its GEMM's).
const buildDir = resolve(process.env.ATTNSCOPE_WASM_BUILD ?? join(import.meta.dirname, '../../build/wasm'));
const harnessJs = join(buildDir, 'kernels-simd-harness.mjs');
let M;

before(async () => {
  assert.ok(existsSync(harnessJs), `${harnessJs} is missing: run "bash scripts/build.sh wasm" first`);
  const { default: create } = await import(harnessJs);
  M = await create({ wasmBinary: readFileSync(join(buildDir, 'kernels-simd-harness.wasm')) });
});

function rng(seed) {  // mulberry32, uniform in [-1, 1)
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2147483648 - 1;
  };
}
const randomArray = (n, r) => Float32Array.from({ length: n }, () => r());
const nanArray = (n) => new Float32Array(n).fill(NaN);
function halfValue(h) {
  const sign = h & 0x8000 ? -1 : 1, e = (h >> 10) & 0x1f, m = h & 0x3ff;
  if (e === 0) return sign * m * 2 ** -24;
  return sign * 2 ** (e - 15) * (1 + m / 1024);
}
function randomHalves(n, r) {  // finite halves ~2^-6..2, a few subnormals
  const bits = new Uint16Array(n);
  for (let i = 0; i < n; i++) {
    const sign = r() < 0 ? 0x8000 : 0, mant = Math.floor((r() + 1) * 512) & 0x3ff;
    const exp = i % 29 === 0 ? 0 : 9 + Math.floor((r() + 1) * 3.5);
    bits[i] = sign | (exp << 10) | mant;
  }
  return { bits, values: Float32Array.from(bits, halfValue) };
}

// Copies typed arrays into wasm memory, runs fn, returns the output array (argument 0), frees all.
function call(fn, args) {
  const ptrs = [];
  try {
    const vals = args.map((a) => {
      if (!(a instanceof Float32Array || a instanceof Uint16Array)) return a;
      const p = M._malloc(Math.max(4, a.byteLength));
      ptrs.push(p);
      new Uint8Array(M.HEAPU8.buffer, p, a.byteLength).set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
      return p;
    });
    fn(...vals);
    return M.HEAPF32.slice(vals[0] >> 2, (vals[0] >> 2) + args[0].length);
  } finally {
    ptrs.forEach((p) => M._free(p));
  }
}

const U = 2 ** -24;
const erf = (x) => M._h_erf_reference(x);  // libc's double erf (JavaScript has none)
const ACT_REF = {
  [-1]: (x) => x, 0: (x) => 0.5 * x * (1 + erf(x / Math.SQRT2)),
  1: (x) => 0.5 * x * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (x + 0.044715 * x ** 3))),
  2: (x) => Math.max(0, x), 3: (x) => x / (1 + Math.exp(-x)),
};
// act(scale · x·W[n] + bias[n]) + residual[n] in float64, and the bound on f32 summation error.
function rowRef(x, w, bias, residual, N, K, act, scale) {
  const out = new Float64Array(N), tol = new Float64Array(N);
  for (let n = 0; n < N; n++) {
    let s = 0, g = 0;
    for (let k = 0; k < K; k++) { const p = x[k] * w[n * K + k]; s += p; g += Math.abs(p); }
    let y = ACT_REF[act](s * scale + (bias ? bias[n] : 0));
    if (residual) y += residual[n];
    out[n] = y;
    const mag = g * Math.abs(scale) + (bias ? Math.abs(bias[n]) : 0) + (residual ? Math.abs(residual[n]) : 0);
    tol[n] = (K + 8) * U * mag * 1.2 + (act === -1 || act === 2 ? 0 : 4e-7) * (1 + Math.abs(y)) + 1e-30;
  }
  return { out, tol };
}

const N_EDGES = [1, 7, 8, 9, 15, 16, 17, 24, 25, 31, 32, 33, 40, 41, 64, 67];
const K_EDGES = [1, 3, 4, 5, 64, 1023, 1024, 1025, 2049];

describe('gemv_f32_wasmsimd / gemv_f16b_wasmsimd (one row over packed panels)', () => {
  for (const [precision, fn] of [['f32', '_h_row_f32'], ['f16', '_h_row_f16']]) {
    it(`${precision}: equals the GEMM at M = 1 bit for bit and the naive loop, at every panel-group and K edge`, () => {
      let cases = 0;
      for (const N of N_EDGES) {
        for (const K of K_EDGES) {
          if (N * K > 70000) continue;  // the big K with a few N only: the test stays fast
          const r = rng(N * 4099 + K);
          const x = randomArray(K, r);
          const { w, bits } = precision === 'f16' ? (({ bits: b, values }) => ({ w: values, bits: b }))(randomHalves(N * K, r))
            : { w: randomArray(N * K, r), bits: null };
          const bias = (N + K) % 3 ? randomArray(N, r) : null;
          const residual = N % 2 ? randomArray(N, r) : null;
          const act = [-1, 0, 1, 2, 3][(N + K) % 5], scale = K % 2 ? 1 : 0.125;
          const args = (gemm) => [nanArray(N), x, bits ?? w, bias ?? 0, residual ?? 0, N, K, act, scale, gemm];
          const gemv = call(M[fn], args(0)), gemm = call(M[fn], args(1));
          const ref = rowRef(x, w, bias, residual, N, K, act, scale);
          for (let n = 0; n < N; n++) {
            assert.ok(Object.is(gemv[n], gemm[n]), `${precision} N=${N} K=${K} act ${act}: y[${n}] GEMV ${gemv[n]} ≠ GEMM ${gemm[n]}`);
            assert.ok(Math.abs(gemv[n] - ref.out[n]) <= ref.tol[n], `${precision} N=${N} K=${K}: y[${n}] = ${gemv[n]}, expected ${ref.out[n]}`);
          }
          cases++;
        }
      }
      assert.ok(cases > 100, `only ${cases} shapes ran`);
    });
  }

  it('f16: equals the GEMM at M = 1 bit for bit with an infinity or NaN in a panel, an input ≥ 2^16 or a NaN input', () => {
    // The GEMV widens finite halves by shift and mask, x carrying the 2^112; a panel holding a
    // non-finite half, and any x it cannot carry, go through the general conversion instead.
    const N = 25, K = 37;
    for (const [name, edit] of [
      ['+inf in panel 1', (x, bits) => { bits[9 * K + 4] = 0x7c00; }],
      ['NaN in the last, partial panel', (x, bits) => { bits[24 * K + 36] = 0x7e01; }],
      ['-inf and every subnormal bit pattern', (x, bits) => { bits[2 * K] = 0xfc00; for (let i = 0; i < 1024; i++) bits[(i * 7) % (N * K)] = i | (i & 1 ? 0x8000 : 0); }],
      ['x = 2^16', (x) => { x[3] = 65536; }],
      ['x = -1e30', (x) => { x[0] = -1e30; }],
      ['x NaN', (x) => { x[20] = NaN; }],
    ]) {
      const r = rng(name.length * 31);
      const x = randomArray(K, r), { bits } = randomHalves(N * K, r);
      edit(x, bits);
      const args = (gemm) => [nanArray(N), x, bits, 0, 0, N, K, -1, 1, gemm];
      const gemv = call(M._h_row_f16, args(0)), gemm = call(M._h_row_f16, args(1));
      for (let n = 0; n < N; n++) assert.ok(Object.is(gemv[n], gemm[n]), `${name}: y[${n}] GEMV ${gemv[n]} ≠ GEMM ${gemm[n]}`);
    }
  });

  it('writes exactly N outputs (the NaN past them stays)', () => {
    for (const N of [1, 9, 33]) {
      const K = 5, r = rng(N), x = randomArray(K, r), w = randomArray(N * K, r);
      const y = nanArray(N + 8);
      // a longer output array: only the first N are the kernel's
      const got = call(M._h_row_f32, [y, x, w, 0, 0, N, K, -1, 1, 0]);
      for (let n = 0; n < N + 8; n++) assert.equal(Number.isNaN(got[n]), n >= N, `N=${N}: y[${n}] = ${got[n]}`);
    }
  });
});

describe('dot_rows (the vocabulary head over a row-major matrix)', () => {
  it('f32 and f16 against the naive loop at row-group and K edges, several input rows, a strided output', () => {
    for (const N of [1, 3, 4, 5, 8, 9, 13]) {
      for (const K of [1, 3, 4, 7, 8, 9, 15, 16, 17, 31, 32, 33, 67]) {
        for (const T of [1, 3]) {
          const r = rng(N * 131 + K * 7 + T), ldy = N + 2;
          const x = randomArray(T * K, r), { bits, values } = randomHalves(N * K, r);
          const bias = K % 2 ? randomArray(N, r) : null;
          const f32 = call(M._h_dot_rows_f32, [nanArray(T * ldy), ldy, x, values, bias ?? 0, T, N, K]);
          const f16 = call(M._h_dot_rows_f16, [nanArray(T * ldy), ldy, x, bits, bias ?? 0, T, N, K]);
          for (let t = 0; t < T; t++) {
            const ref = rowRef(x.subarray(t * K, (t + 1) * K), values, bias, null, N, K, -1, 1);
            for (let j = 0; j < ldy; j++) {
              const i = t * ldy + j;
              if (j >= N) { assert.ok(Number.isNaN(f32[i]) && Number.isNaN(f16[i]), `wrote past N at row ${t}, col ${j}`); continue; }
              assert.ok(Math.abs(f32[i] - ref.out[j]) <= ref.tol[j], `f32 N=${N} K=${K} T=${T}: y[${t}][${j}] = ${f32[i]}, expected ${ref.out[j]}`);
              assert.ok(Object.is(f16[i], f32[i]), `f16 N=${N} K=${K} T=${T}: y[${t}][${j}] ${f16[i]} ≠ f32 on the widened weights ${f32[i]}`);
            }
          }
        }
      }
    }
  });

  it('f16 widens every one of the 65,536 halves exactly (subnormals, ±0, ±inf, NaN)', () => {
    // Row n holds halves 16n..16n+15; one-hot inputs pick each weight alone, so each output is the
    // widened half itself (f16 path) against the exact value given as f32 (f32 path).
    // Sixteen a row, so that every half goes through the SIMD loop's sixteen lanes.
    const N = 4096, K = 16, T = 16;
    const bits = Uint16Array.from({ length: N * K }, (_, i) => i);
    const values = Float32Array.from(bits, (h) => ((h >> 10) & 0x1f) === 31 ? (h & 0x3ff ? NaN : (h & 0x8000 ? -Infinity : Infinity)) : halfValue(h));
    const x = new Float32Array(T * K);
    for (let t = 0; t < T; t++) x[t * K + t] = 1;
    const f16 = call(M._h_dot_rows_f16, [nanArray(T * N), N, x, bits, 0, T, N, K]);
    const f32 = call(M._h_dot_rows_f32, [nanArray(T * N), N, x, values, 0, T, N, K]);
    for (let i = 0; i < T * N; i++) {
      const h = (i % N) * K + Math.floor(i / N);
      assert.ok(Object.is(f16[i], f32[i]) || (Number.isNaN(f16[i]) && Number.isNaN(f32[i])), `half 0x${h.toString(16)}: ${f16[i]} vs ${f32[i]}`);
    }
  });

  it('f16 equals f32 when inputs reach 2^16 (x is then not prescaled) or are not finite, and on rows holding an infinity', () => {
    const N = 6, K = 40, T = 3, r = rng(17);
    const { bits, values } = randomHalves(N * K, r);
    bits[2 * K + 19] = 0x7c00; values[2 * K + 19] = Infinity;   // row 2: +inf among finite weights
    bits[4 * K + 3] = 0xfe00; values[4 * K + 3] = NaN;          // row 4: a NaN
    const x = randomArray(T * K, r);
    x[5] = 65536; x[K + 7] = -1e30; x[2 * K + 1] = NaN;         // one input row each
    const f16 = call(M._h_dot_rows_f16, [nanArray(T * N), N, x, bits, 0, T, N, K]);
    const f32 = call(M._h_dot_rows_f32, [nanArray(T * N), N, x, values, 0, T, N, K]);
    for (let i = 0; i < T * N; i++) assert.ok(Object.is(f16[i], f32[i]) || (Number.isNaN(f16[i]) && Number.isNaN(f32[i])), `y[${i}]: ${f16[i]} vs ${f32[i]}`);
    for (let t = 0; t < T; t++) assert.ok(!Number.isFinite(f16[t * N + 2]) && !Number.isFinite(f16[t * N + 4]), 'the rows holding inf and NaN give no finite logit');
  });

  it('a logit does not depend on how many input rows are asked for at once', () => {
    const N = 11, K = 45, T = 4, r = rng(5);
    const x = randomArray(T * K, r), w = randomArray(N * K, r);
    const all = call(M._h_dot_rows_f32, [nanArray(T * N), N, x, w, 0, T, N, K]);
    for (let t = 0; t < T; t++) {
      const one = call(M._h_dot_rows_f32, [nanArray(N), N, x.slice(t * K, (t + 1) * K), w, 0, 1, N, K]);
      for (let n = 0; n < N; n++) assert.ok(Object.is(one[n], all[t * N + n]), `row ${t} col ${n}`);
    }
  });
});
