// What differs in browsers and bundlers (package.json "imports" → "#platform", default
// condition). The `new URL('…', import.meta.url)` expressions are written out literally so
// Vite, webpack and esbuild-based tools find the wasm, the worker and the bundled model files
// with no configuration.
import { AttnScopeError } from './errors.js';
import { httpProvider } from './http-provider.js';

export const platformName = 'browser';

/** Options for the Emscripten factory: compile the wasm while it streams in. */
export async function wasmModuleOptions() {
  const wasmUrl = new URL('../dist/attnscope.wasm', import.meta.url);
  let module;
  try {
    const response = await fetch(wasmUrl);
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const streamable = typeof WebAssembly.compileStreaming === 'function' &&
      (response.headers.get('content-type') || '').startsWith('application/wasm');
    module = streamable ? await WebAssembly.compileStreaming(response)
      : await WebAssembly.compile(await response.arrayBuffer());
  } catch (error) {
    throw new AttnScopeError('E_NETWORK', `cannot load the AttnScope wasm from ${wasmUrl}: ${error.message}`);
  }
  return {
    instantiateWasm(imports, receiveInstance) {
      WebAssembly.instantiate(module, imports).then((instance) => receiveInstance(instance, module));
      return {};
    },
  };
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
