// `node bench/ort-q8.mjs [--shape bert-base] [--tokens 128] [--threads 1] [--runs 5] [--warmup 1]`:
// the int8 peer AttnScope's q8 is to be measured against — onnxruntime-web running the
// quantize_dynamic graph (bench/bert-onnx.mjs, weights 'q8': DynamicQuantizeLinear →
// MatMulInteger → Cast → Mul, int8 weights with one scale per output channel) — next to the same
// random weights as the f32 graph, in one process, one ORT thread count for both (env.wasm.
// numThreads is per process), alternating, medians of wall and process CPU time. Checked first:
// the q8 graph's last hidden state against the f32 graph's (relative error and cosine printed;
// it must stay under 10% relative, i.e. be the same model).
// --root DIR (a tree with js/ and dist/) --attnscope f32[,q8,…]: AttnScope joins the alternation
// through its API (loadModel(folder, {weightPrecision, threads}) on the same thread count, checked
// through model.info.threads; runIds with reuse, every attention map returned), its hidden state
// checked against ORT f32's, and the report adds AttnScope / ORT q8 and AttnScope / ORT f32.
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import * as ort from 'onnxruntime-web';

import { SHAPES, randomBert, writeHfFolder } from './random-model.mjs';
import { bertOnnx } from './bert-onnx.mjs';
import { median, timed } from './clock.mjs';

const { values: args } = parseArgs({
  options: {
    shape: { type: 'string', default: 'bert-base' },
    tokens: { type: 'string', default: '128' },
    threads: { type: 'string', default: '1' },
    runs: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '1' },
    root: { type: 'string' },
    attnscope: { type: 'string', default: 'f32' },
  },
});
const T = Number(args.tokens), THREADS = Number(args.threads), RUNS = Number(args.runs), WARMUP = Number(args.warmup);
if (!SHAPES[args.shape]) throw new Error(`unknown shape ${args.shape} (have ${Object.keys(SHAPES)})`);
if (!(T >= 2 && T <= 512) || !Number.isInteger(THREADS) || THREADS < 1 || !(RUNS >= 1)) throw new Error('bad --tokens / --threads / --runs');
ort.env.wasm.numThreads = THREADS;
ort.env.wasm.simd = true;
ort.env.logLevel = 'error';

