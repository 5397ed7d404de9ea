// The SIMD128 kernels (engine/kernels/*wasmsimd*) run in WebAssembly against naive float64 loops
// written here: the packed GEMM at every tile edge (M, N in 1..9, 15, 16, 17; odd K) with each
// epilogue, attention (scores, mask, softmax, P·V) and the vector exp / erf / GELU. Outputs are
// pre-filled with NaN, so a cell the kernel forgets to write (or a read of a cell it must not
// touch) shows up; inputs come from a fixed-seed generator.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

// ATTNSCOPE_WASM_BUILD=build/wasm-relaxed (run with node --experimental-wasm-relaxed-simd) tests the
// relaxed-SIMD build's kernels.
const buildDir = resolve(process.env.ATTNSCOPE_WASM_BUILD ?? join(import.meta.dirname, '../../build/wasm'));
const harnessJs = join(buildDir, 'kernels-simd-harness.mjs');
let M;

before(async () => {
  assert.ok(existsSync(harnessJs), `${harnessJs} is missing: run "bash scripts/build.sh wasm" first`);
  const { default: create } = await import(harnessJs);
  M = await create({ wasmBinary: readFileSync(join(buildDir, 'kernels-simd-harness.wasm')) });
});

// ---- helpers --------------------------------------------------------------------------------
function rng(seed) {  // mulberry32: fixed seeds, uniform in [-1, 1)
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2147483648 - 1;
  };
}
const randomArray = (n, r, scale = 1) => Float32Array.from({ length: n }, () => r() * scale);

// Copies arrays into wasm memory, runs fn(pointers...), returns the listed outputs, frees all.
function call(fn, args, outputs) {
  const ptrs = [];
  try {
    const vals = args.map((a) => {
      if (a instanceof Uint16Array) {  // f16 bits
        const p = M._malloc(Math.max(4, a.length * 2));
        ptrs.push(p);
        M.HEAPU16.set(a, p >> 1);
        return p;
      }
      if (!(a instanceof Float32Array)) return a;
      const p = M._malloc(Math.max(4, a.length * 4));
      ptrs.push(p);
      M.HEAPF32.set(a, p >> 2);
      return p;
    });
    fn(...vals);
    return outputs.map((i) => M.HEAPF32.slice(vals[i] >> 2, (vals[i] >> 2) + args[i].length));
  } finally {
    ptrs.forEach((p) => M._free(p));
  }
}
const nanArray = (n) => new Float32Array(n).fill(NaN);
const U = 2 ** -24;  // f32 unit roundoff

function geluErfRef(x) { return 0.5 * x * (1 + M._h_erf_reference(x / Math.SQRT2)); }
function geluTanhRef(x) { return 0.5 * x * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (x + 0.044715 * x ** 3))); }
const ACT = { none: -1, geluErf: 0, geluTanh: 1, relu: 2 };
const actRef = { [-1]: (x) => x, 0: geluErfRef, 1: geluTanhRef, 2: (x) => Math.max(0, x) };

// C = act(scale · A Wᵀ + bias) + residual in float64, plus the bound Σ|a||w| that scales the
// f32 summation error (|error| ≤ K·u·Σ|a_k w_k| for any summation order).
function gemmRef({ a, lda, w, bias, residual, M: m, N: n, K: k, act, scale }) {
  const out = new Float64Array(m * n), mag = new Float64Array(m * n);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      let s = 0, g = 0;
      for (let kk = 0; kk < k; kk++) { const p = a[i * lda + kk] * w[j * k + kk]; s += p; g += Math.abs(p); }
      let y = s * scale + (bias ? bias[j] : 0);
      y = actRef[act](y);
      if (residual) y += residual[i * n + j];
      out[i * n + j] = y;
      mag[i * n + j] = g * Math.abs(scale) + (bias ? Math.abs(bias[j]) : 0) + (residual ? Math.abs(residual[i * n + j]) : 0);
    }
  }
  return { out, mag };
}

