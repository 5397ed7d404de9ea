// What differs in browsers and bundlers (package.json "imports" → "#platform", default
// condition). The `new URL('…', import.meta.url)` expressions are written out literally so
// Vite, webpack and esbuild-based tools find the wasm, the worker and the bundled model files
// with no configuration.
import { AttnScopeError } from './formats/errors.js';
import { httpProvider } from './api/http-provider.js';
import { BUNDLED_CAUSAL_MODEL, BUNDLED_MODEL, BUNDLED_SEQ2SEQ_MODEL } from './api/bundled-models.js';

export const platformName = 'browser';

// A function computing f32x4.relaxed_madd(a, b, c): valid where the browser has relaxed SIMD.
const RELAXED_SIMD_PROBE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 8, 1, 0x60, 3, 0x7b, 0x7b, 0x7b, 1,
  0x7b, 3, 2, 1, 0, 10, 13, 1, 11, 0, 0x20, 0, 0x20, 1, 0x20, 2, 0xfd, 0x85, 0x02, 0x0b]);

/** Whether this engine runs the relaxed-SIMD build (its GEMM uses fused multiply-add). */
export function relaxedSimdSupported() {
  try {
    return WebAssembly.validate(RELAXED_SIMD_PROBE);
  } catch {
    return false;
  }
}

/** The core build (js/api/wasm.js) is what a page downloads for the models it runs; the single-file
 *  embed carries only the full one. */
export function coreBuildAvailable() {
  return !inline?.wasm;
}

/** The encoder build (js/api/wasm.js) likewise. */
export function encoderBuildAvailable() {
  return !inline?.wasm;
}

/** Options for the Emscripten factory: compile the wasm while it streams in. The builds of each
 *  kind share one JavaScript glue (same sources and link flags), so the first that can be fetched
 *  serves: the relaxed one where the browser validates it, else the plain one; for the core kind
 *  the full builds after its own (a site that copied only attnscope[-relaxed].wasm keeps
 *  working), and for the encoder kind (no relaxed twin: build_features.h) the core ones after
 *  its own. The threaded kind (attnscope-mt.*) also names its pthread worker script and the glue
 *  each worker imports: inside a bundle the glue's own URL is the bundle's. The URLs are written
 *  out literally for the bundlers (see the top of this file). */
export async function wasmModuleOptions({ threaded = false, core = false, encoder = false } = {}) {
  const relaxed = relaxedSimdSupported();
  const plainUrl = new URL('../dist/attnscope.wasm', import.meta.url);
  const full = [relaxed && new URL('../dist/attnscope-relaxed.wasm', import.meta.url), plainUrl];
  const coreUrls = [relaxed && new URL('../dist/attnscope-core-relaxed.wasm', import.meta.url),
    new URL('../dist/attnscope-core.wasm', import.meta.url), ...full];
  const urls = threaded ? [relaxed && new URL('../dist/attnscope-mt-relaxed.wasm', import.meta.url),
    new URL('../dist/attnscope-mt.wasm', import.meta.url)]
    : encoder ? [new URL('../dist/attnscope-encoder.wasm', import.meta.url), ...coreUrls]
      : core ? coreUrls : full;
  let module = null, lastError = null;
  if (inline?.wasm && !threaded) module = await WebAssembly.compile(decodeBase64(inline.wasm));
  for (const url of urls.filter(Boolean)) {
    if (module) break;
    try {
      module = await compileFrom(url);
    } catch (error) {
      lastError = error;
    }
  }
  if (!module) {
    throw new AttnScopeError('E_NETWORK', `cannot load the AttnScope wasm from ${urls.at(-1)}: ${lastError.message}`);
  }
  const options = {
    instantiateWasm(imports, receiveInstance) {
      WebAssembly.instantiate(module, imports).then((instance) => receiveInstance(instance, module));
      return {};
    },
  };
  if (threaded) {
    const worker = new URL('../dist/attnscope-mt.worker.js', import.meta.url).href;
    options.locateFile = (path) => (path.endsWith('.worker.js') ? worker : path);
    options.mainScriptUrlOrBlob = new URL('../dist/attnscope-mt.mjs', import.meta.url).href;
  }
  return options;
}

