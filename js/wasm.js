// Instantiates the Emscripten module once per JavaScript realm (page, worker or Node process);
// every Model object lives in it. How the wasm bytes are found is the platform's business.
import createAttnScopeModule from '../dist/attnscope.mjs';
import { toAttnScopeError } from './errors.js';
import { wasmModuleOptions } from '#platform';

let modulePromise = null;

/** The instantiated module (shared by all models of this realm). */
export function getWasmModule() {
  modulePromise ??= instantiate().catch((error) => {
    modulePromise = null; // let a later call retry (e.g. after a network failure)
    throw toAttnScopeError(error);
  });
  return modulePromise;
}

async function instantiate() {
  const options = await wasmModuleOptions();
  return new Promise((resolve, reject) => {
    createAttnScopeModule({
      ...options,
      onAbort: (what) => reject(new Error(`WebAssembly module aborted: ${what}`)),
      print: () => {},
      printErr: () => {},
    }).then(resolve, reject);
  });
}

/** Runs a call into wasm; a C++ error arrives as an Error with .code and is re-thrown typed. */
export function callWasm(fn) {
  try {
    return fn();
  } catch (error) {
    throw toAttnScopeError(error);
  }
}
