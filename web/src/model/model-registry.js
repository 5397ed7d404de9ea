// The models in a page's workers: one worker client (js/worker/client.js) per model and weight
// precision, loaded once and shared by whoever opens it — the explorer page, every <attn-scope>
// showing that model, the encoder-vs-decoder view's two bundled models — and stopped when the last
// holder lets go. Nobody shares a client's queue by dropping others' jobs: a holder cancels only
// its own runs (their signals), never with replacePending.
import { abortedError } from '../../../js/formats/errors.js';
import { createWorkerClient } from '../../../js/worker/client.js';

const entries = new Map();   // 'source precision' → { client, loaded: Promise<info>, holders }

/** Counters for tests and DevTools: workers started, model loads, runs. */
export const stats = { workers: 0, modelLoads: 0, runs: 0 };

/**
 * Opens `source` ('bundled', a hub id, a URL, or files: files are never shared) at
 * `weightPrecision`: resolves to { client, info, release } once it has loaded. onProgress reaches
 * the holder that started the load. An aborted signal lets go of the model (its download stops
 * when nobody else waits for it) and rejects with E_ABORTED; a failed load is forgotten, so the
 * next open retries. `analyses` (loadModel's option) is the first opener's: a model shared with
 * one that did not ask moves to a build with them when first asked (js/api/model.js).
 */
export async function openModel(source, { weightPrecision = 'auto', analyses = false, signal, onProgress } = {}) {
  if (signal?.aborted) throw abortedError(signal.reason);
  const key = typeof source === 'string' ? `${source} ${weightPrecision}` : Symbol('files');
  let entry = entries.get(key);
  if (!entry) {
    const client = createWorkerClient();
    stats.workers++;
    stats.modelLoads++;
    // Cache Storage needs a real origin: pages opened from file:// skip it.
    const loaded = client.load(source, { cache: /^https?:$/.test(location.protocol), weightPrecision, analyses, onProgress });
    entry = { client, loaded, holders: 0 };
    entries.set(key, entry);
    loaded.catch(() => stop(key, entry));
  }
  entry.holders++;
  let held = true;
  const release = () => {
    if (!held) return;
    held = false;
    if (--entry.holders === 0) stop(key, entry);
  };
  try {
    const info = await untilAborted(entry.loaded, signal);
    return { client: entry.client, info, release };
  } catch (error) {
    release();
    throw error;
  }
}

function stop(key, entry) {
  if (entries.get(key) === entry) entries.delete(key);
  if (entry.stopped) return;
  entry.stopped = true;
  entry.client.terminate();
}

function untilAborted(promise, signal) {
  if (!signal) return promise;
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(abortedError(signal.reason));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