function checkGemm(label, got, ldc, ref, m, n, k, act) {
  // summation bound, plus the activation's few-ulp error and final roundings
  const actTol = act === ACT.none || act === ACT.relu ? 0 : 4e-7;
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < ldc; j++) {
      const g = got[i * ldc + j];
      if (j >= n) {
        assert.ok(Number.isNaN(g), `${label}: wrote outside the matrix at row ${i}, col ${j}`);
        continue;
      }
      const r = ref.out[i * n + j], tol = (k + 8) * U * ref.mag[i * n + j] * 1.2 + actTol * (1 + Math.abs(r)) + 1e-30;
      assert.ok(Math.abs(g - r) <= tol, `${label}: C[${i}][${j}] = ${g}, expected ${r} (tol ${tol})`);
    }
  }
}

// ---- GEMM ------------------------------------------------------------------------------------
const EDGE = [1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17];

describe('gemm_f32_wasmsimd (4x8 micro-kernel, packed B)', () => {
  it('matches a naive loop at every tile edge, odd K, C pre-filled with NaN, ldc > N', () => {
    let cases = 0;
    for (const k of [1, 3, 7, 17]) {
      for (const m of EDGE) {
        for (const n of EDGE) {
          const r = rng(1000 * k + 31 * m + n);
          const lda = k + 2, ldc = n + 3;
          const a = randomArray(m * lda, r), w = randomArray(n * k, r), bias = randomArray(n, r);
          const [c] = call(M._h_gemm_weight, [nanArray(m * ldc), ldc, a, lda, w, bias, 0, m, n, k, ACT.none, 1], [0]);
          const ref = gemmRef({ a, lda, w, bias, M: m, N: n, K: k, act: ACT.none, scale: 1 });
          checkGemm(`M=${m} N=${n} K=${k}`, c, ldc, ref, m, n, k, ACT.none);
          cases++;
        }
      }
    }
    assert.equal(cases, 4 * EDGE.length ** 2);
  });

  it('fuses scale, bias, each activation and the residual into the epilogue', () => {
    for (const act of [ACT.geluErf, ACT.geluTanh, ACT.relu, ACT.none]) {
      for (const [m, n, k] of [[1, 1, 1], [5, 9, 33], [17, 15, 64], [4, 8, 300], [9, 17, 1031]]) {
        const r = rng(7 * act + 11 * m + n + k);
        const a = randomArray(m * k, r, 2), w = randomArray(n * k, r, 0.2), bias = randomArray(n, r);
        const residual = randomArray(m * n, r), scale = 0.125;
        const [c] = call(M._h_gemm_weight, [nanArray(m * n), n, a, k, w, bias, residual, m, n, k, act, scale], [0]);
        const ref = gemmRef({ a, lda: k, w, bias, residual, M: m, N: n, K: k, act, scale });
        checkGemm(`act=${act} M=${m} N=${n} K=${k}`, c, n, ref, m, n, k, act);
      }
    }
  });

  it('crosses K and row blocks (K > 1024, M > 128) without losing partial sums', () => {
    const [m, n, k] = [131, 10, 2053];
    const r = rng(99);
    const a = randomArray(m * k, r), w = randomArray(n * k, r), bias = randomArray(n, r);
    const [c] = call(M._h_gemm_weight, [nanArray(m * n), n, a, k, w, bias, 0, m, n, k, ACT.geluErf, 1], [0]);
    checkGemm('blocked', c, n, gemmRef({ a, lda: k, w, bias, M: m, N: n, K: k, act: ACT.geluErf, scale: 1 }), m, n, k, ACT.geluErf);
  });

  // Rows go in blocks of kMC = 128 (ATTNSCOPE_GEMM_MC), K in blocks of kKC = 1024: on each side of
  // each boundary, with a partial 4-row tile in the last block, the stored C pre-filled with NaN.
  it('rows on each side of the 128-row blocks (127 … 259) and K on each side of 1024', () => {
    const rows = [127, 128, 129, 131, 255, 256, 257, 259];
    for (const m of rows) {
      for (const k of m === 129 || m === 257 ? [5, 1023, 1024, 1025] : [7]) {
        for (const n of [9, 17]) {
          const r = rng(13 * m + 7 * k + n), ldc = n + 1;
          const a = randomArray(m * k, r), w = randomArray(n * k, r), bias = randomArray(n, r);
          const residual = randomArray(m * n, r);
          const [c] = call(M._h_gemm_weight, [nanArray(m * ldc), ldc, a, k, w, bias, 0, m, n, k, ACT.relu, 0.5], [0]);
          checkGemm(`M=${m} N=${n} K=${k}`, c, ldc, gemmRef({ a, lda: k, w, bias, M: m, N: n, K: k, act: ACT.relu, scale: 0.5 }), m, n, k, ACT.relu);
          const [d] = call(M._h_gemm_weight, [nanArray(m * n), n, a, k, w, bias, residual, m, n, k, ACT.none, 1], [0]);
          checkGemm(`M=${m} N=${n} K=${k} residual`, d, n,
            gemmRef({ a, lda: k, w, bias, residual, M: m, N: n, K: k, act: ACT.none, scale: 1 }), m, n, k, ACT.none);
        }
      }
    }
  });

  it('packs a (K, N) matrix with a row stride (the P·V layout)', () => {
    for (const [m, n, k] of [[3, 5, 7], [16, 64, 128], [17, 9, 1]]) {
      const r = rng(m + n + k), ldb = n + 5;
      const a = randomArray(m * k, r), b = randomArray(k * ldb, r);
      const wT = new Float32Array(n * k);  // the same B as an (N, K) weight for gemmRef
      for (let kk = 0; kk < k; kk++) for (let j = 0; j < n; j++) wT[j * k + kk] = b[kk * ldb + j];
      const [c] = call(M._h_gemm_matrix, [nanArray(m * n), n, a, k, b, ldb, m, n, k], [0]);
      checkGemm(`matrix M=${m} N=${n} K=${k}`, c, n, gemmRef({ a, lda: k, w: wT, M: m, N: n, K: k, act: ACT.none, scale: 1 }), m, n, k, ACT.none);
    }
  });

  it('zero-depth K gives the epilogue of 0 (bias only)', () => {
    const bias = Float32Array.from([1, -2, 3]);
    const [c] = call(M._h_gemm_weight, [nanArray(6), 3, new Float32Array(1), 1, new Float32Array(1), bias, 0, 2, 3, 0, ACT.none, 1], [0]);
    assert.deepEqual([...c], [1, -2, 3, 1, -2, 3]);
  });
});