// AttnScope first: its threaded module must start its workers before onnxruntime-web's threaded
// wasm is set up in this process (the other order fails in Node with ERR_WORKER_PATH: the glue
// then takes itself for a web page and hands Worker a file:// URL string).
const m = randomBert(args.shape, 1);
const work = mkdtempSync(join(tmpdir(), 'attnscope-ort-q8-'));
const models = {};
let attnscopeBuild = null;
try {
  if (args.root) {
    const { loadModel, buildInfo } = await import(pathToFileURL(join(resolve(args.root), 'js/index.js')));
    // Which wasm the package chose (Node: the relaxed-SIMD build where the flag can be turned on,
    // ATTNSCOPE_RELAXED_SIMD=0 for the plain one).
    const build = await buildInfo({ threads: THREADS });
    attnscopeBuild = `${build.relaxedSimd ? 'relaxed SIMD' : 'plain SIMD128'} build, int8 dot ${build.q8Kernel ?? '?'}`;
    writeHfFolder(join(work, 'model'), m);
    for (const weightPrecision of args.attnscope.split(',')) {
      const model = await loadModel(join(work, 'model'), { weightPrecision, threads: THREADS });
      models[weightPrecision] = model;
      if (model.info.threads !== THREADS) throw new Error(`AttnScope asked for ${THREADS} threads runs on ${model.info.threads}`);
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

const options = { executionProviders: ['wasm'], graphOptimizationLevel: 'all' };
const sessions = {
  f32: await ort.InferenceSession.create(bertOnnx(m, T), options),
  q8: await ort.InferenceSession.create(bertOnnx(m, T, { weights: 'q8' }), options),
};
let r = 12345;  // ids as bench/run.mjs feeds them: [CLS] random words [SEP]
const ids = Int32Array.from({ length: T }, (_, i) => (i === 0 ? 2 : i === T - 1 ? 3 : 5 + ((r = (r * 1103515245 + 12345) >>> 0) % 30000)));
const feeds = {
  input_ids: new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), [1, T]),
  mask_bias: new ort.Tensor('float32', new Float32Array(T), [1, 1, 1, T]),
};

// Same model: the q8 output near the f32 one.
const a = (await sessions.f32.run(feeds)).last_hidden_state.data, b = (await sessions.q8.run(feeds)).last_hidden_state.data;
let num = 0, den = 0, dot = 0, nb = 0;
for (let i = 0; i < a.length; i++) { num += (a[i] - b[i]) ** 2; den += a[i] ** 2; dot += a[i] * b[i]; nb += b[i] ** 2; }
const relative = Math.sqrt(num / den), cosine = dot / Math.sqrt(den * nb);
if (!(relative < 0.1)) throw new Error(`q8 graph differs from the f32 graph by ${relative} (relative)`);

// The runners, alternated: ORT's two graphs, and AttnScope's models if --root is given, each
// checked against ORT f32 first.
const runners = Object.fromEntries(Object.entries(sessions).map(([k, sess]) => [`ORT ${k}`, () => sess.run(feeds)]));
for (const [weightPrecision, model] of Object.entries(models)) {
  let last = null;
  const run = async () => (last = await model.runIds(ids, { reuse: last }));
  const h = (await run()).hidden;
  let n2 = 0;
  for (let i = 0; i < a.length; i++) n2 += (h[i] - a[i]) ** 2;
  const rel = Math.sqrt(n2 / den);
  console.error(`AttnScope ${weightPrecision}: last hidden state vs ORT f32, relative ${(100 * rel).toFixed(3)}%`);
  if (!(rel < 0.1)) throw new Error(`AttnScope ${weightPrecision} differs from ORT f32 by ${rel}`);
  runners[`AttnScope ${weightPrecision}`] = run;
}
for (let i = 0; i < WARMUP; i++) for (const run of Object.values(runners)) await run();
const times = Object.fromEntries(Object.keys(runners).map((k) => [k, []]));
for (let i = 0; i < RUNS; i++) for (const [k, run] of Object.entries(runners)) times[k].push(await timed(run));
const med = (k, clock) => median(times[k].map((t) => t[clock]));

console.log(`CPU: ${cpus()[0].model} (${cpus().length} CPUs, load average ${loadavg()[0].toFixed(2)}); onnxruntime-web ${ort.env.versions?.web ?? ''} wasm SIMD, ${THREADS} thread${THREADS > 1 ? 's' : ''} for every engine (ORT: both graphs${args.root ? `; AttnScope: ${args.attnscope}, ${attnscopeBuild}` : ""})`);
console.log(`${args.shape} @${T} tokens, random weights; q8 vs f32 last hidden state: relative error ${(100 * relative).toFixed(2)}%, cosine ${cosine.toFixed(5)}`);
console.log(`medians of ${RUNS} alternating runs after ${WARMUP} warm-up:`);
for (const clock of ['wall', 'cpu']) {
  const cells = Object.keys(runners).map((k) => `${k} ${med(k, clock).toFixed(1)} ms`);
  const ratios = [`ORT f32 / ORT q8 ${(med('ORT f32', clock) / med('ORT q8', clock)).toFixed(2)}×`];
  for (const k of Object.keys(runners).filter((name) => name.startsWith('AttnScope'))) {
    ratios.push(`${k} / ORT q8 ${(med(k, clock) / med('ORT q8', clock)).toFixed(2)}`, `${k} / ORT f32 ${(med(k, clock) / med('ORT f32', clock)).toFixed(2)}`);
  }
  if (times['AttnScope f32'] && times['AttnScope q8']) ratios.push(`AttnScope f32 / AttnScope q8 ${(med('AttnScope f32', clock) / med('AttnScope q8', clock)).toFixed(2)}×`);
  console.log(`  ${clock.padEnd(4)}: ${cells.join(', ')}; ${ratios.join(', ')}`);
}
for (const s of Object.values(sessions)) await s.release();
for (const model of Object.values(models)) model.dispose();
