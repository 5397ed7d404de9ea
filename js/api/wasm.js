// Instantiates the Emscripten module once per JavaScript realm (page, worker or Node process) and
// kind: the plain build, the threaded one (pthreads over a shared memory) for models that run on
// more than one thread, the core one (engine/build_features.h: the plain build without the int8
// GEMM and the encoder–decoders, a third lighter to download) or the encoder one (the core build
// without the decoders and every tokenizer but WordPiece: BERT and DistilBERT) for the models
// they run where the platform offers them (browsers). Every model lives in one of them. How the
// wasm bytes are found is the platform's business.
import createAttnScopeModule from '../../dist/attnscope.mjs';
import { AttnScopeError, toAttnScopeError } from '../formats/errors.js';
import { coreBuildAvailable, encoderBuildAvailable, relaxedSimdSupported, threadSupport, wasmModuleOptions } from '#platform';

const modulePromises = { plain: null, threaded: null, core: null, encoder: null };

// The model types of the encoder–decoders (the engine's is_seq2seq_config; a test checks they
// agree): the core build has none of them.
export const SEQ2SEQ_MODEL_TYPES = Object.freeze(['bart', 'marian', 't5']);

/**
 * Whether the core build runs the model of this config.json (text) at this weight precision
 * (as asked: 'auto' never means int8): anything but an encoder–decoder or 'q8'. A config that is
 * not JSON is the core build's to refuse with the usual E_CONFIG.
 */
export function coreBuildRuns(configText, weightPrecision) {
  if (weightPrecision === 'q8') return false;
  let modelType;
  try {
    modelType = JSON.parse(configText)?.model_type;
  } catch {
    return true;
  }
  return !SEQ2SEQ_MODEL_TYPES.includes(modelType);
}

// The model types the encoder build runs: the BERT family's WordPiece ones (RoBERTa's tokenizer is
// byte-level BPE, which only the core build has).
export const ENCODER_BUILD_MODEL_TYPES = Object.freeze(['bert', 'distilbert']);

// The encoder build has no relaxed-SIMD twin (the f32 GEMM's fused multiply-add, 1.2–1.4× faster
// on Intel): its lighter download is worth that only for a model whose weights are small, as the
// ones an embed shows, which run in milliseconds either way. Above this many parameters in its
// matrices (64 MB in f32, against ~80 KB the encoder build saves) a browser with relaxed SIMD
// takes the core build's relaxed twin.
export const ENCODER_BUILD_MAX_PARAMETERS = 16e6;

/**
 * Whether the encoder build runs the model of this config.json (text) at this weight precision:
 * a BERT or DistilBERT, not int8, and (where relaxed SIMD is there to be used) a small one. A
 * config without a model_type goes to the core build, whose reader infers one; one that is not
 * JSON too (the core build's E_CONFIG names what is wrong). A tokenizer the choice could not
 * foresee (a BERT with a BPE tokenizer.json) is refused by the encoder build with E_CONFIG, and
 * js/api/load.js then loads the model on the core build.
 */
export function encoderBuildRuns(configText, weightPrecision, { relaxed = relaxedSimdSupported() } = {}) {
  if (weightPrecision === 'q8') return false;
  let hf;
  try {
    hf = JSON.parse(configText);
  } catch {
    return false;
  }
  if (!ENCODER_BUILD_MODEL_TYPES.includes(hf?.model_type)) return false;
  return !relaxed || !(encoderMatrixParameters(hf) > ENCODER_BUILD_MAX_PARAMETERS);
}

// The parameters in a BERT's or DistilBERT's matrices (word embeddings; per layer Q, K, V, O and
// the feed-forward pair), from config.json's keys as transformers names them; NaN where a size is
// missing (the engine's reader then says which).
function encoderMatrixParameters(hf) {
  const distil = hf.model_type === 'distilbert';
  const V = hf.vocab_size, C = distil ? hf.dim : hf.hidden_size;
  const L = distil ? hf.n_layers : hf.num_hidden_layers, F = distil ? hf.hidden_dim : hf.intermediate_size;
  return V * C + L * (4 * C * C + 2 * C * F);
}

/** Whether an engine error says the build it ran on left out what the model needs
 *  (engine/build_features.h's throw_not_in_build: E_CONFIG, "… is not in the <name> wasm build"). */