describe('PackedLinear (pack once, apply with a fused epilogue)', () => {
  it('linear_packed_f32 = act(x Wᵀ + b) + residual, packed into new memory or in place', () => {
    const shapes = [[7, 24, 40, ACT.geluErf, false], [13, 33, 17, ACT.none, true], [1, 8, 8, ACT.relu, true], [5, 17, 64, ACT.none, true]];
    for (const inPlace of [0, 1]) {
      for (const [t, inC, outC, act, res] of shapes) {
        const r = rng(t * inC + outC);
        const x = randomArray(t * inC, r), w = randomArray(outC * inC, r, 0.3), b = randomArray(outC, r);
        const residual = res ? randomArray(t * outC, r) : null;
        const [out] = call(M._h_linear_packed, [nanArray(t * outC), x, w, b, residual ?? 0, t, inC, outC, act, inPlace], [0]);
        checkGemm(`linear T=${t} in place ${inPlace}`, out, outC, gemmRef({ a: x, lda: inC, w, bias: b, residual, M: t, N: outC, K: inC, act, scale: 1 }), t, outC, inC, act);
      }
    }
  });

  it('linear_packed_slice_f32 = x · W[:, k0:k0+n]ᵀ (one head through W_O)', () => {
    const [t, inC, outC, k0, kn, ldx] = [9, 48, 20, 16, 16, 48];
    const r = rng(5);
    const x = randomArray(t * ldx, r), w = randomArray(outC * inC, r);
    const wSlice = new Float32Array(outC * kn);
    for (let o = 0; o < outC; o++) for (let kk = 0; kk < kn; kk++) wSlice[o * kn + kk] = w[o * inC + k0 + kk];
    const xs = x.subarray(k0);  // head columns start at k0 in each row
    const [out] = call(M._h_linear_slice, [nanArray(t * outC), xs.slice(), ldx, w, t, inC, outC, k0, kn], [0]);
    checkGemm('slice', out, outC, gemmRef({ a: xs, lda: ldx, w: wSlice, M: t, N: outC, K: kn, act: ACT.none, scale: 1 }), t, outC, kn, ACT.none);
  });
});

