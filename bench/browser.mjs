// `npm run bench:browser`: AttnScope against onnxruntime-web in Chromium, at 1 and 2 threads, on
// the same random bert-base weights (bench/random-model.mjs, bench/bert-onnx.mjs, as bench/run.mjs
// in Node). A local cross-origin isolated server (scripts/serve.mjs, so SharedArrayBuffer and
// threads exist) serves a bench page; one module worker per thread count (bench/browser/worker.js)
// holds an AttnScope model — the package bundled for the browser, so it runs the wasm build a page
// gets (relaxed SIMD where supported) — and an onnxruntime-web session (its SIMD + threads wasm
// build; its thread count is fixed per wasm instance, hence a worker each). Runs alternate
// AttnScope / ORT and between the thread counts, each timed inside its worker; medians after
// warm-up. Each call is also timed in CPU time: the renderer process's threads' (the workers and
// their pthread workers run there) on-CPU nanoseconds from /proc/PID/task/*/schedstat, read by
// this process before and after the call — the figure that holds on a shared, loaded machine, as
// the process CPU time bench/ort-q8.mjs reports in Node (wall time moves with the other load).
// Prints one JSON object: CPU, Chromium version, per case the medians, AttnScope / ORT,
// the 2-thread speed-up of each, and how far AttnScope's last hidden state is from ORT's.
// --weights f32,q8 adds int8: AttnScope with weightPrecision 'q8' against ORT on the
// graph onnxruntime's quantize_dynamic writes (bench/bert-onnx.mjs {weights: 'q8'}), each
// precision its own model and session in the same workers, alternating with the others.
// --q8-forms auto,pairwise also times AttnScope q8 with the relaxed build's pairwise int8 dot
// product forced, beside the fused dot-add the engine picks where exact (same model, same round).
//   node bench/browser.mjs [--tokens 128,512] [--threads 1,2] [--runs 5] [--warmup 1]
//                          [--shape bert-base] [--weights f32[,q8]] [--q8-forms auto[,pairwise]]
//                          [--quick (128 tokens, 3 runs, no warm-up round)]
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';

import { SHAPES, randomBert, writeHfFolder } from './random-model.mjs';
import { bertOnnx } from './bert-onnx.mjs';
import { median } from './clock.mjs';
import { createStaticServer } from '../scripts/serve.mjs';

const repo = resolve(import.meta.dirname, '..');
const { values: args } = parseArgs({
  options: {
    tokens: { type: 'string', default: '128,512' },
    threads: { type: 'string', default: '1,2' },
    runs: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '1' },  // after the output check, itself one run of each
    shape: { type: 'string', default: 'bert-base' },
    weights: { type: 'string', default: 'f32' },
    'q8-forms': { type: 'string', default: 'auto' },
    quick: { type: 'boolean', default: false },
  },
});
if (args.quick) Object.assign(args, { tokens: '128', runs: '3', warmup: '0' });
const TOKENS = args.tokens.split(',').map(Number), THREADS = args.threads.split(',').map(Number);
const RUNS = Number(args.runs), WARMUP = Number(args.warmup), PRECISIONS = args.weights.split(',');
if (!PRECISIONS.every((p) => p === 'f32' || p === 'q8')) throw new Error(`--weights takes f32 and/or q8, got ${args.weights}`);
const Q8_FORMS = args['q8-forms'].split(',');
if (!Q8_FORMS.every((f) => f === 'auto' || f === 'pairwise')) throw new Error(`--q8-forms takes auto and/or pairwise, got ${args['q8-forms']}`);
if (!SHAPES[args.shape]) throw new Error(`unknown shape ${args.shape} (have ${Object.keys(SHAPES)})`);
if (!TOKENS.every((t) => t >= 2 && t <= 512) || !THREADS.every((n) => n >= 1) || !(RUNS >= 1) || !(WARMUP >= 0)) {
  throw new Error('--tokens must be in 2..512, --threads ≥ 1, --runs ≥ 1, --warmup ≥ 0');
}
const log = (...a) => console.error(...a);
const started = Date.now(), startLoad = loadavg().map(round2);  // the machine is shared: say how busy

// Ids as bench/run.mjs feeds them: [CLS] pseudo-random words [SEP].
function benchIds(T) {
  let r = 12345;
  return Array.from({ length: T }, (_, i) => (i === 0 ? 2 : i === T - 1 ? 3 : 5 + ((r = (r * 1103515245 + 12345) >>> 0) % 30000)));
}

