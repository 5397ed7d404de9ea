// `npm run bench`: AttnScope's WebAssembly engine against onnxruntime-web (wasm backend, one
// thread, SIMD) on identical random weights and shapes, runs alternating in one process. Prints
// per shape and length the median latency of each, their ratio, GFLOP/s (2·M·N·K for every
// matmul, attention included) and that as a fraction of the SIMD128 mul+add peak measured in this
// same process; then the GEMM alone, the cost of returning the attention maps, and memory.
//   node bench/run.mjs [--shapes bert-base,distilbert,minilm-l6] [--tokens 128,512] [--runs 5]
//                      [--warmup 2] [--root DIR (tree with js/ + dist/)] [--build DIR]
//                      [--weight-precision f32|f16|q8 (f16: AttnScope keeps the weight matrices as
//                       f16; q8: int8 weights, and ORT runs the graph onnxruntime's quantize_dynamic
//                       writes, bert-onnx.mjs {weights: 'q8'}, so both sides are int8)]
//                      [--compare-root DIR (a second tree, e.g. an older commit's, timed too)]
//                      [--threads N (both engines on N threads; N > 1 also times AttnScope on
//                       one thread in the same alternation: the speed-up, and checks the bits)]
// The AttnScope side goes through the public API (loadModel(folder) + runIds, every attention
// matrix returned); the weights are written to a temp folder (bert-base is ~440 MB) and removed.
// With --compare-root, a second tree's API (its own js/ and dist/, its own wasm instance) loads the
// same folder and joins the alternation: "before" vs "after" of an engine change in one run.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import * as ort from 'onnxruntime-web';

import { GPT2_SHAPES, SHAPES, randomBert, weightBytes, writeHfFolder } from './random-model.mjs';
import { bertOnnx } from './bert-onnx.mjs';
import { cpuMs, median, timed } from './clock.mjs';

const repo = resolve(import.meta.dirname, '..');
const { values: args } = parseArgs({
  options: {
    shapes: { type: 'string', default: 'bert-base,distilbert,minilm-l6' },
    tokens: { type: 'string', default: '128,512' },
    runs: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '2' },
    root: { type: 'string', default: repo },
    build: { type: 'string' },
    'weight-precision': { type: 'string', default: 'f32' },
    'compare-root': { type: 'string' },
    threads: { type: 'string', default: '1' },
  },
});
const weightPrecision = args['weight-precision'];
const THREADS = Number(args.threads);
if (!Number.isInteger(THREADS) || THREADS < 1) throw new Error(`--threads must be a positive integer, got ${args.threads}`);
const RUNS = Math.max(5, Number(args.runs)), WARMUP = Number(args.warmup);
const root = resolve(args.root), buildDir = resolve(args.build ?? join(root, 'build/wasm'));

function flops({ layers: L, hidden: C, ffn: F }, T) {  // 2·M·N·K per matmul
  const linear = 2 * T * C * C * 4 + 2 * T * C * F * 2;
  const attention = 2 * (2 * T * T * C);  // Q·Kᵀ and P·V over all heads: H·T·T·dh = T·T·C each
  return L * (linear + attention);
}

// ---- the small wasm module: SIMD128 peak, GEMM alone, engine with / without the maps --------
const { default: createBench } = await import(pathToFileURL(join(buildDir, 'attnscope-bench.mjs')));
const B = await createBench({ wasmBinary: readFileSync(join(buildDir, 'attnscope-bench.wasm')) });
function peak() {  // GFLOP/s of f32x4 mul+add on independent accumulators, wall and CPU clocks
  const it = 2e7, w0 = performance.now(), c0 = cpuMs();
  B._peak_f32x4_mul_add(it, 0.9999, 1e-4);
  const f = B._peak_f32x4_flops(it);
  return { wall: f / (performance.now() - w0) / 1e6, cpu: f / (cpuMs() - c0) / 1e6 };
}
const peaks = [];
const samplePeak = () => { peaks.push(peak()); };
for (let i = 0; i < 3; i++) samplePeak();  // the first calls also tier up from Liftoff

