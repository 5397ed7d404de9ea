// `node bench/gpt2.mjs`: GPT-2 in AttnScope's WebAssembly engine, two measurements on random
// GPT-2-shaped weights (bench/random-model.mjs), each a ratio of runs alternating in one process:
//  1. prefill: model.runIds(ids) (every attention map returned) against onnxruntime-web (wasm
//     backend, SIMD, on the same number of threads as AttnScope: --threads, default 1) running the same weights as an ONNX graph (bench/gpt2-onnx.mjs),
//     once returning the attention maps too (like for like) and once only the last hidden state;
//  2. generation at a long context: one step of model.generate() (temperature 0, over the KV
//     cache: the previous position's logits, the pick, one token through every layer) against what
//     an implementation without a cache does per new token: a full runIds over the whole sequence.
//   node bench/gpt2.mjs [--shapes gpt2-small,distilgpt2] [--tokens 128] [--context 256]
//                       [--new-tokens 16] [--runs 5] [--warmup 2] [--root DIR (js/ + dist/)]
//                       [--weight-precision f32|f16] [--threads N (both engines; default 1)]
// Before timing, both sides are checked to compute the same thing: AttnScope's hidden state and
// attention maps against ORT's, and cached generation against the full recompute (greedy ids,
// the last step's attention rows).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import * as ort from 'onnxruntime-web';

import { GPT2_SHAPES, randomGpt2, writeHfFolder } from './random-model.mjs';
import { gpt2Onnx } from './gpt2-onnx.mjs';
import { cpuMs, median, timed } from './clock.mjs';

const repo = resolve(import.meta.dirname, '..');
const { values: args } = parseArgs({
  options: {
    shapes: { type: 'string', default: 'gpt2-small,distilgpt2' },
    tokens: { type: 'string', default: '128' },
    context: { type: 'string', default: '256' },
    'new-tokens': { type: 'string', default: '16' },
    runs: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '2' },
    root: { type: 'string', default: repo },
    'weight-precision': { type: 'string', default: 'f32' },
    threads: { type: 'string', default: '1' },
  },
});
// Like with like: AttnScope and onnxruntime-web on the same number of threads (loadModel's own
// default is every core, ORT's here was one: their wall-clock ratio compared different machines).
const THREADS = Number(args.threads);
if (!Number.isInteger(THREADS) || THREADS < 1) throw new Error(`--threads must be a positive integer, got ${args.threads}`);
const RUNS = Math.max(5, Number(args.runs)), WARMUP = Number(args.warmup);
const CONTEXT = Number(args.context), NEW_TOKENS = Math.max(4, Number(args['new-tokens']));
const weightPrecision = args['weight-precision'];
const { loadModel } = await import(pathToFileURL(join(resolve(args.root), 'js/index.js')));
ort.env.wasm.numThreads = THREADS;  // per process: onnxruntime-web has no per-session setting
ort.env.wasm.simd = true;
ort.env.logLevel = 'error';

const fmt = (x, d = 1) => x.toFixed(d);
const randomIds = (n, seed) => {  // ids below the end-of-text token 50256
  let r = seed >>> 0;
  return Int32Array.from({ length: n }, () => (r = (r * 1103515245 + 12345) >>> 0) % 50256);
};
const maxAbsDiff = (a, b) => { let m = 0; for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i])); return m; };
const medians = (samples) => ({ wall: median(samples.map((s) => s.wall)), cpu: median(samples.map((s) => s.cpu)) });

function flops({ layers: L, hidden: C, ffn: F }, T) {  // 2·M·N·K per matmul, full T×T attention
  return L * (2 * T * C * C * 4 + 2 * T * C * F * 2 + 2 * (2 * T * T * C));
}

