// What differs in Node (picked through package.json "imports" → "#platform", condition "node"):
// the wasm bytes come from the file system, local folders are model sources, the bundled model
// is model/ at the package root, and workers are worker_threads.
import { readFile, stat } from 'node:fs/promises';
import { createReadStream } from 'node:fs';
import { resolve as resolvePath, join } from 'node:path';
import { availableParallelism, homedir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker, parentPort } from 'node:worker_threads';
import { setFlagsFromString } from 'node:v8';

import { AttnScopeError, abortedError } from './formats/errors.js';
import { BUNDLED_CAUSAL_MODEL, BUNDLED_MODEL, BUNDLED_SEQ2SEQ_MODEL } from './api/bundled-models.js';
import { startWorkerWithProcessFlags } from './api/node-worker-flags.js';

export const platformName = 'node';

// A function computing f32x4.relaxed_madd(a, b, c) (js/platform-browser.js has the same probe).
const RELAXED_SIMD_PROBE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 8, 1, 0x60, 3, 0x7b, 0x7b, 0x7b, 1,
  0x7b, 3, 2, 1, 0, 10, 13, 1, 11, 0, 0x20, 0, 0x20, 1, 0x20, 2, 0xfd, 0x85, 0x02, 0x0b]);
const validates = (bytes) => {
  try {
    return WebAssembly.validate(bytes);
  } catch {
    return false;
  }
};

/**
 * Whether this process runs the relaxed-SIMD build (the GEMMs on FMA and the int8 relaxed dot,
 * what Chromium runs). Node 20 (V8 11.3) has relaxed SIMD behind --experimental-wasm-relaxed-simd;
 * V8 reads wasm feature flags when it validates a module, so turning the flag on here, before the
 * first compile, enables it for this process and its worker threads (the pthread workers receive
 * the compiled module). Only a probe that then validates counts. ATTNSCOPE_RELAXED_SIMD=0 keeps
 * the plain build (to compare the two, or if a Node version mis-handles the flag).
 */
export function relaxedSimdSupported() {
  if (process.env.ATTNSCOPE_RELAXED_SIMD === '0') return false;
  if (validates(RELAXED_SIMD_PROBE)) return true;
  try {
    setFlagsFromString('--experimental-wasm-relaxed-simd');
  } catch {
    return false;
  }
  return validates(RELAXED_SIMD_PROBE);
}

/** The core build (js/api/wasm.js) saves a download, which Node does not make: it runs the full
 *  build, one module for every model of the process, unless ATTNSCOPE_CORE_BUILD=1 asks for the
 *  core one where it applies (tests/js/core-build.test.js compares the two). */
export function coreBuildAvailable() {
  return process.env.ATTNSCOPE_CORE_BUILD === '1';
}

/** The encoder build likewise, where ATTNSCOPE_ENCODER_BUILD=1 asks for it (core-build.test.js). */
export function encoderBuildAvailable() {
  return process.env.ATTNSCOPE_ENCODER_BUILD === '1';
}

/** Options for the Emscripten factory: Emscripten 3.1.6's own Node path is broken on Node 20, so
 *  the module loads through its web path with the bytes read here. The two builds of each kind
 *  share one JavaScript glue, so the relaxed one is taken where it validates whole, else the
 *  plain one. The threaded build's pthread workers are worker_threads dressed as Web Workers
 *  (node-pthread-worker.js). */
export async function wasmModuleOptions({ threaded = false, core = false, encoder = false } = {}) {
  const dist = new URL('../dist/', import.meta.url);
  const read = (name) => readFile(fileURLToPath(new URL(name, dist)));
  let wasmBinary = null;
  if (relaxedSimdSupported() && !encoder) {  // the encoder build has no relaxed twin
    try {
      wasmBinary = await read(threaded ? 'attnscope-mt-relaxed.wasm' : core ? 'attnscope-core-relaxed.wasm' : 'attnscope-relaxed.wasm');
      if (!validates(wasmBinary)) wasmBinary = null;
    } catch {
      wasmBinary = null;  // a copy without the relaxed build
    }
  }
  const wasmPath = fileURLToPath(new URL(threaded ? 'attnscope-mt.wasm' : encoder ? 'attnscope-encoder.wasm'
    : core ? 'attnscope-core.wasm' : 'attnscope.wasm', dist));
  try {
    wasmBinary ??= await readFile(wasmPath);
  } catch (error) {
    throw new AttnScopeError('E_INTERNAL', `cannot read ${wasmPath} (run scripts/build.sh wasm): ${error.message}`);
  }
  if (!threaded) return { wasmBinary };
  globalThis.Worker ??= PthreadWorker;
  return {
    wasmBinary,
    locateFile: (path) => new URL(path, dist).href,            // attnscope-mt.worker.js
    mainScriptUrlOrBlob: new URL('attnscope-mt.mjs', dist).href,  // what each pthread worker imports
  };
}

/** Threads in Node: always available (SharedArrayBuffer, worker_threads); by default as many as
 *  the process may use (os.availableParallelism), capped. */