// ---- f16 weights -----------------------------------------------------------------------------
// IEEE binary16 decoded from its definition, independently of the engine's bit tricks.
function halfValue(h) {
  const sign = h & 0x8000 ? -1 : 1, e = (h >> 10) & 0x1f, m = h & 0x3ff;
  if (e === 0) return sign * m * 2 ** -24;
  if (e === 31) return m ? NaN : sign * Infinity;
  return sign * 2 ** (e - 15) * (1 + m / 1024);
}
// Random halves of magnitude ~2^-6..2 with a few subnormals, and their exact values.
function randomHalves(n, r) {
  const bits = new Uint16Array(n);
  for (let i = 0; i < n; i++) {
    const sign = r() < 0 ? 0x8000 : 0, mant = Math.floor((r() + 1) * 512) & 0x3ff;
    const exp = i % 29 === 0 ? 0 : 9 + Math.floor((r() + 1) * 3.5);
    bits[i] = sign | (exp << 10) | mant;
  }
  return { bits, values: Float32Array.from(bits, halfValue) };
}

describe('f16 weights (widened per K block by the GEMM)', () => {
  it('widens every one of the 65,536 halves exactly (subnormals, ±inf, NaN), SIMD body and scalar tail', () => {
    const n = 65536 + 5;  // 8-wide SIMD for the first 65,536, the scalar loop for the rest
    const all = Uint16Array.from({ length: n }, (_, i) => i % 65536);
    const [out] = call(M._h_widen_f16, [nanArray(n), all, n], [0]);
    for (let i = 0; i < n; i++) {
      const h = i % 65536;
      const want = halfValue(h);
      if (Number.isNaN(want)) assert.ok(Number.isNaN(out[i]), `0x${h.toString(16)}`);
      else assert.ok(Object.is(out[i], Math.fround(want)), `0x${h.toString(16)}: ${out[i]} vs ${want}`);
    }
  });

  it('linear_packed_f32 on f16 panels = the naive loop on the decoded weights, every tile edge', () => {
    for (const inPlace of [0, 1]) {
      for (const t of [1, 4, 5, 9, 17]) {
        for (const outC of [1, 7, 8, 9, 16, 17, 24]) {
          for (const inC of [1, 3, 16, 33]) {
            const r = rng(1000 * t + 10 * outC + inC);
            const x = randomArray(t * inC, r), b = randomArray(outC, r);
            const { bits, values } = randomHalves(outC * inC, r);
            const residual = outC % 2 ? randomArray(t * outC, r) : null;
            const act = t % 2 ? ACT.geluErf : ACT.none;
            const [out] = call(M._h_linear_packed_f16, [nanArray(t * outC), x, bits, b, residual ?? 0, t, inC, outC, act, inPlace], [0]);
            checkGemm(`f16 linear T=${t} in=${inC} out=${outC} in place ${inPlace}`, out, outC,
              gemmRef({ a: x, lda: inC, w: values, bias: b, residual, M: t, N: outC, K: inC, act, scale: 1 }), t, outC, inC, act);
          }
        }
      }
    }
  });

  // f16 panels are widened once per 128-row block: rows on each side of it, K on each side of 1024.
  it('f16 panels on each side of the 128-row blocks and of the 1024-deep K blocks', () => {
    for (const [t, inC] of [[127, 1024], [128, 1025], [129, 1023], [256, 7], [257, 1025], [259, 33]]) {
      for (const outC of [9, 16]) {
        const r = rng(3 * t + inC + outC);
        const x = randomArray(t * inC, r), b = randomArray(outC, r);
        const { bits, values } = randomHalves(outC * inC, r);
        const residual = outC % 2 ? randomArray(t * outC, r) : null;
        const [out] = call(M._h_linear_packed_f16, [nanArray(t * outC), x, bits, b, residual ?? 0, t, inC, outC, ACT.geluTanh, 0], [0]);
        checkGemm(`f16 T=${t} in=${inC} out=${outC}`, out, outC,
          gemmRef({ a: x, lda: inC, w: values, bias: b, residual, M: t, N: outC, K: inC, act: ACT.geluTanh, scale: 1 }), t, outC, inC, ACT.geluTanh);
      }
    }
  });

  it('crosses K and row blocks (K > 1024, M > 128) and slices K (one head through W_O)', () => {
    const [t, inC, outC] = [131, 1100, 16];
    const r = rng(77);
    const x = randomArray(t * inC, r), b = randomArray(outC, r);
    const { bits, values } = randomHalves(outC * inC, r);
    const [out] = call(M._h_linear_packed_f16, [nanArray(t * outC), x, bits, b, 0, t, inC, outC, ACT.none, 1], [0]);
    checkGemm('f16 big', out, outC, gemmRef({ a: x, lda: inC, w: values, bias: b, M: t, N: outC, K: inC, act: ACT.none, scale: 1 }), t, outC, inC, ACT.none);

    const [k0, kn, ldx] = [16, 16, 48];
    const s = randomHalves(20 * 48, r);
    const xs = randomArray(9 * ldx, r).subarray(k0);
    const wSlice = new Float32Array(20 * kn);
    for (let o = 0; o < 20; o++) for (let kk = 0; kk < kn; kk++) wSlice[o * kn + kk] = s.values[o * 48 + k0 + kk];
    const [sliced] = call(M._h_linear_slice_f16, [nanArray(9 * 20), xs.slice(), ldx, s.bits, 9, 48, 20, k0, kn], [0]);
    checkGemm('f16 slice', sliced, 20, gemmRef({ a: xs, lda: ldx, w: wSlice, M: 9, N: 20, K: kn, act: ACT.none, scale: 1 }), 9, 20, kn, ACT.none);
  });
});