// ---- 1. prefill against onnxruntime-web --------------------------------------------------------
async function prefill(model, m, T) {
  const { layers: L, heads: H } = m.shape;
  const options = { executionProviders: ['wasm'], graphOptimizationLevel: 'all' };
  const withMaps = await ort.InferenceSession.create(gpt2Onnx(m, T), options);
  const hiddenOnly = await ort.InferenceSession.create(gpt2Onnx(m, T, { attentions: false }), options);
  const ids = randomIds(T, 12345);
  const feeds = { input_ids: new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), [1, T]) };
  let last = null;
  const runOurs = async () => (last = await model.runIds(ids, { topK: 0, reuse: last }));  // no next-token head: ORT has none
  const runMaps = () => withMaps.run(feeds);
  const runHidden = () => hiddenOnly.run(feeds);

  // Same weights → same answer (up to summation order): guards against timing two different models.
  const ours = await runOurs(), theirs = await runMaps(), theirHidden = await runHidden();
  const hiddenDiff = Math.max(maxAbsDiff(ours.hidden, theirs.last_hidden_state.data), maxAbsDiff(ours.hidden, theirHidden.last_hidden_state.data));
  let attentionDiff = 0, aboveDiagonal = 0;
  for (let l = 0; l < L; l++) {
    const layer = ours.attentions.subarray(l * H * T * T, (l + 1) * H * T * T);
    attentionDiff = Math.max(attentionDiff, maxAbsDiff(layer, theirs[`attn_${l}`].data));
    for (let h = 0; h < H; h++) for (let q = 0; q < T; q++) for (let k = q + 1; k < T; k++) if (layer[(h * T + q) * T + k] !== 0) aboveDiagonal++;
  }
  // f16 weights (AttnScope only; ORT keeps f32) round every matrix to 11 bits: a looser bound.
  const [hiddenBound, attentionBound] = weightPrecision === 'f16' ? [1e-1, 1e-2] : [1e-2, 1e-3];
  if (!(hiddenDiff < hiddenBound && attentionDiff < attentionBound)) throw new Error(`${m.shape.name} T=${T}: AttnScope and ORT differ (hidden ${hiddenDiff}, attentions ${attentionDiff})`);
  if (aboveDiagonal) throw new Error(`${m.shape.name} T=${T}: ${aboveDiagonal} attention probabilities above the diagonal are not 0`);

  for (let i = 0; i < WARMUP; i++) { await runOurs(); await runMaps(); await runHidden(); }
  const t = { ours: [], maps: [], hidden: [] };
  for (let i = 0; i < RUNS; i++) {  // alternate, so drift in machine load hits all alike
    t.ours.push(await timed(runOurs));
    t.maps.push(await timed(runMaps));
    t.hidden.push(await timed(runHidden));
  }
  await withMaps.release();
  await hiddenOnly.release();
  return { T, gflop: flops(m.shape, T) / 1e9, hiddenDiff, attentionDiff, ours: medians(t.ours), maps: medians(t.maps), hidden: medians(t.hidden) };
}

// ---- 2. generation: a cached step against a full recompute, at CONTEXT tokens -------------------
// The prompt has CONTEXT − NEW_TOKENS/2 tokens, so the steps timed (every one after the first,
// whose interval holds the prompt's pass) attend over CONTEXT − NEW_TOKENS/2 + 2 … CONTEXT +
// NEW_TOKENS/2 keys, centred on CONTEXT. A step's time is the interval between two onToken calls.
async function generation(model, m) {
  const { layers: L, heads: H } = m.shape;
  const prompt = randomIds(CONTEXT - NEW_TOKENS / 2, 777);
  const generate = async () => {
    const stamps = [];
    const run = model.generate(prompt, {
      maxNewTokens: NEW_TOKENS, temperature: 0, stopAtEos: false,
      onToken: (step) => stamps.push({ wall: performance.now(), cpu: cpuMs(), step }),
    });
    const result = await run.result;
    const intervals = stamps.slice(1).map((s, i) => ({ wall: s.wall - stamps[i].wall, cpu: s.cpu - stamps[i].cpu }));
    return { result, intervals, lastStep: stamps.at(-1).step };
  };

  // Cached steps equal the full forward: greedy ids, and the last step's attention rows.
  const first = await generate();
  const all = first.result.ids;
  const full = await model.runIds(all, { nextAll: true, topK: 1 });
  const T = all.length, P = prompt.length;
  let greedySame = 0;
  for (let i = 0; i < NEW_TOKENS; i++) if (full.nextByPosition[P - 1 + i].top[0].id === all[P + i]) greedySame++;
  const row = new Float32Array(L * H * T);
  for (let lh = 0; lh < L * H; lh++) row.set(full.attentions.subarray((lh * T + T - 1) * T, (lh * T + T) * T), lh * T);
  const rowDiff = maxAbsDiff(first.lastStep.attention, row);
  if (!(rowDiff < 1e-4)) throw new Error(`${m.shape.name}: the cached step's attention row differs from the full forward's by ${rowDiff}`);

  const sequence = all.slice(0, CONTEXT);  // what a cache-less step at CONTEXT tokens runs
  let last = null;
  const recompute = async () => (last = await model.runIds(sequence, { reuse: last, topK: 5 }));  // + the next-token logits
  // Where a step's time goes: the vocabulary head (logits over every token for one row) is the
  // difference between a one-token runIds with and without next-token predictions.
  const oneToken = all.slice(0, 1);
  const withHead = () => model.runIds(oneToken, { topK: 1 }), withoutHead = () => model.runIds(oneToken, { topK: 0 });
  for (let i = 0; i < WARMUP; i++) { await generate(); await recompute(); await withHead(); await withoutHead(); }
  const cached = [], recomputed = [], head = [], noHead = [];
  for (let i = 0; i < RUNS; i++) {  // alternate: one generation (NEW_TOKENS − 1 steps), two recomputes
    cached.push(...(await generate()).intervals);
    recomputed.push(await timed(recompute));
    recomputed.push(await timed(recompute));
    for (let j = 0; j < 3; j++) { head.push(await timed(withHead)); noHead.push(await timed(withoutHead)); }
  }
  const h = medians(head), n = medians(noHead);
  return { keys: [P + 2, P + NEW_TOKENS], greedySame, rowDiff, cached: medians(cached), cachedCount: cached.length,
    recompute: medians(recomputed), recomputeCount: recomputed.length, oneToken: n, head: { wall: h.wall - n.wall, cpu: h.cpu - n.cpu } };
}

