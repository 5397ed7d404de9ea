// The models behind the encoder-vs-decoder view: the bundled BERT and the bundled GPT-2-style
// decoder, each in its own worker client (a client holds one model), started the first time the
// view is opened and independent of the model picked for the other views, so the page's own
// runs (which replace pending runs) never cancel these. Runs are cached for the last text.
import { createWorkerClient } from '../../js/worker-client.js';

export const COMPARED = [
  { side: 'encoder', model: 'bundled', options: { topK: 0 } },
  { side: 'decoder', model: 'bundled-causal', options: { topK: 0 } },
];

export function createCompareRunner() {
  const clients = new Map();   // model → { client, loaded }
  let last = null;             // { text, promise }

  function clientFor(model) {
    let entry = clients.get(model);
    if (!entry) {
      const client = createWorkerClient();
      entry = { client, loaded: client.load(model) };
      clients.set(model, entry);
      entry.loaded.catch(() => { if (clients.get(model) === entry) clients.delete(model); client.terminate(); });
    }
    return entry;
  }

  async function runOne({ side, model, options }, text) {
    const { client, loaded } = clientFor(model);
    const info = await loaded;
    const result = await client.run(text, options);
    return { side, model, info, result };
  }

  /** Both runs of `text`: Promise<{ encoder: {info, result}, decoder: {info, result} }>, where a
   *  side that failed holds { error }. The same text answers from the cache. */
  function run(text) {
    if (last && last.text === text) return last.promise;
    const promise = Promise.all(COMPARED.map((c) => runOne(c, text).catch((error) => ({ side: c.side, model: c.model, error }))))
      .then((sides) => Object.fromEntries(sides.map((s) => [s.side, s])));
    last = { text, promise };
    return promise;
  }

  return { run, terminate() { for (const { client } of clients.values()) client.terminate(); clients.clear(); } };
}