// ---- attention -------------------------------------------------------------------------------
// q holds the last Tq of the T positions (Tq = T: a full pass). causal: query i sees keys up to
// its position T − Tq + i; the rest get probability 0.
function attentionRef(q, k, v, keyBias, T, dh, stride, { causal = false, Tq = T } = {}) {
  const probs = new Float64Array(Tq * T), ctx = new Float64Array(Tq * dh), scale = 1 / Math.sqrt(dh);
  for (let i = 0; i < Tq; i++) {
    const visible = causal ? T - Tq + i + 1 : T;
    const s = new Float64Array(T);
    for (let j = 0; j < visible; j++) {
      let d = 0;
      for (let e = 0; e < dh; e++) d += q[i * stride + e] * k[j * stride + e];
      s[j] = d * scale + (keyBias ? keyBias[j] : 0);
    }
    const mx = Math.max(...s.subarray(0, visible));
    if (mx === -Infinity) s.fill(1 / visible, 0, visible);
    else {
      let sum = 0;
      for (let j = 0; j < visible; j++) { s[j] = Math.exp(s[j] - mx); sum += s[j]; }
      for (let j = 0; j < visible; j++) s[j] /= sum;
    }
    probs.set(s, i * T);
    for (let e = 0; e < dh; e++) {
      let acc = 0;
      for (let j = 0; j < T; j++) acc += s[j] * v[j * stride + e];
      ctx[i * dh + e] = acc;
    }
  }
  return { probs, ctx };
}