/** Threads need a SharedArrayBuffer, which browsers give only to cross-origin isolated pages
 *  (COOP + COEP); the single-file embed has no threaded build. Default: the cores, capped. */
export function threadSupport() {
  const available = typeof SharedArrayBuffer === 'function' && globalThis.crossOriginIsolated === true && !inline?.wasm;
  return { available, defaultThreads: available ? Math.max(1, Math.min(globalThis.navigator?.hardwareConcurrency ?? 1, 8)) : 1 };
}

async function compileFrom(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  const streamable = typeof WebAssembly.compileStreaming === 'function' &&
    (response.headers.get('content-type') || '').startsWith('application/wasm');
  return streamable ? WebAssembly.compileStreaming(response) : WebAssembly.compile(await response.arrayBuffer());
}

export function env() {
  return undefined;
}

// The bundled models: one literal URL per file so bundlers emit each as an asset (after a build
// they are separate hashed files, so there is no folder URL to write here). Only the files the
// loader reads: the decoder's tokenizer.json makes its vocab.json + merges.txt unnecessary.
const bundledFiles = {
  [BUNDLED_MODEL]: {
    'config.json': new URL('../model/config.json', import.meta.url),
    'model.safetensors': new URL('../model/model.safetensors', import.meta.url),
    'vocab.txt': new URL('../model/vocab.txt', import.meta.url),
    'tokenizer_config.json': new URL('../model/tokenizer_config.json', import.meta.url),
  },
  [BUNDLED_CAUSAL_MODEL]: {
    'config.json': new URL('../model-causal/config.json', import.meta.url),
    'model.safetensors': new URL('../model-causal/model.safetensors', import.meta.url),
    'tokenizer.json': new URL('../model-causal/tokenizer.json', import.meta.url),
    'tokenizer_config.json': new URL('../model-causal/tokenizer_config.json', import.meta.url),
  },
  // heldout.jsonl is not read by the loader: it is the known alignment the page overlays on the
  // cross-attention, found through bundledModelFile().
  [BUNDLED_SEQ2SEQ_MODEL]: {
    'config.json': new URL('../model-seq2seq/config.json', import.meta.url),
    'model.safetensors': new URL('../model-seq2seq/model.safetensors', import.meta.url),
    'tokenizer.json': new URL('../model-seq2seq/tokenizer.json', import.meta.url),
    'tokenizer_config.json': new URL('../model-seq2seq/tokenizer_config.json', import.meta.url),
    'heldout.jsonl': new URL('../model-seq2seq/heldout.jsonl', import.meta.url),
  },
};
const folderOf = (files) => files['config.json'].href.replace(/config\.json$/, '');

/** The URL of the bundled config.json's folder (unbundled), or of config.json itself (bundled). */
export const bundledModelLocation = folderOf(bundledFiles[BUNDLED_MODEL]);
export const bundledModelLocations = Object.freeze({
  [BUNDLED_MODEL]: bundledModelLocation,
  [BUNDLED_CAUSAL_MODEL]: folderOf(bundledFiles[BUNDLED_CAUSAL_MODEL]),
  [BUNDLED_SEQ2SEQ_MODEL]: folderOf(bundledFiles[BUNDLED_SEQ2SEQ_MODEL]),
});

/** The URL of one file of a bundled model (e.g. 'bundled-seq2seq', 'heldout.jsonl'), or null. */
export function bundledModelFile(name, file) {
  return bundledFiles[name]?.[file]?.href ?? null;
}

/** A bundled model (one of BUNDLED_MODEL_IDS); the single-file build inlines one of them. */
export function bundledModelProvider(name = BUNDLED_MODEL) {
  if (inline?.model && (inline.modelName ?? BUNDLED_MODEL) === name) return inlineModelProvider(inline.model);
  const files = bundledFiles[name];
  return httpProvider((file) => files[file] ?? null, { kind: 'bundled', location: bundledModelLocations[name] });
}

