// The '#platform' module of the embed's engine worker (scripts/build-embed.mjs swaps it in for
// js/platform-browser.js). The worker starts from a Blob URL, so nothing can be found relative
// to import.meta.url: the page sends the wasm (bytes or an absolute URL) in an 'init' message.
import { AttnScopeError } from '../../js/errors.js';

export const platformName = 'browser';

let wasmSource = null;   // ArrayBuffer (single-file build) or absolute URL string

/** Called once by the engine worker before any model loads. */
export function setWasmSource(source) {
  wasmSource = source;
}

export async function wasmModuleOptions() {
  let module;
  try {
    if (wasmSource instanceof ArrayBuffer) {
      module = await WebAssembly.compile(wasmSource);
    } else if (typeof wasmSource === 'string') {
      const response = await fetch(wasmSource);
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      module = await WebAssembly.compile(await response.arrayBuffer());
    } else {
      throw new Error('the embed worker was not told where the wasm is');
    }
  } catch (error) {
    throw new AttnScopeError('E_NETWORK', `cannot load the AttnScope wasm: ${error.message}`);
  }
  return {
    // Without locateFile, Emscripten resolves "attnscope.wasm" against import.meta.url, which
    // throws for a blob: URL; the name is never fetched (instantiateWasm supplies the module).
    locateFile: (name) => name,
    instantiateWasm(imports, receiveInstance) {
      WebAssembly.instantiate(module, imports).then((instance) => receiveInstance(instance, module));
      return {};
    },
  };
}

export function env() {
  return undefined;
}

// The embed never asks the loader for "bundled": engine.js resolves it to files or a URL first.
export const bundledModelLocation = '';

export function bundledModelProvider() {
  throw new AttnScopeError('E_INTERNAL', 'the embed resolves the bundled model itself');
}

export async function localPathFor() {
  return null;
}

export function directoryProvider(dir) {
  throw new AttnScopeError('E_INPUT', `a local folder (${dir}) cannot be loaded in a browser`);
}

export function createWorker() {
  throw new AttnScopeError('E_INTERNAL', 'the embed worker does not start workers');
}

export function workerPort() {
  return {
    postMessage: (message, transfer) => self.postMessage(message, transfer),
    onMessage: (handler) => self.addEventListener('message', (event) => handler(event.data)),
  };
}
