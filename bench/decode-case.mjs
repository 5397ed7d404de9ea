// One case of bench/decode.mjs, in a process of its own (onnxruntime-web's thread count is one per
// process, and each case's weights are gone with it): one model at one precision and thread
// count, AttnScope's generate() against onnxruntime-web's decoder-with-past graph
// (decode-families.mjs) on the same random weights, alternating. Prints one JSON line.
//   node bench/decode-case.mjs --model gpt2-small --precision f32 --threads 1
//                              [--context 128] [--new-tokens 32] [--runs 3] [--warmup 1]
// Checked before any timing, with ORT run twice — greedy, and on AttnScope's ids (teacher forcing,
// so both see the same history at every step):
//  - at every step the probabilities both give to AttnScope's top candidates agree: |Δ log p| below
//    --tolerance, 1e-3 at f32 (the engines' float summation orders) and 0.1 at q8 (the int8 weights
//    are the same, the activations quantized differently: AttnScope symmetric int8 per row, ORT's
//    DynamicQuantizeLinear asymmetric uint8 per tensor);
//  - ORT's argmax on AttnScope's history is AttnScope's pick at every step, except where AttnScope's
//    top two are within the tolerance (a near tie, which either engine may break its way);
//  - at f32 the free-running greedy ids are equal too (at q8 a near tie can make them part, and
//    random weights give many: the count is reported).
// Per-token time: AttnScope's is the interval between two onToken calls of generate() (the
// previous token's logits, the pick, the token through every layer; the first interval, holding
// the prompt pass, is left out: --new-tokens + 1 are generated); ORT's is one decoder-with-past run
// plus the argmax, the prompt's run left out the same way. Wall and this process's CPU time.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import * as ort from 'onnxruntime-web';

import { writeHfFolder } from './random-model.mjs';
import { FAMILIES, argmax } from './decode-families.mjs';
import { cpuMs, median } from './clock.mjs';

const repo = resolve(import.meta.dirname, '..');
const { values: args } = parseArgs({
  options: {
    model: { type: 'string' },
    precision: { type: 'string', default: 'f32' },
    threads: { type: 'string', default: '1' },
    context: { type: 'string', default: '128' },
    'new-tokens': { type: 'string', default: '32' },
    runs: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '1' },
    tolerance: { type: 'string' },
    candidates: { type: 'string', default: '5' },
  },
});
const family = FAMILIES[args.model];
if (!family) throw new Error(`unknown --model ${args.model} (have ${Object.keys(FAMILIES)})`);
const precision = args.precision, THREADS = Number(args.threads), CONTEXT = Number(args.context);
const NEW_TOKENS = Number(args['new-tokens']), RUNS = Number(args.runs), WARMUP = Number(args.warmup);
const CANDIDATES = Number(args.candidates);
const TOLERANCE = Number(args.tolerance ?? (precision === 'q8' ? 0.1 : 1e-3));
if (!['f32', 'q8'].includes(precision)) throw new Error(`--precision f32 or q8, got ${precision}`);
if (!(THREADS >= 1 && NEW_TOKENS >= 1 && RUNS >= 1 && CONTEXT >= 1)) throw new Error('bad --threads / --new-tokens / --runs / --context');
ort.env.wasm.numThreads = THREADS;  // per process: before the first session
ort.env.wasm.simd = true;
ort.env.logLevel = 'error';

const log = (...a) => console.error(`[${args.model} ${precision} ${THREADS}t]`, ...a);
const stamp = () => ({ wall: performance.now(), cpu: cpuMs() });
const intervals = (stamps) => stamps.slice(1).map((s, i) => ({ wall: s.wall - stamps[i].wall, cpu: s.cpu - stamps[i].cpu }));
function softmaxLog(logits) {  // log-probabilities, in double
  let max = -Infinity, sum = 0;
  for (const x of logits) max = Math.max(max, x);
  for (const x of logits) sum += Math.exp(x - max);
  const logSum = Math.log(sum) + max;
  return (id) => logits[id] - logSum;
}