export function threadSupport() {
  return { available: typeof SharedArrayBuffer === 'function', defaultThreads: Math.min(availableParallelism(), 16) };
}

/** The Web Worker interface Emscripten's pthread code uses, over a worker_threads Worker. */
class PthreadWorker {
  constructor(url) {
    this.worker = new Worker(new URL('./node-pthread-worker.js', import.meta.url), {
      workerData: { script: String(url) },
      execArgv: [],  // the process's flags are not all valid for a worker (--input-type, --expose-gc)
    });
    this.worker.on('message', (data) => {
      // Idle pthread workers must not keep the process alive, but a loading one must (the module
      // waits for it): let go of it once it reports the module loaded.
      if (data?.cmd === 'loaded') this.worker.unref();
      this.onmessage?.({ data });
    });
    this.worker.on('error', (error) => this.onerror?.(error));
  }
  postMessage(message, transfer) {
    this.worker.postMessage(message, transfer);
  }
  terminate() {
    return this.worker.terminate();
  }
}

export function env(name) {
  return process.env[name];
}

export const bundledModelLocation = fileURLToPath(new URL('../model', import.meta.url));
/** The bundled models' folders by name: the BERT ('bundled'), the GPT-2 ('bundled-causal') and the
 *  T5 ('bundled-seq2seq'). */
export const bundledModelLocations = Object.freeze({
  [BUNDLED_MODEL]: bundledModelLocation,
  [BUNDLED_CAUSAL_MODEL]: fileURLToPath(new URL('../model-causal', import.meta.url)),
  [BUNDLED_SEQ2SEQ_MODEL]: fileURLToPath(new URL('../model-seq2seq', import.meta.url)),
});

/** The path of one file of a bundled model (e.g. 'bundled-seq2seq', 'heldout.jsonl'), or null. */
export function bundledModelFile(name, file) {
  return bundledModelLocations[name] ? join(bundledModelLocations[name], file) : null;
}

/** A bundled model's folder as a source (one of BUNDLED_MODEL_IDS). */
export function bundledModelProvider(name = BUNDLED_MODEL) {
  return directoryProvider(bundledModelLocations[name], 'bundled');
}

/**
 * A string names a local folder when it is an existing directory, or is written like a path
 * ('/x', './x', '../x', '~/x', 'C:\x', 'file:'), so a typo gives E_NOT_FOUND, not a hub request.
 */
export async function localPathFor(source) {
  if (source.startsWith('file:')) return fileURLToPath(source);
  const expanded = source === '~' || source.startsWith('~/') ? join(homedir(), source.slice(1)) : source;
  if (/^(\/|\.\.?([\\/]|$)|~|[A-Za-z]:[\\/])/.test(source)) return resolvePath(expanded);
  try {
    if ((await stat(expanded)).isDirectory()) return resolvePath(expanded);
  } catch {
    // not a local directory: a hub id
  }
  return null;
}

/** Files of a Hugging Face layout folder on disk. */
export function directoryProvider(dir, kind = 'dir') {
  const location = resolvePath(dir);
  return {
    kind,
    location,
    describe: (name) => join(location, name),
    async check() {
      let info;
      try {
        info = await stat(location);
      } catch {
        throw new AttnScopeError('E_NOT_FOUND', `model folder not found: ${location}`);
      }
      if (!info.isDirectory()) throw new AttnScopeError('E_NOT_FOUND', `not a folder: ${location}`);
    },
    async open(name, { signal } = {}) {
      const path = join(location, name);
      let info;
      try {
        info = await stat(path);
      } catch {
        return null;
      }
      if (!info.isFile()) return null;
      return { size: info.size, chunks: fileChunks(path, signal) };
    },
  };
}

async function* fileChunks(path, signal) {
  const stream = createReadStream(path, { highWaterMark: 1 << 20 });
  try {
    for await (const chunk of stream) {
      if (signal?.aborted) throw abortedError(signal.reason);
      yield new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    }
  } finally {
    stream.destroy();
  }
}

/** A worker_threads Worker running js/worker.js, behind the same small interface as the browser's. */
export function createWorker() {
  // The process's Node flags that a worker can take (not --expose-gc, --input-type, …).
  const worker = startWorkerWithProcessFlags(new URL('./worker.js', import.meta.url));
  return {
    postMessage: (message, transfer) => worker.postMessage(message, transfer),
    onMessage: (handler) => worker.on('message', handler),
    onError: (handler) => {
      worker.on('error', handler);
      worker.on('exit', (code) => handler(new Error(`worker exited with code ${code}`)));
    },
    terminate: () => worker.terminate(),
    unref: () => worker.unref(),
    ref: () => worker.ref(),
  };
}

/** Inside js/worker.js: the channel to the client. */
export function workerPort() {
  if (!parentPort) throw new AttnScopeError('E_INTERNAL', 'js/worker.js must run in a worker thread');
  return {
    postMessage: (message, transfer) => parentPort.postMessage(message, transfer),
    onMessage: (handler) => parentPort.on('message', handler),
  };
}