const { loadModel, heapStats } = await import(pathToFileURL(join(root, 'js/index.js')));
const compareRoot = args['compare-root'] ? resolve(args['compare-root']) : null;
const compareApi = compareRoot ? await import(pathToFileURL(join(compareRoot, 'js/index.js'))) : null;
// Whether that tree's loadModel takes `threads` (js/api/options.js lists the names it accepts).
const compareKnowsThreads = compareRoot
  ? await import(pathToFileURL(join(compareRoot, 'js/api/options.js'))).then((o) => o.LOAD_OPTIONS?.includes('threads') ?? false, () => false)
  : false;
ort.env.wasm.numThreads = THREADS;  // per process: onnxruntime-web has no per-session setting
ort.env.wasm.simd = true;
ort.env.logLevel = 'error';

const fmt = (x, d = 1) => x.toFixed(d);
const results = [];
const work = mkdtempSync(join(tmpdir(), 'attnscope-bench-'));
try {
  for (const shapeName of args.shapes.split(',')) {
    if (!SHAPES[shapeName]) {
      const hint = GPT2_SHAPES[shapeName] ? ': GPT-2 shapes run in bench/gpt2.mjs (prefill vs ORT and generation)' : ` (have ${Object.keys(SHAPES)})`;
      throw new Error(`unknown shape ${shapeName}${hint}`);
    }
    const m = randomBert(shapeName, 1);
    const dir = join(work, shapeName);
    writeHfFolder(dir, m);
    const wBytes = weightBytes(m.tensors);
    const heap0 = (await heapStats()).memoryBytes;
    const model = await loadModel(dir, { weightPrecision, threads: THREADS });
    if (model.info.threads !== THREADS) throw new Error(`asked for ${THREADS} threads, the model runs on ${model.info.threads}`);
    // With threads, the same engine on one thread joins the alternation (a second, plain module).
    const single = THREADS > 1 ? await loadModel(dir, { weightPrecision, threads: 1 }) : null;
    const afterLoad = await heapStats();
    // The other tree on the same threads too (a tree from before the threads option runs on one).
    const compareModel = compareApi ? await compareApi.loadModel(dir, {
      ...(weightPrecision === 'f32' ? {} : { weightPrecision }), ...(compareKnowsThreads ? { threads: THREADS } : {}),
    }) : null;
    if (compareModel && (compareModel.info?.threads ?? 1) !== THREADS) {
      throw new Error(`${compareRoot}: asked for ${THREADS} threads, its model runs on ${compareModel.info?.threads}`);
    }

    // The bare engine (same weights, same build flags) for the maps-vs-no-maps comparison.
    const cfgText = readFileSync(join(dir, 'config.json'));
    const stBytes = readFileSync(join(dir, 'model.safetensors'));
    const pc = B._malloc(cfgText.length), pw = B._malloc(stBytes.length);
    B.HEAPU8.set(cfgText, pc); B.HEAPU8.set(stBytes, pw);
    if (B._encoder_bench_load(pc, cfgText.length, pw, stBytes.length, weightPrecision === 'q8' ? 1 : 0) !== 0) throw new Error('engine load failed');
    B._free(pc); B._free(pw);

    for (const T of args.tokens.split(',').map(Number)) {
      // Like with like: int8 AttnScope against ORT's int8 graph (DynamicQuantizeLinear → MatMulInteger).
      const onnx = bertOnnx(m, T, weightPrecision === 'q8' ? { weights: 'q8' } : {});
      const session = await ort.InferenceSession.create(onnx, { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
      let r = 12345;  // ids: [CLS] random words [SEP]
      const ids = Int32Array.from({ length: T }, (_, i) => (i === 0 ? 2 : i === T - 1 ? 3 : 5 + ((r = (r * 1103515245 + 12345) >>> 0) % 30000)));
      const feeds = {
        input_ids: new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), [1, T]),
        mask_bias: new ort.Tensor('float32', new Float32Array(T), [1, 1, 1, T]),
      };
      const pIds = B._malloc(T * 4);
      B.HEAP32.set(ids, pIds >> 2);
      // Repeated runs recycle the previous result's memory (options.reuse), as a live view would;
      // runFresh is the default call, which allocates new JavaScript arrays every time.
      let last = null;
      const runOurs = async () => (last = await model.runIds(ids, { reuse: last }));
      const runFresh = () => model.runIds(ids);
      const runOrt = () => session.run(feeds);
      let lastSingle = null;
      const runSingle = async () => (lastSingle = await single.runIds(ids, { reuse: lastSingle }));
      let lastCompared = null;
      const runCompared = async () => (lastCompared = await compareModel.runIds(ids, { reuse: lastCompared }));
      const runEngine = (keep) => B._encoder_bench_forward(pIds, T, keep);

      // Same weights → same answer (up to summation order): guards against benchmarking two
      // different models.
      const ours = await runOurs(), theirs = await runOrt();
      const h0 = ours.hidden, h1 = theirs.last_hidden_state.data;
      let maxDiff = 0, num = 0, den = 0;
      for (let i = 0; i < h0.length; i++) {
        maxDiff = Math.max(maxDiff, Math.abs(h0[i] - h1[i]));
        num += (h0[i] - h1[i]) ** 2;
        den += h1[i] ** 2;
      }
      // q8: each engine quantizes its activations its own way (per row, per tensor): close in
      // relative terms only (as bench/browser.mjs checks its q8 pair).
      if (weightPrecision === 'q8' ? !(Math.sqrt(num / den) < 0.1) : !(maxDiff < 1e-2)) {
        throw new Error(`${shapeName} T=${T}: hidden states differ by ${maxDiff} (relative ${Math.sqrt(num / den)})`);
      }
      let compareDiff = null;  // the other tree against this one: hidden state and every attention map
      if (compareModel) {
        const other = await runCompared();
        compareDiff = { hidden: 0, attentions: 0 };
        for (let i = 0; i < h0.length; i++) compareDiff.hidden = Math.max(compareDiff.hidden, Math.abs(h0[i] - other.hidden[i]));
        for (let i = 0; i < ours.attentions.length; i++) compareDiff.attentions = Math.max(compareDiff.attentions, Math.abs(ours.attentions[i] - other.attentions[i]));
        if (!(compareDiff.hidden < 1e-3)) throw new Error(`${shapeName} T=${T}: ${compareRoot} differs from ${root} by ${compareDiff.hidden}`);
      }
      if (single) {  // threads split the work, never a sum: the same bits as one thread
        const one = await runSingle();
        for (const key of ['hidden', 'attentions']) {
          if (!one[key].every((x, i) => Object.is(x, ours[key][i]))) throw new Error(`${shapeName} T=${T}: ${key} differ between 1 and ${THREADS} threads`);
        }
      }
      const expectAttn = m.shape.layers * m.shape.heads * T * T;
      if (ours.attentions.length !== expectAttn) throw new Error(`attentions has ${ours.attentions.length} values, expected ${expectAttn}`);
      const afterRun = await heapStats();

      for (let i = 0; i < WARMUP; i++) { await runOurs(); await runOrt(); runEngine(1); runEngine(0); await runFresh(); if (compareModel) await runCompared(); }
      // What a fresh JavaScript buffer the size of the maps costs on this machine (allocation and
      // first touch of its pages): the part of "returning the maps" that is not the engine's.
      const freshBuffer = () => { const a = new Float32Array(expectAttn); a.fill(1); return a[expectAttn - 1]; };
      const t = { ours: [], ort: [], keep: [], skip: [], fresh: [], oursFresh: [], compared: [], single: [] };
      for (let i = 0; i < RUNS; i++) {  // alternate, so drift in machine load hits all alike
        t.ours.push(await timed(runOurs));
        t.ort.push(await timed(runOrt));
        if (compareModel) t.compared.push(await timed(runCompared));
        if (single) t.single.push(await timed(runSingle));
        t.keep.push(await timed(() => runEngine(1)));
        t.skip.push(await timed(() => runEngine(0)));
        samplePeak();
      }
      // The calls that allocate new arrays run apart: the garbage they leave (144 MB per run for
      // bert-base@512) would otherwise be collected inside whichever timed call comes next.
      last = null;
      lastCompared = null;
      lastSingle = null;
      for (let i = 0; i < RUNS; i++) {
        t.fresh.push(await timed(freshBuffer));
        t.oursFresh.push(await timed(runFresh));
      }
      B._free(pIds);
      await session.release();
      const med = (k, clock) => median(t[k].map((x) => x[clock]));
      const row = {
        shape: shapeName, T, gflop: flops(m.shape, T) / 1e9, maxDiff,
        ours: { wall: med('ours', 'wall'), cpu: med('ours', 'cpu') },
        ort: { wall: med('ort', 'wall'), cpu: med('ort', 'cpu') },
        keep: { wall: med('keep', 'wall'), cpu: med('keep', 'cpu') },
        skip: { wall: med('skip', 'wall'), cpu: med('skip', 'cpu') },
        fresh: { wall: med('fresh', 'wall'), cpu: med('fresh', 'cpu') },
        oursFresh: { wall: med('oursFresh', 'wall'), cpu: med('oursFresh', 'cpu') }, mapsMB: expectAttn * 4 / 2 ** 20,
        single: single ? { wall: med('single', 'wall'), cpu: med('single', 'cpu') } : null,
        compared: compareModel ? { wall: med('compared', 'wall'), cpu: med('compared', 'cpu'), diff: compareDiff } : null,
        weightBytes: wBytes, heapBefore: heap0, heapAfterLoad: afterLoad, heapAfterRun: afterRun,
      };
      results.push(row);
      console.error(`${shapeName} T=${T}: AttnScope ${fmt(row.ours.wall)} ms, ORT ${fmt(row.ort.wall)} ms (wall); ` +
        `${fmt(row.ours.cpu)} / ${fmt(row.ort.cpu)} ms (cpu); max |Δhidden| ${maxDiff.toExponential(1)}`);
    }
    model.dispose();
    compareModel?.dispose();
    single?.dispose();
    B._encoder_bench_free();
    rmSync(dir, { recursive: true, force: true });
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

// ---- GEMM alone: linear-layer shapes at M = 128 tokens --------------------------------------
const gemm = [];
for (const [Mr, N, K] of [[128, 768, 768], [128, 3072, 768], [128, 768, 3072]]) {
  B._gemm_bench_setup(Mr, N, K);
  B._gemm_bench_run(3, 0);
  const reps = 10, runs = [];
  for (let i = 0; i < 5; i++) { runs.push(await timed(() => B._gemm_bench_run(reps, 0))); samplePeak(); }
  const f = 2 * Mr * N * K * reps / 1e9;
  gemm.push({ shape: `${Mr}×${K} · ${K}×${N}`, wall: f / median(runs.map((x) => x.wall)) * 1e3, cpu: f / median(runs.map((x) => x.cpu)) * 1e3 });
}

// ---- report ----------------------------------------------------------------------------------
const P = { wall: median(peaks.map((p) => p.wall)), cpu: median(peaks.map((p) => p.cpu)) };
const line = (cells) => console.log(`| ${cells.join(' | ')} |`);
const cpuName = (readFileSync('/proc/cpuinfo', 'utf8').match(/model name\s*:\s*(.*)/) ?? [])[1] ?? 'unknown CPU';
console.log(`\nCPU: ${cpuName}, ${availableParallelism()} threads available`);
console.log(`onnxruntime-web ${ort.env.versions?.web ?? ''} (wasm, ${THREADS} thread${THREADS > 1 ? 's' : ''}, SIMD) vs AttnScope (API: loadModel(dir, {weightPrecision: '${weightPrecision}', threads: ${THREADS}}) + runIds(ids, {reuse: previous}), all attention maps returned; "fresh" = runIds(ids), new arrays each run)`);
console.log(`medians of ${RUNS} alternating runs after ${WARMUP} warm-up; SIMD128 mul+add peak measured in this run: ${fmt(P.wall)} GFLOP/s (wall), ${fmt(P.cpu)} (cpu)\n`);
for (const clock of ['wall', 'cpu']) {
  console.log(`${clock === 'wall' ? 'Wall-clock' : 'CPU time of this process (less sensitive to other load)'}:`);
  line(['model', 'tokens', 'GFLOP', 'AttnScope ms', 'ORT-web ms', 'ratio', 'AttnScope GFLOP/s', '% of peak', 'ORT GFLOP/s', 'maps cost', 'fresh ms', 'fresh ratio']);
  line(Array(12).fill('---'));
  for (const r of results) {
    const ours = r.ours[clock], theirs = r.ort[clock];
    line([r.shape, r.T, fmt(r.gflop, 2), fmt(ours), fmt(theirs), fmt(ours / theirs, 2),
      // The peak and the bare engine are one thread's: with threads, % of peak is of THREADS × peak
      // and the maps cost is the one-thread API call's (same engine, same thread count).
      fmt(r.gflop / ours * 1e3), `${fmt(100 * r.gflop / ours * 1e3 / (P[clock] * (clock === 'wall' ? THREADS : 1)), 0)}%`, fmt(r.gflop / theirs * 1e3),
      `${fmt(100 * ((r.single ?? r.ours)[clock] / r.skip[clock] - 1), 1)}%`, fmt(r.oursFresh[clock]), fmt(r.oursFresh[clock] / theirs, 2)]);
  }
  console.log('');
}
if (THREADS > 1) {
  console.log(`Threads: AttnScope on ${THREADS} threads vs one (same weights and ids, same alternation; outputs checked bit-identical), wall clock:`);
  line(['model', 'tokens', '1 thread ms', `${THREADS} threads ms`, 'speed-up', `ORT ${THREADS} threads ms`, `AttnScope / ORT at ${THREADS}`]);
  line(Array(7).fill('---'));
  for (const r of results) {
    line([r.shape, r.T, fmt(r.single.wall), fmt(r.ours.wall), `${fmt(r.single.wall / r.ours.wall, 2)}×`, fmt(r.ort.wall), fmt(r.ours.wall / r.ort.wall, 2)]);
  }
  console.log('');
}
if (compareRoot) {
  console.log(`Two trees in the same alternation: "this" = ${root}, "other" = ${compareRoot} (same weights, same ids, API runIds with reuse):`);
  line(['model', 'tokens', 'this ms', 'other ms', 'this / ORT', 'other / ORT', 'this / other', 'max |Δhidden|', 'max |Δattention|', 'clock']);
  line(Array(10).fill('---'));
  for (const r of results) {
    for (const clock of ['wall', 'cpu']) {
      const ours = r.ours[clock], other = r.compared[clock], theirs = r.ort[clock];
      line([r.shape, r.T, fmt(ours), fmt(other), fmt(ours / theirs, 3), fmt(other / theirs, 3), fmt(ours / other, 3),
        r.compared.diff.hidden.toExponential(1), r.compared.diff.attentions.toExponential(1), clock]);
    }
  }
  console.log('');
}
console.log('maps cost: API runIds (all maps returned; with threads, the one-thread call) over the bare engine forward (one thread) without keeping maps; ' +
  'engine alone with maps vs without:');
for (const r of results) {
  console.log(`  ${r.shape} T=${r.T}: engine ${fmt(r.keep.wall)} vs ${fmt(r.skip.wall)} ms wall (${fmt(100 * (r.keep.wall / r.skip.wall - 1), 1)}%), ` +
    `${fmt(r.keep.cpu)} vs ${fmt(r.skip.cpu)} ms cpu (${fmt(100 * (r.keep.cpu / r.skip.cpu - 1), 1)}%); a fresh ${fmt(r.mapsMB, 0)} MB ` +
    `JS buffer (the maps' size) costs ${fmt(r.fresh.wall)} ms wall, ${fmt(r.fresh.cpu)} ms cpu here`);
}
console.log('\nGEMM alone (packed B, 4×8 micro-kernel, bias epilogue):');
for (const g of gemm) console.log(`  ${g.shape}: ${fmt(g.wall)} GFLOP/s wall (${fmt(100 * g.wall / P.wall, 0)}% of peak), ${fmt(g.cpu)} cpu (${fmt(100 * g.cpu / P.cpu, 0)}%)`);
console.log('\nMemory (AttnScope wasm heap; it never shrinks, so memoryBytes is the peak so far):');
const MB = (b) => `${fmt(b / 2 ** 20, 0)} MB`;
for (const r of results) {
  console.log(`  ${r.shape} T=${r.T}: weights ${MB(r.weightBytes)}; in use after load ${MB(r.heapAfterLoad.inUse)} ` +
    `(${fmt(r.heapAfterLoad.inUse / r.weightBytes, 3)}×); heap after load ${MB(r.heapAfterLoad.memoryBytes)}, after run ${MB(r.heapAfterRun.memoryBytes)}`);
}
