// 'attnscope/worker': the same async surface as a Model, run in a Web Worker (browser) or a
// worker_thread (Node), so the page stays responsive. Jobs queue here, one at a time in the
// worker; a queued job can be cancelled (signal, cancel(), or a newer run with replacePending),
// and an AbortSignal also interrupts a load that is downloading.
import { AttnScopeError, abortedError, callerCallback, checkSignal } from '../formats/errors.js';
import { RunResult } from '../api/result.js';
import {
  JOB_OPTIONS, LOAD_OPTIONS, RUN_IDS_OPTIONS, RUN_OPTIONS, SEQ2SEQ_GENERATE_OPTIONS, SEQ2SEQ_RUN_OPTIONS,
  TOKENIZE_OPTIONS, checkOptionNames,
} from '../api/options.js';
import { SEQ2SEQ_PATCH_OPTIONS } from '../analysis/patching.js';
import { createWorker } from '#platform';

/** Starts a worker; see client.d.ts. */
// The worker's messages that reach a callback of the job (not its answer): type → option name.
// Each carries its value under its type's name (message.step, message.progress, message.prompt).
const CALLBACK_OF = Object.freeze({ progress: 'onProgress', step: 'onToken', prompt: 'onPrompt' });

export function createWorkerClient() {
  const worker = createWorker();
  let nextId = 1;
  let active = null;
  const queue = [];
  let failure = null; // set once the worker is gone: every later call rejects with it

  worker.unref(); // an idle client must not keep a Node process alive
  worker.onMessage((message) => {
    if (!active || message.id !== active.id) return;
    const job = active;
    if (message.type in CALLBACK_OF) {
      const callback = job[CALLBACK_OF[message.type]], value = message[message.type];
      try {
        if (!job.done) callback?.(value);
      } catch (error) {
        // The caller's callback threw, inside the worker's message event: that fails its job (and
        // stops a load or generation), never the process. The job stays active until the worker
        // answers, so the next one is not posted to a busy worker.
        settle(job, { error });
        if (interruptible(job.type)) worker.postMessage({ type: 'abort', target: job.id });
      }
      return;
    }
    active = null;
    settle(job, message.type === 'error' ? { error: jobError(job, message.error) } : { value: job.wrap(message.value) });
    pump();
  });
  worker.onError((error) => shutDown(new AttnScopeError('E_INTERNAL', `the AttnScope worker failed: ${error.message}`)));

  // Resolves or rejects a job once; later outcomes (its worker's answer after its callback threw)
  // are dropped.
  function settle(job, { value, error }) {
    if (job.done) return;
    job.done = true;
    job.signal?.removeEventListener('abort', job.onAbort);
    if (error) job.reject(error);
    else job.resolve(value);
  }

  function pump() {
    while (!active && queue.length > 0) {
      active = queue.shift();
      worker.ref();
      try {
        worker.postMessage({ id: active.id, type: active.type, ...active.payload }, active.transfer);
      } catch (error) {
        // A value structured clone cannot copy (a function, a Symbol, …) fails this job alone;
        // left active, it would have stalled every job after it.
        const job = active;
        active = null;
        settle(job, { error: new AttnScopeError('E_INPUT', `${job.type}: an argument cannot be sent to the worker ` +
          `(${error?.message ?? error}); pass plain data: strings, numbers, arrays, typed arrays, Files`) });
      }
    }
    if (!active) worker.unref();
  }

  function enqueue(type, payload, { signal, onProgress, onToken, onPrompt, replacePending = false, transfer = [] } = {}, wrap = (v) => v) {
    if (failure) return Promise.reject(failure);
    try {
      checkSignal(signal, type);
      for (const [name, callback] of [['onProgress', onProgress], ['onToken', onToken], ['onPrompt', onPrompt]]) {
        if (callback !== undefined && typeof callback !== 'function') throw new AttnScopeError('E_INPUT', `${type}: ${name} must be a function`);
      }
    } catch (error) {
      return Promise.reject(error);
    }
    if (signal?.aborted) return Promise.reject(abortedError(signal.reason));
    if (replacePending) {
      cancelQueued((job) => job.type === 'run' || job.type === 'runIds',
        () => new AttnScopeError('E_ABORTED', 'cancelled: superseded by a newer run'));
    }
    return new Promise((resolve, reject) => {
      const job = { id: nextId++, type, payload, transfer, wrap, resolve, reject, signal,
        onProgress: callerCallback(onProgress, `${type}: onProgress`), onToken: callerCallback(onToken, `${type}: onToken`),
        onPrompt: callerCallback(onPrompt, `${type}: onPrompt`) };
      job.onAbort = () => {
        const at = queue.indexOf(job);
        if (at >= 0) {
          queue.splice(at, 1);
          settle(job, { error: abortedError(signal.reason) });
        } else if (active === job && interruptible(type)) {
          worker.postMessage({ type: 'abort', target: job.id });
        }
        // A run already executing finishes (wasm cannot be interrupted); its result still arrives.
      };
      signal?.addEventListener('abort', job.onAbort, { once: true });
      queue.push(job);
      pump();
    });
  }

  // The error a job's worker reported; an abort of the caller's signal keeps its reason (which
  // did not cross to the worker: the worker only hears "abort").
  function jobError(job, { code, message }) {
    if (code === 'E_ABORTED' && job.signal?.aborted) return abortedError(job.signal.reason);
    return new AttnScopeError(code, message);
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

  // Every option of the call crosses to the worker except the job options handled here; a name
  // the call does not know rejects with E_INPUT before anything is posted.
  function call(type, payload, options, allowed, wrap) {
    try {
      checkOptionNames(options, allowed, type);
    } catch (error) {
      return Promise.reject(error);
    }
    if (options?.reuse !== undefined) return Promise.reject(reuseError());
    return enqueue(type, { ...payload, options: omit(options, JOB_OPTIONS) }, options ?? {}, wrap);
  }
  // A run whose maps stayed in the worker (js/worker.js) fetches heads with 'maps' jobs, queued
  // like any other; letting go of it (release(), or the result collected) frees them there.
  const runResult = ({ workerMaps, ...fields }) => {
    if (!workerMaps) return new RunResult(fields);
    const { run, bytes } = workerMaps;
    return new RunResult(fields, {
      fetch: (heads) => enqueue('maps', { run, heads }),
      bytes: () => bytes,
      free: () => { if (!failure) worker.postMessage({ type: 'releaseMaps', target: run }); },
    });
  };

  // A corpus job (js/analysis/corpus-job.js) in time slices: each slice is an ordinary queued job, so a
  // run queued meanwhile (a typed character's) goes between two slices; progress after each.
  // Aborting (signal, cancel()) stops it at the end of the slice in progress.
  let nextTaskId = 1;
  async function task(method, kind, args, options, allowed) {
    checkOptionNames(options, [...allowed, 'signal', 'onProgress', 'sliceMs'], method);
    const { signal, onProgress, sliceMs = DEFAULT_SLICE_MS } = options ?? {};
    if (!(Number.isFinite(sliceMs) && sliceMs > 0)) throw new AttnScopeError('E_INPUT', `${method}: sliceMs must be a positive number`);
    if (onProgress !== undefined && typeof onProgress !== 'function') throw new AttnScopeError('E_INPUT', `${method}: onProgress must be a function`);
    const id = nextTaskId++;
    let start = { kind, args: { ...args, ...omit(options, [...JOB_OPTIONS, 'sliceMs']) } };
    try {
      for (;;) {
        const slice = await enqueue('task', { task: id, start, sliceMs }, { signal });
        start = undefined;
        if (slice.finished) return slice.value;
        callerCallback(onProgress, `${method}: onProgress`)?.(slice.progress);
      }
    } catch (error) {
      if (!start && !failure) worker.postMessage({ type: 'taskEnd', target: id });  // free the worker's state
      // Aborted, then the worker stopped before the slice in progress came back: still an abort.
      if (signal?.aborted && error?.code === 'E_DISPOSED') throw abortedError(signal.reason);
      throw error;
    }
  }

  return {
    /** Loads a model in the worker (replacing the previous one); resolves to model.info. */
    load(source, options = {}) {
      return call('load', { source: postableSource(source) }, options, LOAD_OPTIONS);
    },
    run(text, options = {}) {
      return call('run', { text }, options, [...RUN_OPTIONS, 'signal', 'replacePending'], runResult);
    },
    runIds(ids, options = {}) {
      return call('runIds', { ids: postableIds(ids) }, options, [...RUN_IDS_OPTIONS, 'signal', 'replacePending'], runResult);
    },
    /** Encoder-decoder models (bart, marian, t5): the source ids, and options.targetIds after
     *  decoder_start_token_id; resolves to the plain result js/api/seq2seq.js gives. */
    runSeq2SeqIds(sourceIds, options = {}) {
      return call('runIds', { ids: postableIds(sourceIds) }, options, [...SEQ2SEQ_RUN_OPTIONS, 'signal', 'replacePending']);
    },
    /** The same from source text (and options.target text). */
    runSeq2Seq(source, options = {}) {
      return call('run', { text: source }, options, [...SEQ2SEQ_RUN_OPTIONS, 'signal', 'replacePending']);
    },
    tokenize(text, options = {}) {
      return call('tokenize', { text }, options, [...TOKENIZE_OPTIONS, 'signal']);
    },
    /** Encoder-decoders: target text as the model's target tokenizer reads it (Marian: target.spm). */
    tokenizeTarget(text, options = {}) {
      return call('tokenizeTarget', { text }, options, ['maxLength', 'signal']);
    },
    /**
     * Generates in the worker (every kind: the model's one generation loop); each step reaches
     * options.onToken as it comes; resolves to the summary (decoders: {ids, tokens, promptLength,
     * steps, stopReason}; encoder–decoders: js/api/seq2seq.js's). signal / cancel() stop it within a step.
     */
    generate(prompt, options = {}) {
      // onPrompt (decoders): once the prompt has run, {attentions, shape} of its own rows, as
      // generation.prompt holds them in process — under steering, the steered prompt's.
      const payload = { prompt: typeof prompt === 'string' ? prompt : postableIds(prompt), sendPrompt: options.onPrompt !== undefined };
      // Either model kind's names pass here (the client does not track which is loaded); the
      // worker's model refuses by name the one a decoder does not take (maxLength).
      return call('generate', payload, options, [...SEQ2SEQ_GENERATE_OPTIONS, 'onPrompt']);
    },
    /**
     * Activation patching in the worker (model.patch): one job, each row (layer) reaching
     * options.onProgress as {layer, scores, done, total} when it is done; signal / cancel() stop it
     * between two rows.
     */
    patch(options = {}) {
      // Either model kind's names pass here; an encoder-only or decoder model refuses the seq2seq ones.
      return call('patch', {}, options, SEQ2SEQ_PATCH_OPTIONS);
    },
    /**
     * Runs sentences (strings or [text, words] pairs) in the worker, keeping there what the
     * probes need; resolves to the head statistics, POS sums, tokens and the q/k layers kept.
     */
    corpus(sentences, options = {}) {
      return task('corpus', 'corpus', { sentences }, options, ['classes', 'qkBudgetBytes']);
    },
    /** One head's query/key map over the last corpus() of this model, computed in the worker. */
    corpusMap(layer, head, options = {}) {
      return task('corpusMap', 'map', { layer, head }, options, []);
    },
    /** ablationEffects(texts) run in the worker (one job in time slices, not one per run). */
    ablationEffects(texts, options = {}) {
      return task('ablationEffects', 'ablation', { texts }, options, ['maskEvery']);
    },
    /** Frees the model in the worker (the worker stays up for another load). */
    dispose() {
      return enqueue('dispose', {});
    },
    /** Rejects every queued job with E_ABORTED and interrupts a load in progress. */
    cancel() {
      cancelQueued(() => true, () => new AttnScopeError('E_ABORTED', 'cancelled: cancel() was called'));
      if (active && interruptible(active.type)) worker.postMessage({ type: 'abort', target: active.id });
    },
    /** Stops the worker; pending and later calls reject with E_DISPOSED. */
    async terminate() {
      shutDown(new AttnScopeError('E_DISPOSED', 'the worker was terminated'));
      await worker.terminate();
    },
  };
}

// A corpus job's slice: long enough that the slices' round trips cost little (a bundled-model
// sentence runs in a few ms), short enough that a typed character's run waits at most this.
const DEFAULT_SLICE_MS = 50;

// Jobs the worker can stop part-way: a download, a generation between two steps and a patching
// grid between two rows. A run or
// runIds cannot be interrupted (wasm runs to the end); its result still arrives.
function interruptible(type) {
  return type === 'load' || type === 'generate' || type === 'patch';
}

// The worker transfers each result's buffers to the caller, so it holds no memory to write into.
function reuseError() {
  return new AttnScopeError('E_INPUT', 'options.reuse is not available through the worker client: ' +
    'results are transferred to the caller; use loadModel() in the same thread to reuse memory');
}

// Ids as an array (from any iterable: an array, a typed array, a Set); anything else goes as it
// is, for the model in the worker to refuse as it would in this thread (Array.from would have
// made a number or undefined an empty input, and a string "101,102" the ids 1, 0, 1, 1, 0, 2).
function postableIds(ids) {
  const iterable = ids !== null && typeof ids === 'object' && typeof ids[Symbol.iterator] === 'function';
  return iterable ? Array.from(ids) : ids;
}

function omit(options, names) {
  const out = {};
  for (const [name, value] of Object.entries(options ?? {})) if (!names.includes(name) && value !== undefined) out[name] = value;
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
