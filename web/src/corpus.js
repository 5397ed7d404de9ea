// The corpus sample (web/data/corpus-sample.json: 300 held-out Brown sentences with word spans
// and universal POS classes) run through the page's model worker, for the head table, the
// query/key map and the POS summary. One sentence per worker job, so the page stays responsive
// between jobs; progress after each, and an AbortSignal stops it between two sentences. Runs are
// kept per model (the worker client) with only what the probes read: attentions, q and k.
const SAMPLE_URL = 'web/data/corpus-sample.json';

let samplePromise = null;
const cache = new WeakMap();   // worker client → { runs } once the whole sample has run

/** { classes: string[], sentences: [text, [start, end, class][]][] }, fetched once. */
export function loadSample() {
  samplePromise ??= fetch(SAMPLE_URL).then((r) => {
    if (!r.ok) throw new Error(`corpus sample: HTTP ${r.status}`);
    return r.json();
  });
  samplePromise.catch(() => { samplePromise = null; });   // a failed fetch can be retried
  return samplePromise;
}

/** The sample's runs on this client if they are done, else null. */
export function cachedCorpusRuns(client) {
  return (client && cache.get(client)) ?? null;
}

/**
 * Runs every sentence of the sample (qkv on). Resolves to { sample, runs, ms }; each run is
 * { text, words, attentions, q, k, shape, offsets, specialTokensMask, tokens }.
 */
export async function corpusRuns(client, { signal, onProgress } = {}) {
  const done = cachedCorpusRuns(client);
  if (done) return done;
  const sample = await loadSample();
  const started = performance.now();
  const runs = [];
  for (const [text, words] of sample.sentences) {
    if (signal?.aborted) throw Object.assign(new Error('cancelled'), { code: 'E_ABORTED' });
    const r = await retrySuperseded(() => client.run(text, { qkv: true, topK: 0, signal }), signal);
    runs.push({ text, words, attentions: r.attentions, q: r.q, k: r.k, shape: [...r.shape], offsets: r.offsets,
      specialTokensMask: r.specialTokensMask, tokens: r.tokenTexts ?? r.tokens });
    onProgress?.({ done: runs.length, total: sample.sentences.length });
  }
  const entry = { sample, runs, ms: performance.now() - started };
  cache.set(client, entry);
  return entry;
}

/**
 * A typed character's run supersedes queued runs (worker client's replacePending), which cancels
 * a probe's queued job too; only our own signal means stop, so a superseded job is sent again.
 */
export async function retrySuperseded(job, signal) {
  for (;;) {
    try {
      return await job();
    } catch (e) {
      if (e?.code !== 'E_ABORTED' || signal?.aborted) throw e;
    }
  }
}
