// `npm run bench:relaxed`: what a relaxed-SIMD build (f32x4.relaxed_madd, i.e. FMA) could gain over
// the plain SIMD128 one on this machine, measured in Chromium. Two loops in the GEMM
// micro-kernel's shape (12 independent accumulators, acc += x · b with x, b in registers): one
// with f32x4.mul + f32x4.add, one with f32x4.relaxed_madd. The ratio bounds what the 4×8 kernel
// can win from FMA here: on a core with separate add and FMA pipes the two peaks are equal.
// (The engine itself cannot be built with relaxed_madd: Debian's clang 14 only emits the
// pre-standard opcode 0xaf, which Chromium rejects; see README "Performance".)
import { chromium } from 'playwright-core';
import createWabt from 'wabt';

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

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium', headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
});
try {
  const page = await browser.newPage();
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
} finally {
  await browser.close();
}