describe('attention_head_f32_wasmsimd', () => {
  const run = (T, dh, masked, seed, { causal = false, Tq = T } = {}) => {
    const heads = 3, h = 1, stride = heads * dh;  // this head's columns inside a (T, 3·dh) layout
    const r = rng(seed);
    const fill = () => { const a = randomArray(T * stride, r, 2); for (let t = 0; t < T; t++) for (let c = 0; c < stride; c++) if (Math.floor(c / dh) !== h) a[t * stride + c] = NaN; return a; };
    const q = fill().subarray((T - Tq) * stride), k = fill(), v = fill();
    const keyBias = masked ? Float32Array.from({ length: T }, (_, j) => (masked(j) ? -Infinity : 0)) : null;
    const off = h * dh;
    const [probs, ctx] = call(M._h_attention, [nanArray(Tq * T), nanArray(Tq * stride), q.subarray(off).slice(), k.subarray(off).slice(), v.subarray(off).slice(), keyBias ?? 0, Tq, T, dh, stride, causal ? 1 : 0], [0, 1]);
    const ref = attentionRef(q.subarray(off), k.subarray(off), v.subarray(off), keyBias, T, dh, stride, { causal, Tq });
    return { probs, ctx, ref, stride };
  };

  it('causal (decoders): exactly 0 above the diagonal, the rest as the reference; one-query steps too', () => {
    for (const T of [1, 5, 16, 17, 33, 130]) {
      for (const Tq of [T, 1]) {
        const dh = 9;
        const { probs, ctx, ref } = run(T, dh, (j) => j === 2, T * 7 + Tq, { causal: true, Tq });
        for (let i = 0; i < Tq; i++) {
          const position = T - Tq + i;
          let sum = 0;
          for (let j = 0; j < T; j++) {
            const p = probs[i * T + j];
            if (j > position) assert.equal(p, 0, `T=${T} Tq=${Tq} P[${i}][${j}] above the diagonal`);
            assert.ok(Math.abs(p - ref.probs[i * T + j]) <= 2e-6, `T=${T} Tq=${Tq} P[${i}][${j}] = ${p}, expected ${ref.probs[i * T + j]}`);
            sum += p;
          }
          assert.ok(Math.abs(sum - 1) < 1e-5, `T=${T} Tq=${Tq} row ${i} sums to ${sum}`);
          for (let e = 0; e < dh; e++) {
            const want = ref.ctx[i * dh + e];
            assert.ok(Math.abs(ctx[i * 3 * dh + e] - want) <= 1e-5 * (1 + Math.abs(want)), `T=${T} Tq=${Tq} ctx[${i}][${e}]`);
          }
        }
      }
    }
  });

  it('one query (a generation step) reads K and V in place and gives the full pass\'s row bit for bit', () => {
    // attention_row_f32_wasmsimd (head_dim a multiple of 4; others stay packed) against the packed
    // GEMM path's last row of a two-query call over the same keys: every probability and context
    // value identical (Object.is), causal or not, masked keys or not, around the 4-key groups; head
    // sizes that take each of the context pass's widths (32, 16, 8 and 4 dimensions at a time).
    for (const T of [2, 3, 4, 5, 8, 9, 33, 130]) {
      for (const dh of [4, 8, 12, 20, 44, 64, 9]) {
        for (const causal of [false, true]) {
          const { probs: p2, ctx: c2, stride } = run(T, dh, (j) => j % 5 === 1, T * 31 + dh, { causal, Tq: 2 });
          const { probs: p1, ctx: c1, ref } = run(T, dh, (j) => j % 5 === 1, T * 31 + dh, { causal, Tq: 1 });
          for (let j = 0; j < T; j++) {
            assert.ok(Object.is(p1[j], p2[T + j]), `T=${T} dh=${dh} causal=${causal} P[${j}] ${p1[j]} vs the full pass's ${p2[T + j]}`);
            assert.ok(Math.abs(p1[j] - ref.probs[j]) <= 2e-6, `T=${T} dh=${dh} P[${j}] against float64`);
          }
          for (let e = 0; e < dh; e++) assert.ok(Object.is(c1[e], c2[stride + e]), `T=${T} dh=${dh} causal=${causal} ctx[${e}]`);
        }
      }
    }
  });

  it('matches float64 softmax(QKᵀ/√dh + mask)·V at T, dh around the tile widths; other heads untouched', () => {
    for (const T of [1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 33, 130]) {
      for (const dh of [1, 3, 8, 16, 64]) {
        const { probs, ctx, ref, stride } = run(T, dh, null, T * 100 + dh);
        for (let i = 0; i < T * T; i++) {
          assert.ok(Math.abs(probs[i] - ref.probs[i]) <= 2e-6, `T=${T} dh=${dh} P[${Math.floor(i / T)}][${i % T}] = ${probs[i]}, expected ${ref.probs[i]}`);
        }
        // ctx points at this head's first column: columns [dh, stride) of each row belong to the
        // other heads and must stay NaN.
        for (let t = 0; t < T; t++) {
          for (let col = dh; col < stride; col++) {
            assert.ok(Number.isNaN(ctx[t * stride + col]), `T=${T} dh=${dh}: wrote column ${col} of another head`);
          }
          for (let e = 0; e < dh; e++) {
            const g = ctx[t * stride + e], want = ref.ctx[t * dh + e];
            assert.ok(Math.abs(g - want) <= 1e-5 * (1 + Math.abs(want)), `T=${T} dh=${dh} ctx[${t}][${e}] = ${g}, expected ${want}`);
          }
        }
      }
    }
  });

  it('masked keys get probability exactly 0, rows sum to 1; all keys masked → uniform', () => {
    const T = 21, dh = 8;
    const { probs } = run(T, dh, (j) => j % 3 === 1 || j > 17, 4242);
    for (let i = 0; i < T; i++) {
      let sum = 0;
      for (let j = 0; j < T; j++) {
        const p = probs[i * T + j];
        if (j % 3 === 1 || j > 17) assert.equal(p, 0, `P[${i}][${j}] of a masked key`);
        sum += p;
      }
      assert.ok(Math.abs(sum - 1) < 1e-6, `row ${i} sums to ${sum}`);
    }
    const all = run(6, 4, () => true, 1).probs;
    for (const p of all) assert.ok(Math.abs(p - 1 / 6) < 1e-7);
  });

  it('maps on demand: the map from q, k and the kept softmax statistics is the eager map bit for bit', () => {
    // Every shape the engine keeps on demand: full passes (blocks of 16 rows and a partial one),
    // cross-attention (queries ≠ keys), a step over a cache (one query: the row kernel), causal,
    // masked keys, all keys masked, T5's relative bias; the on-demand pass's context unchanged.
    const same = (a, b, what) => assert.deepEqual(new Uint32Array(a.buffer), new Uint32Array(b.buffer), what);
    for (const [Tq, T] of [[1, 1], [5, 5], [17, 17], [33, 33], [6, 11], [1, 9], [2, 40]]) {
      for (const dh of [8, 9]) {
        for (const causal of [false, true]) {
          for (const [maskName, masked] of [['none', null], ['some', (j) => j % 4 === 2], ['all', () => true]]) {
            const r = rng(Tq * 1000 + T * 10 + dh);
            const stride = 2 * dh;
            const q = randomArray(Tq * stride, r, 2), k = randomArray(T * stride, r, 2), v = randomArray(T * stride, r, 2);
            const keyBias = masked ? Float32Array.from({ length: T }, (_, j) => (masked(j) ? -Infinity : 0)) : null;
            const relative = causal ? randomArray(2 * T - 1, r, 1) : null;
            const [probs, map, ctx, ctxLazy] = call(M._h_attention_on_demand, [nanArray(Tq * T), nanArray(Tq * T),
              nanArray(Tq * stride), nanArray(Tq * stride), q, k, v, keyBias ?? 0, relative ?? 0, Tq, T, dh, stride,
              causal ? 1 : 0], [0, 1, 2, 3]);
            const what = `Tq=${Tq} T=${T} dh=${dh} causal=${causal} mask=${maskName}`;
            same(map, probs, `${what}: map`);
            same(ctxLazy, ctx, `${what}: context`);
          }
        }
      }
    }
  });

  it('softmax_row_f32_wasmsimd keeps very large and very negative scores finite and exact-zero', () => {
    const row = Float32Array.from([1e30, -1e30, 0, -Infinity, 88, 3e38, -3e38]);
    const [out] = call(M._h_softmax, [row, row.length], [0]);
    assert.deepEqual([...out], [0, 0, 0, 0, 0, 1, 0]);
  });
});

