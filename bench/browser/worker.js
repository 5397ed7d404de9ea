// One side of `npm run bench:browser`: a module worker holding, for one thread count, an AttnScope
// model (the package as a browser app imports it: js/index.js, bundled by esbuild with the
// browser's #platform, so it loads dist/attnscope-relaxed.wasm where relaxed SIMD validates) and
// an onnxruntime-web session (its wasm build, SIMD + threads) on the same weights. onnxruntime-web
// fixes its thread count when its wasm starts, so each thread count needs a worker of its own.
// Bundled to /dist/bench-worker.js (bench/browser.mjs) so every URL the package resolves
// relative to itself (the wasm, Emscripten's thread workers) is the one dist/worker.js sees.
// With several weight precisions ('f32', 'q8': bench/browser.mjs --weights) the worker holds one
// AttnScope model (loadModel's weightPrecision) and one ORT session (the f32 graph, or the graph
// onnxruntime's quantize_dynamic writes) per precision.
// Messages: {type, ...} → {value} or {error}; times are measured here, around the call alone.
import { buildInfo, loadModel } from '../../js/index.js';
import { LOAD_OPTIONS } from '../../js/api/options.js';
import { getWasmModule } from '../../js/api/wasm.js';
import { relaxedSimdSupported } from '#platform';

let ort = null, ids = null, feeds = null, workerThreads = 1;
const models = {}, sessions = {}, lasts = {};  // by weight precision

const handlers = {
  // Loads both engines for `threads`. The threads option is passed only once the API has it.
  async init({ threads, ortModule, ortWasmPaths, modelUrl, precisions = ['f32'] }) {
    workerThreads = threads;
    ort = await import(/* @vite-ignore */ ortModule);  // a URL, left for the browser to load
    ort.env.wasm.numThreads = threads;
    ort.env.wasm.wasmPaths = ortWasmPaths;
    ort.env.wasm.proxy = false;  // already off the main thread
    ort.env.logLevel = 'error';
    const threadsOption = LOAD_OPTIONS.includes('threads');
    for (const weightPrecision of precisions) {
      models[weightPrecision] = await loadModel(modelUrl, { cache: false, weightPrecision, ...(threadsOption ? { threads } : {}) });
      if (models[weightPrecision].info.weightPrecision !== weightPrecision) throw new Error(`asked for ${weightPrecision}, loaded ${models[weightPrecision].info.weightPrecision}`);
    }
    const model = models[precisions[0]];
    const build = await buildInfo({ threads });  // the module these models run in
    return { threadsOption, modelThreads: model.threads ?? model.info?.threads ?? null, relaxedSimd: relaxedSimdSupported(),
      q8Kernel: build.q8Kernel ?? null, isolated: self.crossOriginIsolated, hardwareConcurrency: navigator.hardwareConcurrency };
  },

  // A session for T tokens and a precision (the graph's position ids are constants of length T),
  // then one run of each engine to compare their last hidden states: the largest difference and
  // the relative L2 error (q8 is close to f32, not equal; the two engines round differently).
  async session({ onnxUrl, tokenIds, precision = 'f32' }) {
    await sessions[precision]?.release();
    const bytes = new Uint8Array(await (await fetch(onnxUrl)).arrayBuffer());
    sessions[precision] = await ort.InferenceSession.create(bytes, { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
    const T = tokenIds.length;
    ids = Int32Array.from(tokenIds);
    feeds = {
      input_ids: new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), [1, T]),
      mask_bias: new ort.Tensor('float32', new Float32Array(T), [1, 1, 1, T]),
    };
    lasts[precision] = null;
    const ours = await runAttnScope({ precision }), theirs = (await sessions[precision].run(feeds)).last_hidden_state.data;
    let maxAbsDiff = 0, num = 0, den = 0;
    for (let i = 0; i < ours.hidden.length; i++) {
      maxAbsDiff = Math.max(maxAbsDiff, Math.abs(ours.hidden[i] - theirs[i]));
      num += (ours.hidden[i] - theirs[i]) ** 2;
      den += theirs[i] ** 2;
    }
    return { maxAbsDiff, relativeDiff: Math.sqrt(num / den), hiddenValues: ours.hidden.length, ortThreads: ort.env.wasm.numThreads,
      wasm: wasmFiles(), ortVersion: ort.env.versions?.web ?? null };
  },

  // form 'pairwise' (bench/browser.mjs --q8-forms): this run on the relaxed build's pairwise int8
  // dot product instead of the fused dot-add the engine picks where it is exact (A/B in one run).
  async attnscope({ form = 'auto', ...args }) {
    const module = await getWasmModule({ threads: workerThreads });
    if (form === 'pairwise') module.setQ8DotForm(1);
    try {
      return await timed(() => runAttnScope(args));
    } finally {
      if (form === 'pairwise') module.setQ8DotForm(0);
    }
  },
  async ort({ precision = 'f32' }) { return timed(() => sessions[precision].run(feeds)); },

  async release() {
    for (const precision of Object.keys(sessions)) {
      await sessions[precision].release();
      delete sessions[precision];
      lasts[precision] = null;
    }
  },
};

// As bench/run.mjs: each run writes into the previous result's memory (options.reuse), as a
// live view would, and returns every attention map.
async function runAttnScope({ precision = 'f32' }) {
  lasts[precision] = await models[precision].runIds(ids, { reuse: lasts[precision] });
  return lasts[precision];
}

async function timed(fn) {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

// The .wasm files this worker fetched: which AttnScope build and which onnxruntime-web build ran.
// A failed fetch (a missing relaxed build, then the plain one) is a resource entry too: skip it.
function wasmFiles() {
  const fetched = performance.getEntriesByType('resource').filter((e) => !(e.responseStatus >= 400));
  return [...new Set(fetched.map((e) => new URL(e.name).pathname).filter((p) => p.endsWith('.wasm')))];
}

self.onmessage = async ({ data: { id, type, ...args } }) => {
  try {
    self.postMessage({ id, value: await handlers[type](args) });
  } catch (error) {
    self.postMessage({ id, error: `${type}: ${error?.code ? `${error.code} ` : ''}${error?.message ?? error}` });
  }
};