export function notInThisBuild(error) {
  return error?.code === 'E_CONFIG' && / is not in the \w+ wasm build /.test(error.message);
}

/**
 * The instantiated module for a model running on `threads` threads (shared by all models of this
 * realm that use the same kind). More than one thread where the platform has no shared memory
 * gives the plain module (the model then runs on one thread). `encoder` (encoderBuildRuns said
 * so) or `core` (coreBuildRuns said so) on one thread gives that module where the platform offers
 * it, else the next larger one.
 */
export function getWasmModule({ threads = 1, core = false, encoder = false } = {}) {
  const kind = threads > 1 && threadSupport().available ? 'threaded'
    : encoder && encoderBuildAvailable() ? 'encoder'
      : (core || encoder) && coreBuildAvailable() ? 'core' : 'plain';
  modulePromises[kind] ??= instantiate(kind, threads).catch((error) => {
    modulePromises[kind] = null; // let a later call retry (e.g. after a network failure)
    throw toAttnScopeError(error);
  });
  return modulePromises[kind];
}

/**
 * The threads a model asks for: a positive integer, or by default what the platform offers
 * (Node: the cores; a cross-origin isolated page: navigator.hardwareConcurrency, capped; else 1).
 */
export function resolveThreads(requested) {
  if (requested === undefined) return threadSupport().defaultThreads;
  if (!Number.isInteger(requested) || requested < 1 || requested > 256) {
    throw new AttnScopeError('E_INPUT', `threads must be an integer from 1 to 256, got ${JSON.stringify(requested)}`);
  }
  return requested;
}

async function instantiate(kind, threads) {
  const threaded = kind === 'threaded';
  const options = await wasmModuleOptions({ threaded, core: kind === 'core', encoder: kind === 'encoder' });
  // The threaded glue is fetched by URL when first needed, never bundled: it is what each pthread
  // worker imports too, and a bundler splitting it into a chunk breaks worker builds (Vite's
  // default iife workers).
  const factory = threaded
    ? (await import(/* @vite-ignore */ /* webpackIgnore: true */ options.mainScriptUrlOrBlob)).default
    : createAttnScopeModule;
  // The pthread workers are started before the module resolves (the engine blocks while they
  // work, so a worker started later could never finish loading); the first threaded model's
  // request or the platform's default, whichever is larger, sizes the pool for the realm.
  const poolSize = threaded ? Math.max(threads, threadSupport().defaultThreads) - 1 : 0;
  const module = await new Promise((resolve, reject) => {
    factory({
      ...options,
      pthreadPoolSize: poolSize,
      onAbort: (what) => reject(new Error(`WebAssembly module aborted: ${what}`)),
      print: () => {},
      printErr: () => {},
    }).then(resolve, reject);
  });
  if (threaded) module.setMaxThreads(poolSize + 1);
  return module;
}

/**
 * Runs a call into wasm; a C++ error arrives as an Error with .code and is re-thrown typed. A trap
 * (WebAssembly.RuntimeError: the engine's own checks missed something) leaves the module's memory
 * in an unknown state, where later calls have spun or trapped again: the realm's modules are
 * discarded, so every model loaded before refuses further calls (checkEngineAlive) and the next
 * load instantiates a fresh module.
 */
export function callWasm(fn) {
  try {
    return fn();
  } catch (error) {
    if (typeof WebAssembly !== 'undefined' && error instanceof WebAssembly.RuntimeError) discardModules(error);
    throw toAttnScopeError(error);
  }
}

let engineEpoch = 0, lastTrap = null;

function discardModules(trap) {
  engineEpoch++;
  lastTrap = trap;
  modulePromises.plain = modulePromises.threaded = modulePromises.core = modulePromises.encoder = null;
}

/** The engine generation a model is loaded into: models compare it with checkEngineAlive(). */
export function currentEngineEpoch() {
  return engineEpoch;
}

/** E_INTERNAL when the module a model lives in was discarded after a trap (see callWasm). */
export function checkEngineAlive(epoch) {
  if (epoch === engineEpoch) return;
  throw new AttnScopeError('E_INTERNAL', `the engine this model was loaded into trapped (${lastTrap?.message ?? 'a ' +
    'WebAssembly trap'}) and was discarded: this model cannot run any more; load it again`, { cause: lastTrap });
}