// ---- run and report -----------------------------------------------------------------------------
const results = [];
const work = mkdtempSync(join(tmpdir(), 'attnscope-bench-gpt2-'));
try {
  for (const name of args.shapes.split(',')) {
    if (!GPT2_SHAPES[name]) throw new Error(`unknown shape ${name} (have ${Object.keys(GPT2_SHAPES)})`);
    const m = randomGpt2(name, 1);
    const dir = join(work, name);
    writeHfFolder(dir, m);
    const model = await loadModel(dir, { weightPrecision, threads: THREADS });
    if (model.info.threads !== THREADS) throw new Error(`asked for ${THREADS} threads, the model runs on ${model.info.threads}`);
    const prefills = [];
    for (const T of args.tokens.split(',').map(Number)) {
      const p = await prefill(model, m, T);
      prefills.push(p);
      console.error(`${name} prefill T=${T}: AttnScope ${fmt(p.ours.wall)} ms, ORT ${fmt(p.maps.wall)} (maps) / ${fmt(p.hidden.wall)} (hidden only) ms wall; ` +
        `max |Δhidden| ${p.hiddenDiff.toExponential(1)}, max |Δattention| ${p.attentionDiff.toExponential(1)}`);
    }
    const g = await generation(model, m);
    console.error(`${name} generation @${CONTEXT}: cached step ${fmt(g.cached.wall)} ms, recompute ${fmt(g.recompute.wall)} ms wall; ` +
      `greedy ids equal to the full forward's ${g.greedySame}/${NEW_TOKENS}, last row max |Δ| ${g.rowDiff.toExponential(1)}`);
    results.push({ name, m, prefills, g });
    model.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

const line = (cells) => console.log(`| ${cells.join(' | ')} |`);
const threadsText = `${THREADS} thread${THREADS > 1 ? 's' : ''}`;
console.log(`\nonnxruntime-web ${ort.env.versions?.web ?? ''} (wasm, ${threadsText}, SIMD) vs AttnScope (${threadsText}: loadModel(dir, {weightPrecision: '${weightPrecision}', threads: ${THREADS}}) + runIds(ids, {topK: 0, reuse}), every attention map returned)`);
console.log(`medians of ${RUNS} alternating runs after ${WARMUP} warm-up; "cpu" = this process's CPU time (less sensitive to other load)\n`);
console.log('Prefill:');
line(['model', 'tokens', 'GFLOP', 'AttnScope ms', 'ORT + maps ms', 'ratio', 'ORT hidden-only ms', 'ratio', 'AttnScope GFLOP/s', 'clock']);
line(Array(10).fill('---'));
for (const { name, prefills } of results) {
  for (const p of prefills) {
    for (const clock of ['wall', 'cpu']) {
      line([name, p.T, fmt(p.gflop, 2), fmt(p.ours[clock]), fmt(p.maps[clock]), fmt(p.ours[clock] / p.maps[clock], 2),
        fmt(p.hidden[clock]), fmt(p.ours[clock] / p.hidden[clock], 2), fmt(p.gflop / p.ours[clock] * 1e3), clock]);
    }
  }
}
console.log(`\nGeneration per token at ${CONTEXT} tokens of context (temperature 0), AttnScope on ${threadsText} both ways: generate() step over the KV cache vs runIds over the whole sequence:`);
line(['model', 'keys per cached step', 'cached ms/token', 'recompute ms/token', 'speed-up', 'one-token runIds ms', 'vocabulary head ms', 'clock']);
line(Array(8).fill('---'));
for (const { name, g } of results) {
  for (const clock of ['wall', 'cpu']) {
    line([name, `${g.keys[0]}–${g.keys[1]} (${g.cachedCount} steps)`, fmt(g.cached[clock]), `${fmt(g.recompute[clock])} (${g.recomputeCount} runs)`,
      `${fmt(g.recompute[clock] / g.cached[clock], 1)}×`, fmt(g.oneToken[clock]), fmt(g.head[clock]), clock]);
  }
}
console.log('one-token runIds: the blocks for a single token without the vocabulary head; vocabulary head: runIds(topK 1) − runIds(topK 0) on one token.');