const work = mkdtempSync(join(tmpdir(), 'attnscope-bench-browser-'));
let browser = null, server = null;
try {
  // ---- the same weights as a Hugging Face folder (AttnScope) and as ONNX graphs (ORT) -------
  log(`writing random ${args.shape} weights and ONNX graphs for ${TOKENS.join(', ')} tokens…`);
  const m = randomBert(args.shape, 1);
  writeHfFolder(join(work, 'model'), m);
  for (const T of TOKENS) {
    for (const weights of PRECISIONS) writeFileSync(join(work, `model-${T}-${weights}.onnx`), bertOnnx(m, T, { weights }));
  }

  // ---- the worker, bundled as the page's own worker is (web/build.mjs) ----------------------
  await build({
    entryPoints: [join(repo, 'bench/browser/worker.js')], outfile: join(work, 'bench-worker.js'),
    bundle: true, format: 'esm', platform: 'browser', target: 'es2022', absWorkingDir: repo, logLevel: 'error',
  });
  server = createStaticServer({
    isolated: true,
    mounts: {
      '/bench': join(repo, 'bench/browser'), '/bench-data': work,
      '/ort': join(repo, 'node_modules/onnxruntime-web/dist'),
      '/dist/bench-worker.js': join(work, 'bench-worker.js'),
    },
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  const origin = `http://127.0.0.1:${server.address().port}`;

  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium', headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
  });
  const page = await browser.newPage();
  page.on('console', (message) => log(`[page ${message.type()}] ${message.text()}`));
  page.on('pageerror', (error) => log(`[page error] ${error.message}`));
  await page.goto(`${origin}/bench/index.html`);
  await page.waitForFunction(() => document.body.dataset.ready === 'true');
  if (!(await page.evaluate(() => window.bench.isolated()))) throw new Error('the bench page is not crossOriginIsolated');
  const call = (index, type, callArgs = {}) =>
    page.evaluate(([i, t, a]) => window.bench.call(i, t, a), [index, type, callArgs]);

  // ---- one worker per thread count: both engines loaded ---------------------------------------
  const workers = [];
  for (const threads of THREADS) {
    const index = await page.evaluate(() => window.bench.start());
    log(`loading both engines with ${threads} thread(s)…`);
    const info = await call(index, 'init', {
      threads, ortModule: '/ort/ort.wasm.min.mjs', ortWasmPaths: '/ort/', modelUrl: `${origin}/bench-data/model/`,
      precisions: PRECISIONS,
    });
    // Like with like: both engines on `threads` (ORT's is set in the worker), or no figures at all.
    if (info.modelThreads !== threads) {
      throw new Error(`AttnScope asked for ${threads} thread(s) runs on ${info.modelThreads} (model.threads)`);
    }
    workers.push({ index, threads, info });
  }
  const renderer = rendererPid();  // now that it runs the workers

  // ---- per length: sessions, output check, warm-up, alternating timed runs --------------------
  const cases = [];
  for (const T of TOKENS) {
    // f32: the same arithmetic up to summation order; q8: each engine rounds its own way (AttnScope's
    // activations per row, ORT's per tensor), so close in relative terms only.
    // A pair: one worker, one precision, and for q8 one form of the int8 dot product ('auto', or
    // 'pairwise' forced: the same model and ORT session, checked once).
    const pairs = workers.flatMap((w) => PRECISIONS.flatMap((precision) =>
      (precision === 'q8' ? Q8_FORMS : ['auto']).map((form) => ({ w, precision, form }))));
    for (const pair of pairs) {
      const { w, precision } = pair;
      const checked = pairs.find((p) => p.w === w && p.precision === precision && p.check);
      if (checked) { pair.check = checked.check; continue; }
      pair.check = await call(w.index, 'session', { onnxUrl: `/bench-data/model-${T}-${precision}.onnx`, tokenIds: benchIds(T), precision });
      w.check = pair.check;
      const ok = precision === 'f32' ? pair.check.maxAbsDiff < 1e-2 : pair.check.relativeDiff < 0.1;
      if (!ok) throw new Error(`T=${T}, ${w.threads} thread(s), ${precision}: hidden states differ by ${pair.check.maxAbsDiff} (relative ${pair.check.relativeDiff})`);
    }
    // One round: every worker and precision, AttnScope then ORT; odd rounds run the same calls
    // backwards, so neither engine nor thread count always follows the same neighbour.
    const round = pairs.flatMap((pair) => [[pair, 'attnscope'], [pair, 'ort']]);
    // One call: { wall: ms inside the worker, cpu: ms the renderer's threads ran meanwhile }.
    const once = async ([{ w, precision, form }, side]) => {
      const cpu0 = onCpuNs(renderer);
      const wall = await call(w.index, side, { precision, form });
      return { wall, cpu: (onCpuNs(renderer) - cpu0) / 1e6 };
    };
    for (let i = 0; i < WARMUP; i++) for (const step of round) await once(step);
    const times = new Map(pairs.map((pair) => [pair, { attnscope: [], ort: [], attnscopeCpu: [], ortCpu: [] }]));
    for (let i = 0; i < RUNS; i++) {
      for (const step of i % 2 ? [...round].reverse() : round) {
        const { wall, cpu } = await once(step), t = times.get(step[0]);
        t[step[1]].push(wall);
        t[`${step[1]}Cpu`].push(cpu);
      }
    }
    for (const pair of pairs) {
      const { w, precision, form, check } = pair;
      const t = times.get(pair), attnscopeMs = median(t.attnscope), ortMs = median(t.ort);
      const attnscopeCpuMs = median(t.attnscopeCpu), ortCpuMs = median(t.ortCpu);
      cases.push({
        model: args.shape, tokens: T, threads: w.threads, weights: precision, ...(precision === 'q8' ? { q8Form: form } : {}),
        attnscopeMs: round1(attnscopeMs), ortMs: round1(ortMs),
        ratio: round3(attnscopeMs / ortMs), attnscopeCpuMs: round1(attnscopeCpuMs), ortCpuMs: round1(ortCpuMs),
        cpuRatio: round3(attnscopeCpuMs / ortCpuMs), maxAbsDiffHidden: Number(check.maxAbsDiff.toPrecision(2)),
        relativeDiffHidden: Number(check.relativeDiff.toPrecision(2)), runsMs: { attnscope: t.attnscope.map(round1), ort: t.ort.map(round1) },
        runsCpuMs: { attnscope: t.attnscopeCpu.map(round1), ort: t.ortCpu.map(round1) },
      });
      log(`${args.shape} @${T}, ${w.threads} thread(s), ${precision}${form === 'auto' ? '' : ` (${form} dot)`}: AttnScope ${attnscopeMs.toFixed(1)} ms, ORT ${ortMs.toFixed(1)} ms ` +
        `(ratio ${(attnscopeMs / ortMs).toFixed(3)}); CPU ${attnscopeCpuMs.toFixed(1)} / ${ortCpuMs.toFixed(1)} ms ` +
        `(ratio ${(attnscopeCpuMs / ortCpuMs).toFixed(3)}); max |Δhidden| ${check.maxAbsDiff.toExponential(1)}, relative ${check.relativeDiff.toExponential(1)}`);
    }
    for (const w of workers) await call(w.index, 'release');
  }

  // ---- report ----------------------------------------------------------------------------------
  const speedups = [];
  for (const T of TOKENS) {
    for (const weights of PRECISIONS) {
      const one = cases.find((c) => c.tokens === T && c.threads === 1 && c.weights === weights && c.q8Form !== 'pairwise');
      if (!one) continue;
      for (const c of cases.filter((x) => x.tokens === T && x.threads > 1 && x.weights === weights && x.q8Form !== 'pairwise')) {
        speedups.push({ tokens: T, threads: c.threads, weights, attnscope: round3(one.attnscopeMs / c.attnscopeMs), ort: round3(one.ortMs / c.ortMs) });
      }
    }
  }
  const at = (T, n, weights = 'f32', form = 'auto') =>
    cases.find((c) => c.tokens === T && c.threads === n && c.weights === weights && (weights !== 'q8' || c.q8Form === form));
  const q8Acceptance = {};
  for (const n of THREADS) {
    if (!at(128, n, 'q8')) continue;
    // [wall, cpu] each
    const q8 = at(128, n, 'q8'), f32 = at(128, n), pairwise = at(128, n, 'q8', 'pairwise');
    q8Acceptance[`${args.shape}@128 AttnScope q8 / ORT q8 at ${n} thread(s) (≤ 0.70) [wall, cpu]`] = [round2(q8.ratio), round2(q8.cpuRatio)];
    if (f32) {
      q8Acceptance[`${args.shape}@128 AttnScope f32 / AttnScope q8 at ${n} thread(s) (≥ 1.6) [wall, cpu]`] =
        [round2(f32.attnscopeMs / q8.attnscopeMs), round2(f32.attnscopeCpuMs / q8.attnscopeCpuMs)];
    }
    if (pairwise) {
      q8Acceptance[`${args.shape}@128 AttnScope q8 pairwise dot / ORT q8 at ${n} thread(s) [wall, cpu]`] = [round2(pairwise.ratio), round2(pairwise.cpuRatio)];
      q8Acceptance[`${args.shape}@128 AttnScope q8 pairwise dot / auto at ${n} thread(s) [wall, cpu]`] =
        [round2(pairwise.attnscopeMs / q8.attnscopeMs), round2(pairwise.attnscopeCpuMs / q8.attnscopeCpuMs)];
    }
  }
  const report = {
    cpu: readFileSync('/proc/cpuinfo', 'utf8').match(/^model name\s*:\s*(.+)$/m)?.[1] ?? cpus()[0]?.model,
    cores: cpus().length,
    loadavg: { start: startLoad, end: loadavg().map(round2) },
    chromium: browser.version(),
    isolated: true,
    // Per thread count: the wasm file the worker fetched (a plain and a threaded build exist) and
    // model.threads, the threads the model actually runs on.
    attnscope: {
      wasm: Object.fromEntries(workers.map((w) => [w.threads, w.check.wasm.filter((p) => p.startsWith('/dist/'))])),
      relaxedSimd: workers[0].info.relaxedSimd,
      // The int8 GEMM's dot-product instruction each module runs under 'auto' (buildInfo().q8Kernel).
      q8Kernel: Object.fromEntries(workers.map((w) => [w.threads, w.info.q8Kernel])),
      threadsOption: workers[0].info.threadsOption,
      threadsUsed: Object.fromEntries(workers.map((w) => [w.threads, w.info.modelThreads])),
    },
    ort: {
      version: workers[0].check.ortVersion,
      wasm: workers[0].check.wasm.filter((p) => p.startsWith('/ort/')),
      threadsUsed: Object.fromEntries(workers.map((w) => [w.threads, w.check.ortThreads])),
    },
    method: `medians of ${RUNS} runs after the output check and ${WARMUP} warm-up round(s); AttnScope runIds(ids, {reuse}) returning every ` +
      'attention map, ORT the last hidden state; runs alternate AttnScope / ORT and thread counts; wall time inside each worker, ' +
      'CPU time = the renderer process threads\' on-CPU time around each call (/proc/PID/task/*/schedstat)',
    rendererPid: renderer,
    cases,
    speedups,
    acceptance: at(128, 1) && at(128, 2) ? {
      [`${args.shape}@128 AttnScope 2 threads vs 1 (≥ 1.7)`]: round2(at(128, 1).attnscopeMs / at(128, 2).attnscopeMs),
      [`${args.shape}@128 AttnScope / ORT at 2 threads (≤ 0.85)`]: round2(at(128, 2).ratio),
      [`${args.shape}@128 AttnScope / ORT at 1 thread`]: round2(at(128, 1).ratio),
    } : null,
    ...(PRECISIONS.includes('q8') ? { q8Acceptance } : {}),
    seconds: Math.round((Date.now() - started) / 1000),
  };
  console.log(JSON.stringify(report, null, 2));
} finally {
  await browser?.close();
  if (server) { server.closeAllConnections(); server.close(); }
  rmSync(work, { recursive: true, force: true });
}