const { loadModel, buildInfo } = await import(pathToFileURL(join(repo, 'js/index.js')));
const build = await buildInfo({ threads: THREADS });  // which wasm the package runs here
const m = family.random();
const prompt = family.prompt(CONTEXT);
const work = mkdtempSync(join(tmpdir(), 'attnscope-bench-decode-'));
let model;
try {
  // AttnScope first: its threaded module must start its workers before onnxruntime-web's threaded
  // wasm is set up in this process (bench/ort-q8.mjs says why).
  writeHfFolder(join(work, 'model'), m);
  model = await loadModel(join(work, 'model'), { weightPrecision: precision, threads: THREADS });
  // The threads AttnScope runs on, which the report states when not the ones asked for (today an
  // encoder–decoder runs on one: load.js).
  if (model.info.threads !== THREADS) log(`AttnScope asked for ${THREADS} threads runs on ${model.info.threads}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}

// One AttnScope generation of `tokens` tokens: the ids and each onToken's stamp and step.
async function generateOurs(tokens, candidates) {
  const stamps = [], steps = [];
  const g = model.generate(prompt, { maxNewTokens: tokens, temperature: 0, stopAtEos: false, candidates,
    onToken: (step) => { stamps.push(stamp()); steps.push(step); } });
  await (g.result ?? g);  // a decoder's Generation, or the encoder–decoder's promise
  return { ids: steps.map((s) => s.id), stamps, steps };
}

// Threads each engine started: worker_threads alive in this process (ORT's pool at numThreads n
// is n − 1 workers beside the calling thread).
const workerThreads = () => process.report.getReport().workers.length;
const attnscopeWorkers = workerThreads();
let ortSession, ortError = null;
try {
  ortSession = await family.session(ort, m, { precision, context: CONTEXT, newTokens: NEW_TOKENS + 1 }, { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
} catch (error) {
  ortError = String(error?.message ?? error).split('\n')[0];
  log(`onnxruntime-web failed: ${ortError}`);
}
async function generateOrt(tokens, { record = false, forced } = {}) {
  const stamps = [], logits = [];
  const ids = await ortSession.generate(prompt, tokens, (l) => { stamps.push(stamp()); if (record) logits.push(l.slice()); }, forced);
  return { ids, stamps, logits };
}

const out = { model: args.model, precision, threads: THREADS, context: CONTEXT, newTokens: NEW_TOKENS, runs: RUNS,
  weightBytes: family.weightBytes(m.shape, precision), ortError, attnscopeThreads: model.info.threads,
  workers: { attnscope: attnscopeWorkers, ort: workerThreads() - attnscopeWorkers },
  attnscopeBuild: `${build.relaxedSimd ? 'relaxed SIMD' : 'SIMD128'}${precision === 'q8' ? `, int8 dot ${build.q8Kernel ?? '?'}` : ''}` };

if (ortSession) {
  // Same weights, same model → the same greedy ids and next-token probabilities.
  const ours = await generateOurs(NEW_TOKENS + 1, CANDIDATES);
  const free = await generateOrt(NEW_TOKENS + 1), forced = await generateOrt(NEW_TOKENS + 1, { record: true, forced: ours.ids });
  const sameIds = ours.ids.filter((id, i) => id === free.ids[i]).length;
  let maxLogDiff = 0, argmaxSame = 0, nearTies = 0, clearMisses = 0;
  ours.steps.forEach((step, t) => {
    const logits = forced.logits[t], logP = softmaxLog(logits);
    for (const c of step.candidates) maxLogDiff = Math.max(maxLogDiff, Math.abs(Math.log(c.prob) - logP(c.id)));
    if (argmax(logits) === step.id) argmaxSame++;
    else if (Math.log(step.candidates[0].prob) - Math.log(step.candidates[1].prob) < TOLERANCE) nearTies++;
    else clearMisses++;
  });
  out.checks = { sameIds, of: ours.ids.length, argmaxSame, nearTies, maxLogProbDiff: maxLogDiff, candidates: CANDIDATES, tolerance: TOLERANCE };
  log(`checks: greedy ids equal ${sameIds}/${ours.ids.length}; on AttnScope's ids ORT's argmax equal ${argmaxSame}/${ours.ids.length} (near ties ${nearTies}), max |Δ log p| of the top ${CANDIDATES} ${maxLogDiff.toExponential(2)}`);
  if (clearMisses || !(maxLogDiff < TOLERANCE) || (precision === 'f32' && sameIds !== ours.ids.length)) {
    throw new Error(`AttnScope and ORT differ: ids ${ours.ids} vs ${free.ids}, ${clearMisses} clear argmax misses, max |Δ log p| ${maxLogDiff}`);
  }

  // Alternating timed generations, the first interval (prompt) of each left out.
  const steps = { ours: [], ort: [] };
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const a = await generateOurs(NEW_TOKENS + 1, 0), b = await generateOrt(NEW_TOKENS + 1);
    if (a.ids.some((id, j) => id !== ours.ids[j]) || b.ids.some((id, j) => id !== free.ids[j])) throw new Error('ids changed between runs');
    if (i < WARMUP) continue;
    steps.ours.push(...intervals(a.stamps));
    steps.ort.push(...intervals(b.stamps));
  }
  const medians = (xs) => ({ wall: median(xs.map((x) => x.wall)), cpu: median(xs.map((x) => x.cpu)), steps: xs.length });
  out.ours = medians(steps.ours);
  out.ort = medians(steps.ort);
  await ortSession.release();
  log(`ms/token AttnScope ${out.ours.wall.toFixed(2)} wall ${out.ours.cpu.toFixed(2)} cpu; ORT ${out.ort.wall.toFixed(2)} wall ${out.ort.cpu.toFixed(2)} cpu`);
} else {
  // ORT could not run: AttnScope's time alone.
  const steps = [];
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const a = await generateOurs(NEW_TOKENS + 1, 0);
    if (i >= WARMUP) steps.push(...intervals(a.stamps));
  }
  out.ours = { wall: median(steps.map((x) => x.wall)), cpu: median(steps.map((x) => x.cpu)), steps: steps.length };
}
model.dispose();
console.log(JSON.stringify(out));
