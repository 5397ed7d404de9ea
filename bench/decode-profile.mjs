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
//                                 [--compare-root DIR]
// --root: the tree whose js/ and dist/ run; --compare-root: a second tree (e.g. main's worktree,
// for before / after) loaded in the same process on the same weights, its generations alternating
// with the first's, so both see the same load.
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
  },
});
const list = (s) => s.split(',').filter(Boolean);
const NEW_TOKENS = Number(args['new-tokens']), RUNS = Number(args.runs);
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
      const c0 = cpuMs();
      try { return original.apply(this, a); } finally { spent[name] = (spent[name] ?? 0) + cpuMs() - c0; }
    };
    proto[name].profiled = true;
  }
}

const bandwidth = (await measureBandwidth({ threads: 1, megabytes: 128 })).copy.cpu.best;  // GB per CPU-second
console.error(`wasm memory copy bandwidth ${bandwidth.toFixed(2)} GB per CPU-second (1 thread)`);
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
        models.push(await tree.loadModel(join(work, 'model'), { weightPrecision: precision, threads: 1 }));
        const wasm = await tree.getWasmModule({ threads: 1 });
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
          let last = null;
          const onToken = () => {
            const now = cpuMs();
            if (last !== null && run > 0) steps[t].push({ total: now - last, ...spent });
            spent = {};
            last = cpuMs();
          };
          const g = model.generate(prompt, { maxNewTokens: NEW_TOKENS + 1, temperature: 0, stopAtEos: false, candidates: 5, onToken });
          await (g.result ?? g);
        }
      }
      for (const [t, tree] of trees.entries()) {
        const med = (f) => median(steps[t].map(f));
        const layers = med((s) => s.extend ?? s.step ?? 0);
        const head = med((s) => (s.lmLogits ?? 0) + (s.nextToken ?? 0));
        const total = med((s) => s.total);
        const js = med((s) => s.total - (s.extend ?? s.step ?? 0) - (s.lmLogits ?? 0) - (s.nextToken ?? 0));
        rows.push({ tree: tree.root, modelName, precision, context, total, layers, head, js, limit });
        console.error(`${tree.root} ${modelName} ${precision} @${context}: ${total.toFixed(2)} ms/token (layers ${layers.toFixed(2)}, head + choice ${head.toFixed(2)}, JS ${js.toFixed(2)}; limit ${limit.toFixed(2)})`);
      }
    }
    for (const model of models) model.dispose();
  }
}
console.log('| tree | model | precision | prompt | ms/token | layers (extend/step) | vocabulary head + choice | JS rest | weight-reading limit |');
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
for (const r of rows) {
  console.log(`| ${r.tree} | ${r.modelName} | ${r.precision} | ${r.context} | ${r.total.toFixed(2)} | ${r.layers.toFixed(2)} | ${r.head.toFixed(2)} | ${r.js.toFixed(2)} | ${r.limit.toFixed(2)} |`);
}
