// Where a generated token's time goes (bench/decode.mjs times the whole step against onnxruntime-web;
// this splits AttnScope's): for each model and precision, greedy generate() (5 candidates a step,
// the page's default) over prompts of several lengths, with the module's native calls wrapped to
// time each: the layers over the KV cache (Model.extend / Seq2SeqModel.step), the vocabulary head
// and the next-token choice (lmLogits + JavaScript sampling before; nextToken, both in wasm,
// after), and the rest of the interval between two onToken calls (JavaScript: copies of the
// attention rows, the step's record, the turn given to the event loop). The growth of the layers'
// time with the prompt is attention over the cache; what is left at a short prompt is the weights'
// reading, set against its limit (the bytes of weights read / wasm memory's copy bandwidth, as
// decode.mjs). All in this process's CPU time (the machine is shared), medians over the steps.
//   node bench/decode-profile.mjs [--models gpt2-small,smollm2-135m,t5-small] [--precisions f32,q8]
//                                 [--contexts 16,128,512] [--new-tokens 16] [--runs 2] [--root DIR]
//                                 [--compare-root DIR] [--threads 1]
// --root: the tree whose js/ and dist/ run; --compare-root: a second tree (e.g. main's worktree,
// for before / after) loaded in the same process on the same weights, its generations alternating
// with the first's, so both see the same load. --threads: what each model runs on (the threaded
// module above 1); the table then also gives the step's wall time and its CPU / wall (2.0: both
// threads busy the whole step; 1.0: the second one idle).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';

import { writeHfFolder } from './random-model.mjs';
import { FAMILIES } from './decode-families.mjs';
import { cpuMs, median } from './clock.mjs';
import { measureBandwidth } from './wasm-bandwidth.mjs';

const { values: args } = parseArgs({
  options: {
    models: { type: 'string', default: 'gpt2-small,smollm2-135m,t5-small' },
    precisions: { type: 'string', default: 'f32,q8' },
    contexts: { type: 'string', default: '16,128,512' },
    'new-tokens': { type: 'string', default: '16' },
    runs: { type: 'string', default: '2' },
    root: { type: 'string', default: resolve(import.meta.dirname, '..') },
    'compare-root': { type: 'string' },
    threads: { type: 'string', default: '1' },
  },
});
const list = (s) => s.split(',').filter(Boolean);
const NEW_TOKENS = Number(args['new-tokens']), RUNS = Number(args.runs), THREADS = Number(args.threads);
// Each tree: its own package and module (a module's classes are its own, so wrapping one tree's
// methods leaves the other's alone).
const trees = [];
for (const dir of [args.root, args['compare-root']].filter(Boolean)) {
  const root = resolve(dir);
  const { loadModel } = await import(pathToFileURL(join(root, 'js/index.js')));
  const { getWasmModule } = await import(pathToFileURL(join(root, 'js/api/wasm.js')));
  trees.push({ root, loadModel, getWasmModule });
}

// Each wrapped native method adds its CPU time to `spent[name]` for the step in progress.
let spent = {};
function wrap(proto, names) {
  for (const name of names) {
    const original = proto?.[name];
    if (typeof original !== 'function' || original.profiled) continue;
    proto[name] = function (...a) {
      const c0 = cpuMs(), w0 = performance.now();
      try { return original.apply(this, a); } finally {
        spent[name] = (spent[name] ?? 0) + cpuMs() - c0;
        spent[`${name}Wall`] = (spent[`${name}Wall`] ?? 0) + performance.now() - w0;
      }
    };
    proto[name].profiled = true;
  }
}

const bandwidth = (await measureBandwidth({ threads: THREADS, megabytes: 128 })).copy.cpu.best;  // GB per CPU-second
console.error(`wasm memory copy bandwidth ${bandwidth.toFixed(2)} GB per CPU-second (${THREADS} threads)`);
const rows = [];
for (const modelName of list(args.models)) {
  const family = FAMILIES[modelName];
  const m = family.random();
  for (const precision of list(args.precisions)) {
    const work = mkdtempSync(join(tmpdir(), 'attnscope-profile-'));
    const models = [];
    try {
      writeHfFolder(join(work, 'model'), m);
      for (const tree of trees) {
        models.push(await tree.loadModel(join(work, 'model'), { weightPrecision: precision, threads: THREADS }));
        const wasm = await tree.getWasmModule({ threads: THREADS });
        wrap(wasm.Model?.prototype, ['extend', 'lmLogits', 'nextToken']);
        wrap(wasm.Seq2SeqModel?.prototype, ['step', 'nextToken']);
      }
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
    const limit = family.weightBytes(m.shape, precision) / bandwidth / 1e6;  // ms
    for (const context of list(args.contexts).map(Number)) {
      const prompt = family.prompt(context);
      const steps = models.map(() => []);
      for (let run = 0; run <= RUNS; run++) {  // run 0: warm-up
        for (const [t, model] of models.entries()) {  // the trees alternate
          let last = null, lastWall = null;
          const onToken = () => {
            const now = cpuMs(), nowWall = performance.now();
            if (last !== null && run > 0) steps[t].push({ total: now - last, wall: nowWall - lastWall, ...spent });
            spent = {};
            last = cpuMs();
            lastWall = performance.now();
          };
          const g = model.generate(prompt, { maxNewTokens: NEW_TOKENS + 1, temperature: 0, stopAtEos: false, candidates: 5, onToken });
          await (g.result ?? g);
        }
      }
      for (const [t, tree] of trees.entries()) {
        const med = (f) => median(steps[t].map(f));
        const layers = med((s) => s.extend ?? s.step ?? 0);
        const head = med((s) => (s.lmLogits ?? 0) + (s.nextToken ?? 0));
        const total = med((s) => s.total), wall = med((s) => s.wall);
        const js = med((s) => s.total - (s.extend ?? s.step ?? 0) - (s.lmLogits ?? 0) - (s.nextToken ?? 0));
        const layersWall = med((s) => s.extendWall ?? s.stepWall ?? 0);
        const headWall = med((s) => (s.lmLogitsWall ?? 0) + (s.nextTokenWall ?? 0));
        rows.push({ tree: tree.root, modelName, precision, context, total, wall, layers, head, js, limit, layersWall, headWall });
        console.error(`${tree.root} ${modelName} ${precision} @${context}: ${total.toFixed(2)} ms/token, wall ${wall.toFixed(2)} (layers ${layers.toFixed(2)}, head + choice ${head.toFixed(2)}, JS ${js.toFixed(2)}; limit ${limit.toFixed(2)})`);
      }
    }
    for (const model of models) model.dispose();
  }
}
console.log(`${THREADS} thread(s); CPU ms per token but for the wall column`);
console.log('| tree | model | precision | prompt | ms/token | wall ms/token | CPU / wall | layers (extend/step) | vocabulary head + choice | JS rest | weight-reading limit | wall: layers / head + choice / rest |');
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
for (const r of rows) {
  const wallParts = `${r.layersWall.toFixed(2)} / ${r.headWall.toFixed(2)} / ${(r.wall - r.layersWall - r.headWall).toFixed(2)}`;
  console.log(`| ${r.tree} | ${r.modelName} | ${r.precision} | ${r.context} | ${r.total.toFixed(2)} | ${r.wall.toFixed(2)} | ${(r.total / r.wall).toFixed(2)} | ${r.layers.toFixed(2)} | ${r.head.toFixed(2)} | ${r.js.toFixed(2)} | ${r.limit.toFixed(2)} | ${wallParts} |`);
}
