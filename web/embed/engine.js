// The page-wide engine behind every <attn-scope>: ONE Web Worker (from a Blob URL, so it works
// on any host and from file://), one wasm module in it, one load per model id. Elements ask
// for runs by model id; the worker keeps each model loaded. Where the wasm and the bundled model
// come from is set once by the bundle's entry (element-entry.js or single-file-entry.js).
import { AttnScopeError } from '../../js/errors.js';
import { RunResult } from '../../js/result.js';
import { isHubId } from '../src/state.js';

let assets = null;   // { workerSource, wasm: URL string | {base64}, bundled: URL string | {base64 files} }
let engine = null;

/** Where the engine finds its pieces; the bundle entry calls this before defining the element. */
export function configureEngine(config) {
  assets = config;
}

/** The one engine of this page (created on first use). */
export function sharedEngine() {
  engine ??= createEngine();
  return engine;
}

/** What a model attribute may be: 'bundled', a hub id (owner/name) or an http(s) folder URL. */
export function parseModelId(value) {
  const id = (value ?? '').trim() || 'bundled';
  if (id === 'bundled' || isHubId(id)) return id;
  if (id.length <= 2048 && /^https?:\/\//i.test(id)) {
    try {
      return new URL(id).href;
    } catch { /* fall through */ }
  }
  throw new AttnScopeError('E_INPUT', `model must be "bundled", a hub id (owner/name) or an http(s) URL, got ${preview(id)}`);
}

export function preview(value, max = 60) {
  const s = String(value);
  return JSON.stringify(s.length > max ? s.slice(0, max) + '…' : s);
}

function createEngine() {
  if (!assets) throw new AttnScopeError('E_INTERNAL', 'configureEngine() was not called by the bundle entry');
  const url = URL.createObjectURL(new Blob([assets.workerSource], { type: 'text/javascript' }));
  // A classic worker: Chromium refuses module workers from blob: URLs on file:// pages.
  let worker;
  try {
    worker = new Worker(url, { name: 'attnscope-engine' });
  } catch (error) {
    URL.revokeObjectURL(url);
    throw new AttnScopeError('E_INTERNAL', 'cannot start the AttnScope worker (a Content-Security-Policy ' +
      `must allow worker-src blob:): ${error.message}`);
  }
  const pending = new Map();   // message id → {resolve, reject}
  const loads = new Map();     // model id → Promise<info>
  let nextId = 1;
  let failure = null;
  const stats = { workers: 1, modelLoads: 0, runs: 0 };

  worker.addEventListener('message', (event) => {
    const { id, type, value, error } = event.data;
    const job = pending.get(id);
    if (!job) return;
    pending.delete(id);
    if (type === 'error') job.reject(new AttnScopeError(error.code, error.message));
    else job.resolve(value);
  });
  worker.addEventListener('error', (event) => {
    event.preventDefault();
    // A worker that never starts only says "error"; the usual cause on a blog is its CSP.
    failure = new AttnScopeError('E_INTERNAL', event.message ? `the AttnScope engine worker failed: ${event.message}`
      : 'the AttnScope engine worker could not start (a Content-Security-Policy must allow worker-src blob:)');
    for (const job of pending.values()) job.reject(failure);
    pending.clear();
  });

  function call(message, transfer = []) {
    if (failure) return Promise.reject(failure);
    return new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      worker.postMessage({ ...message, id }, transfer);
    });
  }

  // Cache Storage needs a real origin: pages opened from file:// skip it.
  const ready = call({ type: 'init', wasm: assets.wasm, cache: /^https?:$/.test(location.protocol) });

  function sourceFor(modelId) {
    if (modelId !== 'bundled') return modelId;
    if (!assets.bundled) throw new AttnScopeError('E_NOT_FOUND', 'this build has no bundled model: set model to a URL or a hub id');
    return assets.bundled;
  }

  return {
    stats,
    /** Loads a model once per id; resolves to its info (config, files, …). */
    load(modelId) {
      let p = loads.get(modelId);
      if (!p) {
        stats.modelLoads++;
        p = ready.then(() => call({ type: 'load', modelId, source: sourceFor(modelId) }));
        p.catch(() => loads.delete(modelId));   // let a later element retry
        loads.set(modelId, p);
      }
      return p;
    },
    async run(modelId, text, options) {
      await this.load(modelId);
      stats.runs++;
      return new RunResult(await call({ type: 'run', modelId, text, options }));
    },
  };
}