// The headless Chromium's renderer process that runs the bench workers: below this process, a
// --type=renderer command line, and threads named DedicatedWorker (Chromium keeps a spare
// renderer or two besides the page's).
function rendererPid() {
  const parent = new Map(), renderers = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parent.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('--type=renderer')) renderers.push(Number(entry));
    } catch { /* gone meanwhile */ }
  }
  const ours = renderers.filter((pid) => {
    let mine = false;
    for (let p = pid; p > 1 && !mine; p = parent.get(p) ?? 1) mine = p === process.pid;
    if (!mine) return false;
    try {
      return readdirSync(`/proc/${pid}/task`).some((task) => readFileSync(`/proc/${pid}/task/${task}/comm`, 'utf8').startsWith('DedicatedWorker'));
    } catch { return false; }
  });
  if (ours.length !== 1) throw new Error(`expected one Chromium renderer running the bench workers, found ${ours.length}`);
  return ours[0];
}

// Nanoseconds the process's threads have been on a CPU so far (the first field of each task's
// schedstat; threads that ended meanwhile drop out, so read it around calls that start none).
function onCpuNs(pid) {
  let ns = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try { ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]); } catch { /* ended */ }
  }
  return ns;
}

function round1(x) { return Math.round(x * 10) / 10; }
function round2(x) { return Math.round(x * 100) / 100; }
function round3(x) { return Math.round(x * 1000) / 1000; }
