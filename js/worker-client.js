// 'attnscope/worker': the same async surface as a Model, run in a Web Worker (browser) or a
// worker_thread (Node), so the page stays responsive. Jobs queue here, one at a time in the
// worker; a queued job can be cancelled (signal, cancel(), or a newer run with replacePending),
// and an AbortSignal also interrupts a load that is downloading.
import { AttnScopeError, abortedError } from './errors.js';
import { RunResult } from './result.js';
import { createWorker } from '#platform';

const RUN_OPTIONS = ['textPair', 'maxLength', 'hiddenStates', 'qkv', 'valueNorms', 'topK', 'tokenTypes', 'attentionMask'];
const LOAD_OPTIONS = ['hubUrl', 'revision', 'cache'];

/** Starts a worker; see worker-client.d.ts. */
export function createWorkerClient() {
  const worker = createWorker();
  let nextId = 1;
  let active = null;
  const queue = [];
  let failure = null; // set once the worker is gone: every later call rejects with it

  worker.unref(); // an idle client must not keep a Node process alive
  worker.onMessage((message) => {
    if (!active || message.id !== active.id) return;
    if (message.type === 'progress') {
      active.onProgress?.(message.progress);
      return;
    }
    const job = active;
    active = null;
    settle(job, message.type === 'error'
      ? { error: new AttnScopeError(message.error.code, message.error.message) }
      : { value: job.wrap(message.value) });
    pump();
  });
  worker.onError((error) => shutDown(new AttnScopeError('E_INTERNAL', `the AttnScope worker failed: ${error.message}`)));

  function settle(job, { value, error }) {
    job.signal?.removeEventListener('abort', job.onAbort);
    if (error) job.reject(error);
    else job.resolve(value);
  }

  function pump() {
    if (active || queue.length === 0) {
      if (!active) worker.unref();
      return;
    }
    active = queue.shift();
    worker.ref();
    worker.postMessage({ id: active.id, type: active.type, ...active.payload }, active.transfer);
  }

  function enqueue(type, payload, { signal, onProgress, replacePending = false, transfer = [] } = {}, wrap = (v) => v) {
    if (failure) return Promise.reject(failure);
    if (signal?.aborted) return Promise.reject(abortedError(signal.reason));
    if (replacePending) {
      cancelQueued((job) => job.type === 'run' || job.type === 'runIds',
        () => new AttnScopeError('E_ABORTED', 'cancelled: superseded by a newer run'));
    }
    return new Promise((resolve, reject) => {
      const job = { id: nextId++, type, payload, transfer, onProgress, wrap, resolve, reject, signal };
      job.onAbort = () => {
        const at = queue.indexOf(job);
        if (at >= 0) {
          queue.splice(at, 1);
          settle(job, { error: abortedError(signal.reason) });
        } else if (active === job && type === 'load') {
          worker.postMessage({ type: 'abort', target: job.id });
        }
        // A run already executing finishes (wasm cannot be interrupted); its result still arrives.
      };
      signal?.addEventListener('abort', job.onAbort, { once: true });
      queue.push(job);
      pump();
    });
  }

  function cancelQueued(predicate, makeError) {
    for (const job of queue.filter(predicate)) {
      queue.splice(queue.indexOf(job), 1);
      settle(job, { error: makeError() });
    }
  }

  function shutDown(error) {
    if (failure) return;
    failure = error;
    cancelQueued(() => true, () => error);
    if (active) {
      const job = active;
      active = null;
      settle(job, { error });
    }
  }

  return {
    /** Loads a model in the worker (replacing the previous one); resolves to model.info. */
    load(source, options = {}) {
      return enqueue('load', { source: postableSource(source), options: pick(options, LOAD_OPTIONS) }, options);
    },
    run(text, options = {}) {
      if (options?.reuse !== undefined) return Promise.reject(reuseError());
      return enqueue('run', { text, options: pick(options, RUN_OPTIONS) }, options, (v) => new RunResult(v));
    },
    runIds(ids, options = {}) {
      if (options?.reuse !== undefined) return Promise.reject(reuseError());
      return enqueue('runIds', { ids: Array.from(ids ?? []), options: pick(options, RUN_OPTIONS) }, options,
        (v) => new RunResult(v));
    },
    tokenize(text, options = {}) {
      return enqueue('tokenize', { text, options: pick(options, RUN_OPTIONS) }, options);
    },
    /** Frees the model in the worker (the worker stays up for another load). */
    dispose() {
      return enqueue('dispose', {});
    },
    /** Rejects every queued job with E_ABORTED and interrupts a load in progress. */
    cancel() {
      cancelQueued(() => true, () => new AttnScopeError('E_ABORTED', 'cancelled: cancel() was called'));
      if (active?.type === 'load') worker.postMessage({ type: 'abort', target: active.id });
    },
    /** Stops the worker; pending and later calls reject with E_DISPOSED. */
    async terminate() {
      shutDown(new AttnScopeError('E_DISPOSED', 'the worker was terminated'));
      await worker.terminate();
    },
  };
}

// The worker transfers each result's buffers to the caller, so it holds no memory to write into.
function reuseError() {
  return new AttnScopeError('E_INPUT', 'options.reuse is not available through the worker client: ' +
    'results are transferred to the caller; use loadModel() in the same thread to reuse memory');
}

function pick(options, names) {
  const out = {};
  for (const name of names) if (options?.[name] !== undefined) out[name] = options[name];
  return out;
}

// What can cross postMessage: URL objects become {$url}; FileLists become arrays of Files.
function postableSource(source) {
  if (source instanceof URL) return { $url: source.href };
  if (typeof FileList !== 'undefined' && source instanceof FileList) return [...source];
  if (source && typeof source === 'object' && !Array.isArray(source) && !(source instanceof Blob)) {
    return Object.fromEntries(Object.entries(source).map(([k, v]) => [k, v instanceof URL ? { $url: v.href } : v]));
  }
  return source;
}