/** Browsers have no local folders: paths are URLs relative to the page. */
export async function localPathFor() {
  return null;
}

export function directoryProvider(dir) {
  throw new AttnScopeError('E_INPUT', `a local folder (${dir}) can only be loaded in Node; pass a URL or Files`);
}

export function createWorker() {
  const worker = embedWorker ? startEmbedWorker() : new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  return {
    postMessage: (message, transfer) => worker.postMessage(message, transfer),
    onMessage: (handler) => worker.addEventListener('message', (event) => handler(event.data)),
    onError: (handler) => worker.addEventListener('error', (event) => {
      event.preventDefault?.();
      // A worker that never starts only says "error"; for a Blob worker the usual cause is a CSP.
      handler(new Error(event.message || (embedWorker ? BLOB_WORKER_REFUSED : 'worker failed to start')));
    }),
    terminate: () => worker.terminate(),
    unref: () => {},
    ref: () => {},
  };
}

export function workerPort() {
  return {
    postMessage: (message, transfer) => self.postMessage(message, transfer),
    onMessage: (handler) => self.addEventListener('message', (event) => handler(event.data)),
  };
}

// ---- <attn-scope>'s worker -------------------------------------------------------------------
// The element's bundle (scripts/build-embed.mjs) carries js/worker.js as one classic script and
// starts it from a Blob URL, so it works on any host and from file:// (Chromium refuses module
// workers from blob: URLs there). A Blob worker has no useful import.meta.url: that bundle reads
// it from __attnscopeModuleUrl, set by a line put before the script, which in the single-file
// build also sets __attnscopeInline, the wasm and bundled model as base64.

let embedWorker = null;   // { source, moduleUrl, inline } once the element's entry set it
const BLOB_WORKER_REFUSED = 'the AttnScope worker could not start (a Content-Security-Policy must allow worker-src blob:)';
// eslint-disable-next-line no-undef -- set by the line before the embed worker's script
const inline = typeof __attnscopeInline === 'undefined' ? null : __attnscopeInline;

/**
 * The element's entry: workers run `source` (the bundled js/worker.js) from a Blob URL, with
 * `moduleUrl` standing for this file's URL in the package layout (the wasm is ../dist/, the
 * bundled model ../model/) and `inlineAssets` ({wasm, model: {config, weights, vocab,
 * tokenizerConfig}} as base64) for a build that carries them.
 */
export function useEmbedWorker({ source, moduleUrl, inlineAssets = null }) {
  embedWorker = { source, moduleUrl, inlineAssets };
}

function startEmbedWorker() {
  const { source, moduleUrl, inlineAssets } = embedWorker;
  const prelude = `var __attnscopeModuleUrl = ${JSON.stringify(String(moduleUrl))};\n` +
    (inlineAssets ? `var __attnscopeInline = ${JSON.stringify(inlineAssets)};\n` : '');
  const url = URL.createObjectURL(new Blob([prelude, source], { type: 'text/javascript' }));
  try {
    return new Worker(url, { name: 'attnscope-engine' });
  } catch (error) {
    URL.revokeObjectURL(url);
    throw new AttnScopeError('E_INTERNAL', `${BLOB_WORKER_REFUSED}: ${error.message}`);
  } finally {
    setTimeout(() => URL.revokeObjectURL(url), 60000);   // long after the worker fetched it
  }
}

// The single-file build's model, decoded file by file as the loader asks for it.
const INLINE_FILES = { 'config.json': 'config', 'model.safetensors': 'weights', 'vocab.txt': 'vocab',
  'tokenizer.json': 'tokenizer', 'tokenizer_config.json': 'tokenizerConfig' };

function inlineModelProvider(files) {
  return {
    kind: 'bundled',
    location: 'inline',
    describe: (name) => `${name} (inline)`,
    async check() {},
    async open(name) {
      const b64 = files[INLINE_FILES[name]];
      if (!b64) return null;
      const bytes = decodeBase64(b64);
      return { size: bytes.byteLength, chunks: (async function* () { yield bytes; })() };
    },
  };
}

function decodeBase64(b64) {
  const binary = atob(b64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
