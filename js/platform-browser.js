// What differs in browsers and bundlers (package.json "imports" → "#platform", default
// condition). The `new URL('…', import.meta.url)` expressions are written out literally so
// Vite, webpack and esbuild-based tools find the wasm, the worker and the bundled model files
// with no configuration.
import { AttnScopeError } from './errors.js';
import { httpProvider } from './http-provider.js';

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

/** Options for the Emscripten factory: compile the wasm while it streams in. The two builds
 *  share one JavaScript glue (same sources and link flags; only the GEMM's multiply-add differs),
 *  so the relaxed one falls back to the plain one if it cannot be fetched (a copy without it). */
export async function wasmModuleOptions() {
  const plainUrl = new URL('../dist/attnscope.wasm', import.meta.url);
  let module;
  if (relaxedSimdSupported()) {
    try {
      module = await compileFrom(new URL('../dist/attnscope-relaxed.wasm', import.meta.url));
    } catch {
      module = null;
    }
  }
  try {
    module ??= await compileFrom(plainUrl);
  } catch (error) {
    throw new AttnScopeError('E_NETWORK', `cannot load the AttnScope wasm from ${plainUrl}: ${error.message}`);
  }
  return {
    instantiateWasm(imports, receiveInstance) {
      WebAssembly.instantiate(module, imports).then((instance) => receiveInstance(instance, module));
      return {};
    },
  };
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

// The bundled model: one literal URL per file so bundlers emit each as an asset (after a build
// they are separate hashed files, so there is no folder URL to write here).
const bundledFiles = {
  'config.json': new URL('../model/config.json', import.meta.url),
  'model.safetensors': new URL('../model/model.safetensors', import.meta.url),
  'vocab.txt': new URL('../model/vocab.txt', import.meta.url),
  'tokenizer_config.json': new URL('../model/tokenizer_config.json', import.meta.url),
};

/** The URL of the bundled config.json's folder (unbundled), or of config.json itself (bundled). */
export const bundledModelLocation = bundledFiles['config.json'].href.replace(/config\.json$/, '');

export function bundledModelProvider() {
  return httpProvider((name) => bundledFiles[name] ?? null, { kind: 'bundled', location: bundledModelLocation });
}

/** Browsers have no local folders: paths are URLs relative to the page. */
export async function localPathFor() {
  return null;
}

export function directoryProvider(dir) {
  throw new AttnScopeError('E_INPUT', `a local folder (${dir}) can only be loaded in Node; pass a URL or Files`);
}

export function createWorker() {
  const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  return {
    postMessage: (message, transfer) => worker.postMessage(message, transfer),
    onMessage: (handler) => worker.addEventListener('message', (event) => handler(event.data)),
    onError: (handler) => worker.addEventListener('error', (event) => {
      event.preventDefault?.();
      handler(new Error(event.message || 'worker failed to start'));
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