// ---- element-wise math -----------------------------------------------------------------------
describe('vector exp / erf / GELU (math_f32x4_wasmsimd.h)', () => {
  const grid = (lo, hi, n) => Float32Array.from({ length: n }, (_, i) => lo + ((hi - lo) * i) / (n - 1));

  it('exp_f32x4 is within 2 ulp (relative 2.4e-7) of exp on [-87, 88.7]; -inf → 0, underflow → 0, overflow → inf', () => {
    const x = grid(-87, 88.7, 40000);
    const [y] = call(M._h_exp, [new Float32Array(x.length), x, x.length], [0]);
    let worst = 0;
    for (let i = 0; i < x.length; i++) worst = Math.max(worst, Math.abs(y[i] - Math.exp(x[i])) / Math.exp(x[i]));
    assert.ok(worst <= 2.4e-7, `max relative error ${worst}`);
    const special = Float32Array.from([-Infinity, -1000, -88, 0, 89, 1000, Infinity, 1]);
    const [s] = call(M._h_exp, [new Float32Array(8), special, 8], [0]);
    assert.deepEqual([...s], [0, 0, 0, 1, Infinity, Infinity, Infinity, Math.fround(Math.E)]);
  });

  it('erf_f32x4 is within 4e-7 of libm erf; GELU (erf and tanh forms) within 1e-6 relative + erf\'s error carried through', () => {
    const x = grid(-9, 9, 36000);
    const [e] = call(M._h_erf, [new Float32Array(x.length), x, x.length], [0]);
    let worst = 0;
    for (let i = 0; i < x.length; i++) worst = Math.max(worst, Math.abs(e[i] - M._h_erf_reference(x[i])));
    assert.ok(worst <= 4e-7, `erf max abs error ${worst}`);
    for (const [fn, ref] of [[M._h_gelu_erf, geluErfRef], [M._h_gelu_tanh, geluTanhRef]]) {
      const [g] = call(fn, [new Float32Array(x.length), x, x.length], [0]);
      for (let i = 0; i < x.length; i++) {
        const want = ref(x[i]);
        // erf's 4e-7 propagates as ½|x|·4e-7 (it matters where 1 + erf cancels, x < −3)
        const tol = 1e-6 * Math.abs(want) + 0.5 * Math.abs(x[i]) * 4e-7 + 1e-7;
        assert.ok(Math.abs(g[i] - want) <= tol, `gelu(${x[i]}) = ${g[i]}, expected ${want}`);
      }
    }
  });
});
