// The worker's corpus jobs: run many sentences through the model held by the worker
// and keep only what the probes read, so neither the runs nor their arithmetic cross to the page.
//  - 'corpus': runs every sentence once (q/k on) and keeps the running head statistics
//    (headStatisticsSums), the POS attention sums (posAttentionSums), each sentence's tokens,
//    offsets and POS classes, and the q/k vectors of as many whole layers as fit a byte budget.
//  - 'map': one head's query/key map (queryKeyMap) from the kept q/k; a layer that did not fit
//    is recomputed by running the sentences again, keeping that layer (least recently used
//    layers make room). Only the projected points and their per-point fields go back.
//  - 'ablation': ablationEffects over texts, one run per step.
// Each job is an async generator that yields progress after every run; step() advances one for
// a time slice and returns, so the client can queue other jobs (a typed character's run)
// between two slices instead of waiting for the whole corpus.
import { AttnScopeError } from '../formats/errors.js';
import { headStatisticsSums, ablationSteps } from './head-stats.js';
import { posAttentionSums, tokenClasses } from './pos-summary.js';
import { queryKeyMap } from './qk-map.js';

/** q/k kept per worker by default: all 4 layers of the bundled model (7 MB each over the page's
 *  sample), 3 of bert-base's 12 (37 MB each); other layers are recomputed on request. */
export const DEFAULT_QK_BUDGET_BYTES = 128 * 2 ** 20;

/** @param {() => object} getModel the worker's current Model (throws when none) */
export function createCorpusJobs(getModel) {
  let store = null;            // the last finished corpus: { model, texts, runs, qk, ... }
  const tasks = new Map();     // task id → { steps: AsyncGenerator }

  function start(kind, args) {
    const model = getModel();
    switch (kind) {
      case 'corpus': return corpusSteps(model, args, (done) => { store = done; });
      case 'map': {
        if (!store || store.model !== model) throw new AttnScopeError('E_INPUT', 'no corpus in the worker for this model: run corpus() first');
        return mapSteps(store, args);
      }
      case 'ablation': return ablationJob(model, args);
      default: throw new AttnScopeError('E_INPUT', `unknown corpus job ${kind}`);
    }
  }

  return {
    /** One time slice of task `task` (started by the first slice's `start`); see worker.js. */
    async step({ task: id, start: begin, sliceMs = 50 }) {
      let task = tasks.get(id);
      if (!task) {
        if (!begin) throw new AttnScopeError('E_ABORTED', 'cancelled: the job was dropped (the model changed)');
        task = { steps: start(begin.kind, begin.args ?? {}) };
        tasks.set(id, task);
      }
      const until = performance.now() + sliceMs;
      try {
        for (;;) {
          const { value, done } = await task.steps.next();
          if (done) {
            tasks.delete(id);
            return [{ finished: true, value: value.value }, value.transfer ?? []];
          }
          if (performance.now() >= until) return [{ finished: false, progress: value }, []];
        }
      } catch (error) {
        tasks.delete(id);
        throw error;
      }
    },
    /** The client gave up on a task (abort): free its state. */
    end(id) {
      tasks.get(id)?.steps.return(undefined);
      tasks.delete(id);
    },
    /** A new model (or none): every kept run and unfinished task belongs to the old one. */
    clear() {
      store = null;
      tasks.clear();
    },
  };
}

// sentences: strings or [text, words] ([start, end, class] character spans, as the page's
// corpus sample); classes: how many POS classes (needed for the POS sums when words are given).
function checkSentences({ sentences, classes, qkBudgetBytes }) {
  if (!Array.isArray(sentences) || sentences.length === 0) {
    throw new AttnScopeError('E_INPUT', 'corpus: sentences must be a non-empty array of strings or [text, words] pairs');
  }
  const list = sentences.map((s, i) => {
    const [text, words] = typeof s === 'string' ? [s, null] : Array.isArray(s) ? s : [];
    if (typeof text !== 'string') throw new AttnScopeError('E_INPUT', `corpus: sentence ${i} is not a string or a [text, words] pair`);
    if (words != null && !Array.isArray(words)) throw new AttnScopeError('E_INPUT', `corpus: sentence ${i}'s words must be an array of [start, end, class]`);
    return { text, words };
  });
  const tagged = list.some((s) => s.words);
  if (tagged && !(Number.isInteger(classes) && classes > 0)) {
    throw new AttnScopeError('E_INPUT', 'corpus: tagged sentences need options.classes (how many POS classes)');
  }
  if (qkBudgetBytes !== undefined && !(Number.isFinite(qkBudgetBytes) && qkBudgetBytes >= 0)) {
    throw new AttnScopeError('E_INPUT', 'corpus: qkBudgetBytes must be a number of bytes ≥ 0');
  }
  return { list, tagged };
}

