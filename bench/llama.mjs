// `node bench/llama.mjs`: a SmolLM2-135M-shaped Llama (random weights, bench/random-model.mjs) in
// AttnScope's WebAssembly engine against onnxruntime-web (wasm backend, one thread, SIMD) on the
// same weights and graph (bench/llama-onnx.mjs), runs alternating in one process:
//  1. prefill at --tokens (128): model.runIds(ids) (every attention map returned) vs ORT returning
//     the maps too, and vs ORT returning only the last hidden state;
//  2. ms per generated token over the KV cache (model.generate, temperature 0), prompt of
//     --tokens, --new-tokens steps.
//   node bench/llama.mjs [--tokens 128] [--new-tokens 16] [--runs 5] [--warmup 2] [--threads 1]
// Both sides are first checked to compute the same thing (hidden states and attention maps), and
// the cached steps against a full forward. The CPU is named from lscpu.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import * as ort from 'onnxruntime-web';

import { randomLlama, writeHfFolder } from './random-model.mjs';
import { llamaOnnx } from './llama-onnx.mjs';
import { median, timed } from './clock.mjs';

const repo = resolve(import.meta.dirname, '..');
const { values: args } = parseArgs({
  options: {
    tokens: { type: 'string', default: '128' },
    'new-tokens': { type: 'string', default: '16' },
    runs: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '2' },
    threads: { type: 'string', default: '1' },
  },
});
const T = Number(args.tokens), NEW_TOKENS = Math.max(4, Number(args['new-tokens']));
const RUNS = Math.max(3, Number(args.runs)), WARMUP = Number(args.warmup), THREADS = Number(args.threads);
const { loadModel, buildInfo } = await import(pathToFileURL(join(repo, 'js/index.js')));
ort.env.wasm.numThreads = 1;
ort.env.wasm.simd = true;
ort.env.logLevel = 'error';

const cpu = (() => {
  try { return execFileSync('lscpu', { encoding: 'utf8' }).match(/Model name:\s*(.+)/)?.[1]?.trim() ?? 'unknown'; } catch { return 'unknown'; }
})();
const maxAbsDiff = (a, b) => { let m = 0; for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i])); return m; };
const medians = (samples) => ({ wall: median(samples.map((s) => s.wall)), cpu: median(samples.map((s) => s.cpu)) });
const randomIds = (n, seed, V) => { let r = seed >>> 0; return Int32Array.from({ length: n }, () => (r = (r * 1103515245 + 12345) >>> 0) % V); };

