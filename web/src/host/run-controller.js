// The run controller: "run this input with these options, newest wins, draw when done", for both
// hosts of the views — the explorer page (main.js) and <attn-scope> (web/embed/element.js). It
// holds the model in use (from model-registry.js: a load replaces it only once it has succeeded),
// decides the run options (which views need a trace, which host shows predictions), runs the
// state's text, shows the view named by state.view, and gives views the worker jobs of the view
// contract (app.jobs, see view-model.js), every one of which is stopped when the view shown
// changes or the model does. The hosts keep only what is theirs: the URL or the attributes, the
// status line, the picker.
import { AttnScopeError } from '../../../js/formats/errors.js';
import { LENS_TOP_K } from '../../../js/formats/figure-views.js';
import { hasHead, isCausal } from '../model/causal-mask.js';
import { openModel, stats } from '../model/model-registry.js';
import { showView } from '../state/view-model.js';
import { lensMaxTokens, viewUnavailable } from '../model/model-family.js';
import { isSeq2Seq, kindShown, runSeq2Seq } from '../model/seq2seq-run.js';
import { loadedView, loadView, viewNeeds } from '../views/registry.js';
import { guardedView } from '../views/family-switch.js';

// Only the runs of the views that read them (their registry entry's `needs`) ask for these
// outputs: result.trace (every intermediate of every block: L·T·(7C + F) floats; the Llama
// family's about L·T·(7C + 4·H·dh + 5·KV·dh + 4F)), result.logitLens and result.attribution (each
// one more pass of the model) and result.flow (read from the same pass: L·H·T² floats). LENS_TOP_K
// tokens per lens cell, as many as a lens figure holds (js/formats/figure-views.js); model-family.js's
// lensMaxTokens: how long a text the lens is asked for.
/** The encoder-vs-decoder view's two models, whatever model the other views show. */
export const COMPARED = [
  { side: 'encoder', model: 'bundled' },
  { side: 'decoder', model: 'bundled-causal' },
];

// Typing runs the model at once while runs are fast (a newer run aborts the one queued before it,
// so the newest text always wins); only a model whose last run took longer than FAST_RUN_MS waits
// for a pause in typing.
const FAST_RUN_MS = 100;
const SLOW_RUN_DEBOUNCE_MS = 250;
const JOB_LOG = 32;   // the view jobs remembered for the test hook

const isAbort = (e) => e?.code === 'E_ABORTED' || e?.name === 'AbortError';

// The corpus sample's code (corpus-jobs.js), fetched by the first view job that runs on the
// sample (the heads table, the map, the ablation): an element showing other views does not
// download it.
let corpusLoaded = null;
let corpusLoading = null;
function corpusCode() {
  corpusLoading ??= import('./corpus-jobs.js').then((m) => (corpusLoaded = m));
  corpusLoading.catch(() => { corpusLoading = null; });   // a failed fetch (offline) may be retried
  return corpusLoading;
}

/**
 * @param app the view model (view-model.js); its `jobs` is set here
 * @param views the ids of the views this host offers (views/registry.js)
 * @param predictions whether runs ask for [MASK] / next-token predictions (the page shows them)
 * @param on { start(), shown(result, ms), empty(), failed(error), settled() }: the host's status
 */
