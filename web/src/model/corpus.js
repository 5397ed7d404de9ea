// The corpus sample (web/data/corpus-sample.json: 300 held-out Brown sentences with word spans
// and universal POS classes) run through the page's model worker, for the head table, the
// query/key map and the POS summary. The worker runs the whole sample as one corpus job
// (js/analysis/corpus-job.js) in time slices — a typed character's run goes between two slices — and
// keeps the runs there: only the head statistics, the POS sums and each sentence's tokens come
// back, and a head's map is projected in the worker on request (points only). Everything is
// kept per model (the worker client).
const SAMPLE_URL = 'web/data/corpus-sample.json';
const MAPS_KEPT = 16;   // projected maps kept per model (each ~15,000 points for the bundled model)

let samplePromise = null;
const cache = new WeakMap();   // worker client → { done?, pending?, maps: Map('l/h' → map) }

/** { classes: string[], sentences: [text, [start, end, class][]][] }, fetched once. */
export function loadSample() {
  samplePromise ??= fetch(SAMPLE_URL).then((r) => {
    if (!r.ok) throw new Error(`corpus sample: HTTP ${r.status}`);
    return r.json();
  });
  samplePromise.catch(() => { samplePromise = null; });   // a failed fetch can be retried
  return samplePromise;
}

function entryOf(client) {
  let entry = cache.get(client);
  if (!entry) cache.set(client, entry = { maps: new Map() });
  return entry;
}

/** The sample's corpus summary on this client if it is done, else null. */
export function cachedCorpus(client) {
  return (client && cache.get(client)?.done) ?? null;
}

/**
 * Runs the sample in the worker once per model. Resolves to { sample, summary, ms } (summary:
 * worker-client corpus()). Views asking while it runs share the job and its progress; a view's
 * signal cancels it for all (one view is on screen at a time).
 */
export function corpusSummary(client, { signal, onProgress } = {}) {
  const entry = entryOf(client);
  if (entry.done) return Promise.resolve(entry.done);
  if (!entry.pending) {
    const controller = new AbortController();
    const listeners = new Set();
    const started = performance.now();
    const promise = loadSample().then(async (sample) => {
      const summary = await client.corpus(sample.sentences, {
        classes: sample.classes.length, signal: controller.signal,
        onProgress: (p) => listeners.forEach((f) => f(p)),
      });
      entry.done = { sample, summary, ms: performance.now() - started };
      return entry.done;
    }).finally(() => { entry.pending = null; });
    entry.pending = { promise, controller, listeners };
  }
  const { promise, controller, listeners } = entry.pending;
  if (onProgress) listeners.add(onProgress);
  signal?.addEventListener('abort', () => controller.abort(), { once: true });
  return promise.finally(() => listeners.delete(onProgress));
}

/** The map of one head, computed in the worker (needs corpusSummary first); kept per model. */
export async function corpusMap(client, layer, head, { signal, onProgress } = {}) {
  const { maps } = entryOf(client);
  const key = `${layer}/${head}`;
  if (maps.has(key)) return maps.get(key);
  const started = performance.now();
  const map = await client.corpusMap(layer, head, { signal, onProgress });
  map.wallMs = performance.now() - started;
  if (maps.size >= MAPS_KEPT) maps.delete(maps.keys().next().value);
  maps.set(key, map);
  return map;
}

/** A map already computed for this head, else null. */
export function cachedCorpusMap(client, layer, head) {
  return (client && cache.get(client)?.maps.get(`${layer}/${head}`)) ?? null;
}