const m = randomLlama('smollm2-135m', 1);
const { layers: L, heads: H, kvHeads: KV, headDim: dh, vocab: V } = m.shape;
const work = mkdtempSync(join(tmpdir(), 'attnscope-bench-llama-'));
try {
  writeHfFolder(join(work, 'model'), m);
  const model = await loadModel(join(work, 'model'), { threads: THREADS });
  const options = { executionProviders: ['wasm'], graphOptimizationLevel: 'all' };
  const withMaps = await ort.InferenceSession.create(llamaOnnx(m, T), options);
  const hiddenOnly = await ort.InferenceSession.create(llamaOnnx(m, T, { attentions: false }), options);
  const ids = randomIds(T, 12345, V);
  const feeds = { input_ids: new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), [1, T]) };
  let last = null;
  const runOurs = async () => (last = await model.runIds(ids, { topK: 0, reuse: last }));
  const runMaps = () => withMaps.run(feeds), runHidden = () => hiddenOnly.run(feeds);

  // Same weights, same graph → same answer up to summation order.
  const ours = await runOurs(), theirs = await runMaps();
  const hiddenDiff = maxAbsDiff(ours.hidden, theirs.last_hidden_state.data);
  let attentionDiff = 0;
  for (let l = 0; l < L; l++) attentionDiff = Math.max(attentionDiff, maxAbsDiff(ours.attentions.subarray(l * H * T * T, (l + 1) * H * T * T), theirs[`attn_${l}`].data));
  if (!(hiddenDiff < 1e-2 && attentionDiff < 1e-3)) throw new Error(`AttnScope and ORT differ: hidden ${hiddenDiff}, attentions ${attentionDiff}`);

  for (let i = 0; i < WARMUP; i++) { await runOurs(); await runMaps(); await runHidden(); }
  const t = { ours: [], maps: [], hidden: [] };
  for (let i = 0; i < RUNS; i++) {
    t.ours.push(await timed(runOurs));
    t.maps.push(await timed(runMaps));
    t.hidden.push(await timed(runHidden));
  }
  await withMaps.release();
  await hiddenOnly.release();

  // Generation: the interval between two onToken calls is one cached step (logits, pick, one token
  // through every layer over the cache).
  const generate = async () => {
    const stamps = [];
    const g = model.generate(ids, { maxNewTokens: NEW_TOKENS, temperature: 0, stopAtEos: false,
      onToken: (step) => stamps.push({ wall: performance.now(), cpu: process.cpuUsage(), step }) });
    const result = await g.result;
    const cpuMs = (u) => (u.user + u.system) / 1e3;
    return { result, stamps, intervals: stamps.slice(1).map((s, i) => ({ wall: s.wall - stamps[i].wall, cpu: cpuMs(s.cpu) - cpuMs(stamps[i].cpu) })) };
  };
  const first = await generate();
  const full = await model.runIds(first.result.ids, { topK: 1, nextAll: true });
  let greedySame = 0;
  for (let i = 0; i < NEW_TOKENS; i++) if (full.nextByPosition[T - 1 + i].top[0].id === first.result.ids[T + i]) greedySame++;
  const steps = [];
  for (let i = 0; i < RUNS; i++) steps.push(...(await generate()).intervals);
  model.dispose();

  const o = medians(t.ours), mp = medians(t.maps), hd = medians(t.hidden), g = medians(steps);
  const kvBytes = (heads, positions) => L * positions * 2 * heads * dh * 4;
    const relaxed = (await buildInfo({ threads: THREADS })).relaxedSimd;  // the package's choice (ATTNSCOPE_RELAXED_SIMD=0: plain)
  console.log(`CPU: ${cpu}; load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}; onnxruntime-web ${ort.env.versions?.web ?? ''} (wasm, 1 thread, SIMD); AttnScope threads: ${THREADS}, ${relaxed ? 'relaxed-SIMD' : 'plain SIMD128'} build`);
  console.log(`SmolLM2-135M shape (random weights): ${L} layers, ${m.shape.hidden} wide, ${H} heads over ${KV} key/value heads of ${dh}, FFN ${m.shape.ffn}, vocab ${V}`);
  console.log(`checks: max |Δhidden| ${hiddenDiff.toExponential(1)}, max |Δattention| ${attentionDiff.toExponential(1)}; cached greedy ids = full forward's argmax ${greedySame}/${NEW_TOKENS}`);
  console.log(`medians of ${RUNS} alternating runs after ${WARMUP} warm-up\n`);
  console.log('| prefill at T | AttnScope ms | ORT + maps ms | ratio | ORT hidden-only ms | ratio | clock |');
  console.log('|---|---|---|---|---|---|---|');
  for (const clock of ['wall', 'cpu']) {
    console.log(`| ${T} | ${o[clock].toFixed(1)} | ${mp[clock].toFixed(1)} | ${(o[clock] / mp[clock]).toFixed(2)} | ${hd[clock].toFixed(1)} | ${(o[clock] / hd[clock]).toFixed(2)} | ${clock} |`);
  }
  console.log(`\ngeneration over the KV cache (prompt ${T}, ${steps.length} steps): ${g.wall.toFixed(1)} ms/token wall, ${g.cpu.toFixed(1)} ms/token cpu`);
  console.log(`KV cache at ${T + NEW_TOKENS} positions: ${(kvBytes(KV, T + NEW_TOKENS) / 2 ** 20).toFixed(1)} MB (one K/V per key/value head) vs ${(kvBytes(H, T + NEW_TOKENS) / 2 ** 20).toFixed(1)} MB per query head; at 8192 positions ${(kvBytes(KV, 8192) / 2 ** 20).toFixed(0)} vs ${(kvBytes(H, 8192) / 2 ** 20).toFixed(0)} MB`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