export function createRunController(app, { views, predictions = true, on = {} }) {
  let model = null;                  // { client, info, release, source, weightPrecision }
  let loadSeq = 0, runSeq = 0, runAbort = null, lastRunMs = 0, timer = 0;
  let viewJobs = new AbortController();   // aborted when the view shown or the model changes
  let shownView = null;
  let compared = null;               // { models: Map(model → Promise<opened>), text, promise }
  const jobLog = [];

  /** Loads `source` and makes it the model in use once loaded; a newer load supersedes it. */
  async function loadModel(source, { weightPrecision = 'auto', analyses = false, signal, onProgress } = {}) {
    const seq = ++loadSeq;
    const superseded = () => new AttnScopeError('E_ABORTED', 'cancelled: superseded by a newer load');
    let opened;
    try {
      opened = await openModel(source, { weightPrecision, analyses, signal, onProgress });
    } catch (e) {
      throw seq === loadSeq ? e : superseded();
    }
    if (seq !== loadSeq) {
      opened.release();
      throw superseded();
    }
    runSeq++;                        // a run of the old model, still pending, is no longer shown
    runAbort?.abort();
    stopViewJobs();
    model?.release();
    model = { ...opened, source, weightPrecision };
    app.info = opened.info;
    return opened.info;
  }

  // The lens for a run of about the last one's length stays within LENS_BUDGET (the text about to
  // run is not tokenized yet: the last run's length stands for it).
  const lensFits = (r) => !r || r.shape[2] <= lensMaxTokens(app.info);

  // Only the views that apply to the model in use ask for the trace; attribution is for decoders.
  const wantsTrace = (view) => viewNeeds(view, 'trace') && !viewUnavailable(app.info, view);
  const wantsAttribution = (view) => viewNeeds(view, 'attribution') && isCausal(app);
  const wantsLens = (view) => viewNeeds(view, 'logitLens') && hasHead(app);
  const wantsFlow = (view) => viewNeeds(view, 'flow') && !viewUnavailable(app.info, view);
  // A host without predictions still asks for them while a view that reads them is shown.
  const wantsPredictions = (view) => predictions || viewNeeds(view, 'predictions');
  const predicted = new WeakSet();   // the runs that asked for them

  const uses = (source, weightPrecision) => Boolean(model) && model.source === source && model.weightPrecision === weightPrecision;

  function options() {
    const { view } = app.state;
    const base = {
      qkv: true, valueNorms: true, topK: 0, trace: wantsTrace(view),
      ...(wantsLens(view) && lensFits(app.original) ? { logitLens: LENS_TOP_K } : {}),
      ...(wantsAttribution(view) ? { attribution: true } : {}),
      ...(wantsFlow(view) ? { flow: true } : {}),
    };
    if (!wantsPredictions(view)) return base;
    // Decoders: the top-5 next tokens after every position (the page's next-token panel; a view
    // alone needs the last position's only).
    if (isCausal(app)) return { ...base, topK: 5, ...(predictions ? { nextAll: true } : {}) };
    return { ...base, topK: app.info?.hasMlmHead ? 5 : 0 };
  }

  /** The view shown needs a run of the text on screen with outputs it does not have yet (a trace,
   *  the logit lens, the attribution). */
  const needsTrace = () => {
    const { view } = app.state;
    if (!app.original) return false;
    // An encoder–decoder's run carries its decoder's trace (the Block view) and nothing else asked.
    if (isSeq2Seq(app.info)) return wantsTrace(view) && !app.original.seq2seq.decoderTrace;
    // The typed text's run, and the heads-off run on screen (the ablation reruns after the typed
    // text's; a token edit is never dropped for this: those views then show the typed text's run).
    const runs = app.edit?.kind === 'heads' ? [app.original, app.edited] : [app.original];
    return runs.some((r) => (wantsTrace(view) && !r.trace) ||
      (wantsLens(view) && !r.logitLens && lensFits(r)) || (wantsAttribution(view) && !r.attribution) ||
      (wantsFlow(view) && !r.flow) || (wantsPredictions(view) && !predictions && hasHead(app) && !predicted.has(r)));
  };

  function schedule() {
    clearTimeout(timer);
    if (lastRunMs <= FAST_RUN_MS) run();
    else timer = setTimeout(run, SLOW_RUN_DEBOUNCE_MS);
  }

  /** Runs the state's text (and pair) now; a newer run aborts this one and its answer is dropped. */
  async function run() {
    clearTimeout(timer);
    // A target being generated is on screen (app.streaming): the generation runs the text when it ends.
    if (app.streaming) return;
    const seq = ++runSeq;
    runAbort?.abort();
    runAbort = new AbortController();
    const { signal } = runAbort;
    const { state } = app;
    if (!state.text.trim()) {
      app.clearRun();   // nothing on screen may belong to an earlier input
      on.empty?.();
      return;
    }
    if (!model) return;
    on.start?.();
    const started = performance.now();
    try {
      const pair = state.pairOn && state.pair.trim() ? state.pair : undefined;
      const { text } = state;
      const opts = options();
      // An encoder–decoder: the source, and the target typed or generated (app.generated).
      const r = isSeq2Seq(app.info)
        ? await runSeq2Seq(model.client, { source: text, target: state.target, targetIds: app.generated?.targetIds,
          trace: wantsTrace(state.view), signal }, () => kindShown(app.state))
        : await model.client.run(text, { textPair: pair, signal, ...opts });
      if (opts.topK > 0) predicted.add(r);
      lastRunMs = performance.now() - started;
      if (seq !== runSeq || app.streaming) {
        r.release?.('a newer run superseded it');   // maps kept in the worker are freed now, not when collected
        return;
      }
      // The text this run is of (word-level views read its offsets against it); none with a pair,
      // whose second segment's offsets index the pair (a seq2seq result says for itself).
      if (!pair && !isSeq2Seq(app.info)) r.text = text;
      stats.runs++;
      app.showRun(r);
      on.shown?.(r, lastRunMs);
    } catch (e) {
      if (seq !== runSeq || isAbort(e)) return;
      on.failed?.(e);
    } finally {
      if (seq === runSeq) on.settled?.();
    }
  }

  /** Shows the view named by state.view in `host`; leaving a view stops its worker jobs. A view
   *  not loaded yet is fetched first (views/registry.js) and shown once it is, if still asked for;
   *  one the model's family has not says why in its place (model-family.js). */
  function show(host) {
    const id = views.includes(app.state.view) ? app.state.view : null;
    if (shownView !== null && shownView !== app.state.view) stopViewJobs();
    shownView = app.state.view;
    if (!id) return;
    const factory = loadedView(id);
    if (factory) {
      showView(host, app, id, () => guardedView(id, factory));
      return;
    }
    loadView(id).then(() => {
      if (app.state.view === id && app.result) show(host);
    }, (e) => on.failed?.(e));
  }

  function stopViewJobs() {
    viewJobs.abort(new AttnScopeError('E_ABORTED', 'cancelled: the view or the model changed'));
    viewJobs = new AbortController();
    for (const opened of compared?.models.values() ?? []) opened.then((o) => o.release(), () => {});
    compared = null;
  }

  // A job of the view shown: stopped with it (and by the view's own signal, its Cancel button).
  function viewJob(kind, start, own) {
    const signal = own ? AbortSignal.any([viewJobs.signal, own]) : viewJobs.signal;
    const entry = { kind, state: 'running' };
    jobLog.push(entry);
    if (jobLog.length > JOB_LOG) jobLog.shift();
    const promise = (async () => {
      if (!model) throw new AttnScopeError('E_INPUT', 'no model loaded');
      return start(model.client, signal);
    })();
    promise.then(() => { entry.state = 'done'; }, (e) => { entry.state = isAbort(e) ? 'aborted' : 'failed'; });
    return promise;
  }

  // Both bundled models, opened on first use and let go with the view's other jobs.
  function compare(text) {
    compared ??= { models: new Map(), text: null, promise: null };
    if (compared.text === text) return compared.promise;
    const { models } = compared;
    const { signal } = viewJobs;
    const one = async ({ side, model: source }) => {
      if (!models.has(source)) {
        const opening = openModel(source);
        models.set(source, opening);
        opening.catch(() => { if (models.get(source) === opening) models.delete(source); });
      }
      const { client, info } = await models.get(source);
      return { side, model: source, info, result: await client.run(text, { topK: 0, signal }) };
    };
    const promise = Promise.all(COMPARED.map((c) => one(c).catch((error) => ({ side: c.side, model: c.model, error }))))
      .then((sides) => Object.fromEntries(sides.map((s) => [s.side, s])));
    Object.assign(compared, { text, promise });
    return promise;
  }

  app.jobs = {
    get model() { return model?.client ?? null; },
    // An encoder–decoder's extra run: the text as a source (opts: target or targetIds), its plain result.
    run: (text, opts = {}) => viewJob('run', (client, signal) =>
      (isSeq2Seq(app.info) ? client.runSeq2Seq(text, { ...opts, signal }) : client.run(text, { ...opts, signal })), opts.signal),
    runIds: (ids, opts = {}) => viewJob('runIds', (client, signal) => client.runIds(ids, { ...opts, signal }), opts.signal),
    corpus: ({ signal, onProgress } = {}) =>
      viewJob('corpus', async (client, s) => (await corpusCode()).corpusSummary(client, { signal: s, onProgress }), signal),
    corpusMap: (layer, head, { signal, onProgress } = {}) =>
      viewJob('map', async (client, s) => (await corpusCode()).corpusMap(client, layer, head, { signal: s, onProgress }), signal),
    ablation: ({ signal, onProgress } = {}) =>
      viewJob('ablation', async (client, s) => (await corpusCode()).corpusAblation(client, { signal: s, onProgress }), signal),
    patch: (opts) => viewJob('patch', (client, signal) => client.patch({ ...opts, signal }), opts.signal),
    // Nothing is cached before the code has loaded (the first job loads it).
    cachedCorpus: () => corpusLoaded?.cachedCorpus(model?.client) ?? null,
    cachedCorpusMap: (layer, head) => corpusLoaded?.cachedCorpusMap(model?.client, layer, head) ?? null,
    compare,
  };

  return {
    loadModel, uses, options, needsTrace, schedule, run, show, stopViewJobs,
    /** The worker client of the model in use (the host's own runs: edits, generation), or null. */
    get client() { return model?.client ?? null; },
    /** The view jobs started lately, oldest first: { kind, state: running|done|aborted|failed }. */
    viewJobs: () => jobLog.map((j) => ({ ...j })),
  };
}
