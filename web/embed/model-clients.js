// The models behind every <attn-scope> on a page: one worker client of the package
// (js/worker-client.js, the page's own protocol) per model, loaded once and shared by every
// element showing that model. Elements run without replacePending: a shared worker must not drop
// another element's run.
import { createWorkerClient } from '../../js/worker-client.js';
import { AttnScopeError } from '../../js/errors.js';
import { isHubId } from '../../js/hub-id.js';

const clients = new Map();   // 'model id precision' → { client, loaded: Promise<ModelInfo> }

/** Counters for tests and DevTools: workers started, model loads, runs. */
export const stats = { workers: 0, modelLoads: 0, runs: 0 };

/** What a model attribute may be: 'bundled', 'bundled-causal' (the GPT-2-style decoder), a hub id
 *  (owner/name) or an http(s) folder URL. */
export function parseModelId(value) {
  const id = (value ?? '').trim() || 'bundled';
  if (id === 'bundled' || id === 'bundled-causal' || isHubId(id)) return id;
  if (id.length <= 2048 && /^https?:\/\//i.test(id)) {
    try {
      return new URL(id).href;
    } catch { /* fall through */ }
  }
  throw new AttnScopeError('E_INPUT', `model must be "bundled", "bundled-causal", a hub id (owner/name) or an http(s) URL, got ${preview(id)}`);
}

/** A value shortened and quoted for a message (attributes may be hostile or huge). */
export function preview(value, max = 60) {
  const s = String(value);
  return JSON.stringify(s.length > max ? s.slice(0, max) + '…' : s);
}

/** The client of `modelId` at `weightPrecision` and its load (started on first use; a failed
 *  load is forgotten). Elements asking for the same model at another precision get their own. */
export function modelClient(modelId, weightPrecision = 'auto') {
  const key = `${modelId} ${weightPrecision}`;
  let entry = clients.get(key);
  if (!entry) {
    const client = createWorkerClient();
    stats.workers++;
    stats.modelLoads++;
    // Cache Storage needs a real origin: pages opened from file:// skip it.
    const loaded = client.load(modelId, { cache: /^https?:$/.test(location.protocol), weightPrecision });
    entry = { client, loaded };
    clients.set(key, entry);
    loaded.catch(() => {
      if (clients.get(key) === entry) clients.delete(key);   // a later element retries
      client.terminate();
    });
  }
  return entry;
}

/** Runs `text` on `modelId` (at `weightPrecision`) once it is loaded; resolves to { info, result }. */
export async function runModel(modelId, text, options, weightPrecision) {
  const { client, loaded } = modelClient(modelId, weightPrecision);
  const info = await loaded;
  stats.runs++;
  // Options may depend on the model (a function of its info): e.g. no trace for the Llama family.
  return { info, result: await client.run(text, typeof options === 'function' ? options(info) : options) };
}
