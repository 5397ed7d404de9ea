// `node bench/patching.mjs`: the cost of an activation patching grid (model.patch) in forward-pass
// equivalents, on random GPT-2-shaped weights (bench/random-model.mjs), 16 tokens by default. One
// forward pass is model.runIds(ids, {topK: 0}) (no next-token head; the patching cells compute only
// the two logits they compare). A cell at layer l runs layers l..L−1 from the corrupted run's
// residual stream, so a resid_pre grid costs about T · Σ_l (L − l) / L = T(L + 1)/2 passes plus the
// two base runs: 0.54 · L·T for L = 12 (the aim: ≤ 0.6 · L·T).
//   node bench/patching.mjs [--shape gpt2-small] [--tokens 16] [--sites resid_pre,head] [--runs 3]
//                           [--threads 1] [--root DIR (js/ + dist/)]
// Prints the CPU, the measured grid time / one pass (CPU time, median of runs) and the layer count
// the design predicts.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';

import { GPT2_SHAPES, randomGpt2, writeHfFolder } from './random-model.mjs';
import { median, timed } from './clock.mjs';

const repo = resolve(import.meta.dirname, '..');
const { values: args } = parseArgs({
  options: {
    shape: { type: 'string', default: 'gpt2-small' },
    tokens: { type: 'string', default: '16' },
    sites: { type: 'string', default: 'resid_pre,head' },
    runs: { type: 'string', default: '3' },
    threads: { type: 'string', default: '1' },
    root: { type: 'string', default: repo },
  },
});
const T = Number(args.tokens), RUNS = Math.max(1, Number(args.runs)), THREADS = Number(args.threads);
if (!GPT2_SHAPES[args.shape]) throw new Error(`--shape must be one of ${Object.keys(GPT2_SHAPES).join(', ')}`);
const { loadModel } = await import(pathToFileURL(join(resolve(args.root), 'js/index.js')));

// The CPU's model name as lscpu reports it (Node's os.cpus() reads the same /proc/cpuinfo).
const cpuName = () => {
  try {
    return /model name\s*:\s*(.*)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? cpus()[0]?.model;
  } catch {
    return cpus()[0]?.model ?? 'unknown';
  }
};

const dir = mkdtempSync(join(tmpdir(), 'attnscope-bench-patching-'));
try {
  const m = randomGpt2(args.shape);
  writeHfFolder(dir, m);
  const model = await loadModel(dir, { threads: THREADS });
  const L = m.shape.layers, H = m.shape.heads;
  let r = 7;
  const clean = Int32Array.from({ length: T }, () => (r = (r * 1103515245 + 12345) >>> 0) % 50256);
  const corrupted = clean.slice();
  corrupted[T >> 1] = (corrupted[T >> 1] + 1) % 50256;  // one token differs
  console.log(`CPU: ${cpuName()} (${cpus().length} logical), ${THREADS} thread(s); ${args.shape} (L=${L}, H=${H}), ${T} tokens`);

  let last = null;
  const pass = () => model.runIds(clean, { topK: 0, reuse: last }).then((x) => { last = x; });
  await pass();
  // Passes and grids alternate, so that both see the same machine (others' load changes the CPU
  // time of the same work by tens of per cent on a shared machine).
  const passes = [];
  const timePasses = async () => { for (let i = 0; i < 5; i++) passes.push((await timed(pass)).cpu); };

  for (const site of args.sites.split(',')) {
    const options = { clean, corrupted, answer: 11, wrong: 12, site };
    await model.patch(options);  // warm-up
    const runs = [];
    for (let i = 0; i < RUNS; i++) {
      await timePasses();
      runs.push((await timed(() => model.patch(options))).cpu);
    }
    await timePasses();
    const gridMs = median(runs), passMs = median(passes);
    console.log(`one forward pass: ${passMs.toFixed(1)} ms CPU (median of ${passes.length}, taken between the grids)`);
    const columns = site === 'head' || site === 'pattern' ? H : T;
    // Layers run per cell: L − l at layer l; plus the two base runs' L each.
    const predictedLayers = columns * (L * (L + 1)) / 2 + 2 * L;
    const fullPasses = L * columns;  // the naive grid: one full pass per cell
    console.log(`${site}: ${L}×${columns} cells, ${gridMs.toFixed(0)} ms CPU = ${(gridMs / passMs).toFixed(1)} forward passes ` +
      `= ${(gridMs / passMs / fullPasses).toFixed(3)} × L·${site === 'head' || site === 'pattern' ? 'H' : 'T'} ` +
      `(layer count predicts ${(predictedLayers / L / fullPasses).toFixed(3)})`);
  }
  model.dispose();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
