// A read-only window into the page for the Playwright tests (and curious users in DevTools):
// copies of the state and of the numbers each view draws, never references to live objects.
import { isCausal, isMaskedCell } from '../model/causal-mask.js';
import { knownAlignment } from '../model/heldout.js';

/** @param viewJobs () → the view jobs started lately (run-controller.js viewJobs)
 *  @param steering () → the Steering panel's last steering (the page; null elsewhere) */
export function installTestHook(app, { viewJobs, steering = () => null }) {
  const copy = (a) => (a ? Array.from(a) : null);
  const hook = {
    get state() { return JSON.parse(JSON.stringify(app.state)); },
    get status() { return document.body.dataset.status; },
    get runsDone() { return app.runsDone; },
    /** The text (an encoder–decoder's: the source) of the run on screen: a run of an older text can
     *  be shown before the new one's. */
    get runText() { const r = app.original; return (r?.seq2seq ? r.sourceText : r?.text) ?? null; },
    /** The views' worker jobs (corpus, map, ablation, run), oldest first: { kind, state }. */
    get viewJobs() { return viewJobs(); },
    get info() { return app.info ? JSON.parse(JSON.stringify(app.info)) : null; },
    get shape() { return app.result ? [...app.result.shape] : null; },
    get tokens() { return app.result ? [...app.result.tokens] : null; },
    get originalTokens() { return app.original ? [...app.original.tokens] : null; },
    get offsets() { return copy(app.original?.offsets); },
    get typeIds() { return copy(app.original?.typeIds); },
    get numTruncated() { return app.original?.numTruncated ?? null; },
    get maskPredictions() { return app.result?.maskPredictions ? JSON.parse(JSON.stringify(app.result.maskPredictions)) : null; },
    get edit() { return app.edit ? JSON.parse(JSON.stringify(app.edit)) : null; },
    /** The matrix a view shows for (layer, head): special tokens hidden/renormalised or not. */
    shown(layer, head) { return copy(app.displayMatrix(layer, head)); },
    shownPositions() { return [...app.display().positions]; },
    shownLabels() { return [...app.display().labels]; },
    /** Whether the run on screen keeps its maps in the worker (js/api/result.js), and its bytes there. */
    get maps() {
      const r = app.result;
      return r ? { inWorker: Boolean(r.mapsInWorker), memoryBytes: r.memoryBytes ?? 0 } : null;
    },
    /** The grid's thumbnails: each head's last row as drawn (layer-major). */
    gridLastRows() { return (app.views.grid?.view.exposed?.lastRows ?? []).map(copy); },
    /** The engine's raw matrix of the run on screen (edited when an edit is active). */
    raw(layer, head, which = 'result') { return copy(app[which].attention(layer, head)); },
    vector(which, layer, head, token) {
      const r = app.result, [L, H, T] = r.shape, dh = r[which].length / (L * H * T);
      const s = ((layer * H + head) * T + token) * dh;
      return copy(r[which].subarray(s, s + dh));
    },
    valueNorms(layer, head) {
      const r = app.result, [, H, T] = r.shape;
      return copy(r.valueNorms?.subarray((layer * H + head) * T, (layer * H + head + 1) * T));
    },
    get formula() { return app.views.formula?.view.last ?? null; },
    // The block walk-through (its self-checks) and the positions view's numbers.
    get block() { const b = app.views.block?.view.last; return b ? JSON.parse(JSON.stringify(b)) : null; },
    get positions() { const p = app.views.positions?.view.exposed.last; return p ? JSON.parse(JSON.stringify(p)) : null; },
    // Head probing: the head table's rows (sorted as shown) and timings; the query/key map's numbers.
    get heads() { const e = app.views.heads?.view.exposed; return e ? JSON.parse(JSON.stringify(e)) : null; },
    // The Patching view's grid: site, answer and wrong, rows done, scores, the two LDs.
    get patching() { const p = app.views.patching?.view.exposed?.last; return p ? JSON.parse(JSON.stringify(p)) : null; },
    get qkMap() { const e = app.views.map?.view.exposed; return e ? JSON.parse(JSON.stringify(e)) : null; },
    /** The map on screen as the worker sent it (points, kinds, runs, positions). */
    qkMapPoints() {
      const view = app.views.map?.view;  // the map tab is guarded (guardedView): its view is inside
      const m = (view?.inner ?? view)?.currentMap?.();
      return m ? { layer: m.layer, head: m.head, points: copy(m.points), kinds: copy(m.kinds), runs: copy(m.runs), positions: copy(m.positions) } : null;
    },
    aggregate(kind) { return copy(app.views.aggregates?.view.exposed[kind]); },
    diff(kind) { return copy(app.views.diff?.view.exposed[kind]); },
    // Decoders: whether the views draw the model as causal, which cells of a shown
    // matrix they hatch as masked, the generation in progress or last finished, the compare view.
    get causal() { return isCausal(app); },
    maskedCells(n) { return Array.from({ length: n * n }, (_, x) => isMaskedCell(isCausal(app), Math.floor(x / n), x % n)); },
    get generation() { return app.generation ? JSON.parse(JSON.stringify(app.generation)) : null; },
    /** The Steering panel's last texts (plain and steered ids and tokens), settings and size. */
    get steering() { return steering(); },
    get ids() { return copy(app.result?.ids); },
    get tokenTexts() { return app.result?.tokenTexts ? [...app.result.tokenTexts] : null; },
    get nextByPosition() { return app.result?.nextByPosition ? JSON.parse(JSON.stringify(app.result.nextByPosition)) : null; },
    /** The Layers and Contributions views' data (the typed text's run). */
    get logitLens() { return app.original?.logitLens ? JSON.parse(JSON.stringify(app.original.logitLens)) : null; },
    get attribution() { return app.original?.attribution ? JSON.parse(JSON.stringify(app.original.attribution)) : null; },
    // Encoder–decoders: the run's two sides, the kind shown, a generated target, the
    // known alignment's scores; one head's cross-attention [T][S].
    get seq2seq() {
      const r = app.original;
      if (!r?.seq2seq) return null;
      const k = knownAlignment(app);
      return JSON.parse(JSON.stringify({
        kind: app.state.kind, sourceTokens: r.sources.tokens, targetTokens: r.targets.tokens,
        encoderShape: r.seq2seq.encoderShape, decoderShape: r.seq2seq.decoderShape, crossShape: r.seq2seq.crossShape,
        generated: app.generated, heldout: app.heldout?.length ?? 0,
        alignment: k && { pair: k.pair, aligned: k.score.aligned, heads: Array.from(k.score.heads), layerMean: Array.from(k.score.layerMean),
          allMean: k.score.allMean, diagonal: k.score.diagonal },
      }));
    },
    cross(layer, head) { return copy(app.original?.cross?.(layer, head)); },
    /** A target being generated is on screen (its rows so far: target-stream.js), not a full run. */
    get streamed() { return Boolean(app.original?.streamed); },
    compare(side) {
      const e = app.views.compare?.view.exposed[side];
      return e ? { ...e, matrix: Array.from(e.matrix) } : null;
    },
  };
  Object.defineProperty(window, '__attnscope', { value: Object.freeze(hook), writable: false });
}