async function* corpusSteps(model, args, onDone) {
  const { list, tagged } = checkSentences(args);
  const budget = args.qkBudgetBytes ?? DEFAULT_QK_BUDGET_BYTES;
  const started = performance.now();
  const stats = headStatisticsSums();
  const pos = tagged ? posAttentionSums(args.classes) : null;
  const runs = [];           // per sentence: { tokens, offsets, classes, T }
  const qk = new Map();      // layer → { q: Float32Array[], k: Float32Array[], usedAt }
  let L = 0, H = 0, dh = 0, bytesPerToken = 0;   // bytes of one layer's q+k for one token
  let tokens = 0;
  for (const { text, words } of list) {
    const r = await model.run(text, { qkv: true, topK: 0 });
    const T = r.shape[2];
    if (!runs.length) {
      [L, H] = r.shape;
      dh = r.q.length / (L * H * T);
      bytesPerToken = 2 * H * dh * 4;
      for (let l = 0; l < L; l++) qk.set(l, { q: [], k: [], usedAt: l });
    }
    stats.add(r);
    const classes = pos ? pos.add(r, words ?? []) : tokenClasses(r, words ?? []);
    runs.push({ tokens: r.tokenTexts ?? r.tokens, offsets: Int32Array.from(r.offsets), classes, T });
    for (const [l, kept] of qk) {
      kept.q.push(r.q.slice(l * H * T * dh, (l + 1) * H * T * dh));
      kept.k.push(r.k.slice(l * H * T * dh, (l + 1) * H * T * dh));
    }
    // Over budget: drop the last layers kept (their arrays become garbage at once).
    tokens += T;
    while (qk.size && qk.size * tokens * bytesPerToken > budget) qk.delete(Math.max(...qk.keys()));
    yield { done: runs.length, total: list.length };
  }
  const kept = { model, texts: list.map((s) => s.text), runs, qk, L, H, dh, budget, bytesPerLayer: tokens * bytesPerToken };
  onDone(kept);
  const posSums = pos?.finish() ?? null;
  const value = {
    sentences: list.length, tokens, shape: [L, H], headDim: dh, ms: performance.now() - started,
    headStats: stats.finish(),
    pos: posSums,
    runs: runs.map(({ tokens: t, offsets, classes }) => ({ tokens: t, offsets, classes })),
    qk: qkSummary(kept),
  };
  return { value, transfer: posSums ? [posSums.mass.buffer, posSums.queries.buffer] : [] };
}

function qkSummary(s) {
  return { layers: [...s.qk.keys()].sort((a, b) => a - b), bytesPerLayer: s.bytesPerLayer, bytes: s.qk.size * s.bytesPerLayer, budgetBytes: s.budget };
}

async function* mapSteps(s, { layer, head }) {
  if (!Number.isInteger(layer) || !Number.isInteger(head) || layer < 0 || layer >= s.L || head < 0 || head >= s.H) {
    throw new AttnScopeError('E_INPUT', `map: no head ${layer}:${head} (the model has ${s.L} layers of ${s.H} heads)`);
  }
  let kept = s.qk.get(layer), rerunMs = null;
  if (!kept) {
    const started = performance.now();
    kept = { q: [], k: [], usedAt: 0 };
    const { H, dh } = s;
    for (const text of s.texts) {
      const r = await s.model.run(text, { qkv: true, topK: 0 });
      const T = r.shape[2];
      kept.q.push(r.q.slice(layer * H * T * dh, (layer + 1) * H * T * dh));
      kept.k.push(r.k.slice(layer * H * T * dh, (layer + 1) * H * T * dh));
      yield { done: kept.q.length, total: s.texts.length, rerun: true };
    }
    rerunMs = performance.now() - started;
    // Keep it if a layer fits at all, making room by dropping the least recently used ones.
    if (s.bytesPerLayer <= s.budget) {
      while ((s.qk.size + 1) * s.bytesPerLayer > s.budget) {
        const [oldest] = [...s.qk].sort((a, b) => a[1].usedAt - b[1].usedAt)[0];
        s.qk.delete(oldest);
      }
      s.qk.set(layer, kept);
    }
  }
  kept.usedAt = performance.now();
  const started = performance.now();
  // The kept slices are each run's q/k of one layer: the runs' layout with L = 1.
  const views = kept.q.map((q, i) => ({ q, k: kept.k[i], shape: [1, s.H, s.runs[i].T, s.runs[i].T] }));
  const map = queryKeyMap(views, 0, head);
  const value = { ...map, layer, head, projectionMs: performance.now() - started, rerunMs, qk: qkSummary(s) };
  return { value, transfer: [map.points.buffer, map.kinds.buffer, map.runs.buffer, map.positions.buffer, map.components.buffer] };
}

async function* ablationJob(model, { texts, maskEvery }) {
  if (!Array.isArray(texts) || !texts.length || texts.some((t) => typeof t !== 'string')) {
    throw new AttnScopeError('E_INPUT', 'ablationEffects: texts must be a non-empty array of strings');
  }
  if (maskEvery !== undefined && !(Number.isInteger(maskEvery) && maskEvery > 0)) {
    throw new AttnScopeError('E_INPUT', 'ablationEffects: maskEvery must be a positive integer');
  }
  const started = performance.now();
  const value = yield* ablationSteps(model, texts, { maskEvery });
  return { value: { ...value, ms: performance.now() - started } };
}
