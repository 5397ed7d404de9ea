// The views, declared once. Everything else about a view is derived from its entry here: the
// page's tabs and their order, the ids a URL may name (state.js), which views the element offers,
// which run outputs a run asks for, which model families have the view, which views merge
// sub-word pieces into words, which can be saved as a frozen figure, which grow while a target is
// being generated. Adding a view is its file (views/<id>.js, default export: (panel, app) → view),
// its entry below and its strings (view_<id>, its tab's label, and its own keys in i18n.js's
// English and Korean tables). No DOM here: Node tests read it, and a view's code is only fetched
// when a host first shows it (`load`).
import { FIGURE_VIEWS } from '../../../js/formats/figure-views.js';

/** The model families a view can apply to (modelFamily() in model-family.js names the loaded one). */
export const FAMILIES = Object.freeze(['encoder', 'decoder', 'encoder-decoder']);
const SINGLE_STACK = ['encoder', 'decoder'];

/** The run outputs a view may need beyond the attention (js/api/model.js run options): only runs of
 *  those views ask for them, as each costs memory or another pass. 'predictions': the top next
 *  tokens (or [MASK] fillers) even where the host shows none (the element). */
export const RUN_OUTPUTS = Object.freeze(['trace', 'logitLens', 'attribution', 'flow', 'predictions']);

/** A position past any input: the state clamps it to the input's last (clampToResult in state.js),
 *  for the views that open at the prediction after the text. */
export const LAST_POSITION = 99999;

/**
 * One entry per view, in tab order.
 *   id          the view's name in URLs (?view=), the element's view attribute and the file name
 *   label       the i18n key of its tab / button (default view_<id>)
 *   needs       run outputs it reads (RUN_OUTPUTS)
 *   families    the families it applies to; elsewhere it says why not (`unavailable`, an i18n key;
 *               default viewNotSeq2Seq) and the page hides its tab
 *   words       it draws display()/displayMatrix() only, so it can merge pieces into words
 *   kinds       an encoder–decoder's kind switch (enc/dec/cross) chooses what it draws
 *   showsKind   (state) → the encoder–decoder attention it reads whatever the kind switch says
 *   opens       the state an opening of the view sets with it (the cross view: kind 'cross')
 *   streams     it can draw a target still being generated (false: it waits for the full run)
 *   element     <attn-scope> offers it
 *   scope       what one drawing covers, for an exported figure's title: 'model' (every layer
 *               and head), 'layer' or 'head' (default)
 *   params      URL parameters of its own (state.js parses them): name → state key
 *   maps        how it reads attention maps when a run's stay in the worker (too large for the page:
 *               RunResult.mapsInWorker): 'selected' (the selected head's, fetched before it draws),
 *               'each' (every head, fetched and drawn a few at a time by the view itself) or
 *               'every' (all at once: the view says it is not offered at that size; the default)
 *   load        its module, fetched on first use
 * `figure` (a frozen figure can draw it) is js/formats/figure-views.js's FIGURE_VIEWS, the figure format's.
 */
const ENTRIES = [
  { id: 'grid', scope: 'model', words: true, kinds: true, element: true, maps: 'each', load: () => import('./grid.js') },
  { id: 'head', words: true, kinds: true, element: true, maps: 'selected', load: () => import('./head.js') },
  { id: 'lines', scope: 'layer', words: true, kinds: true, element: true, load: () => import('./lines.js') },
  { id: 'cross', families: ['encoder-decoder'], unavailable: 'crossNeedsSeq2Seq', opens: { kind: 'cross' },
    load: () => import('./cross.js') },
  { id: 'formula', families: SINGLE_STACK, element: true, maps: 'selected', load: () => import('./formula.js') },
  { id: 'aggregates', scope: 'model', families: SINGLE_STACK, element: true, load: () => import('./aggregates.js') },
  { id: 'diff', families: SINGLE_STACK, load: () => import('./diff.js') },
  { id: 'compare', load: () => import('./compare.js') },
  // An encoder–decoder's walk goes through a layer of the stack its switch names (?stack=).
  { id: 'block', needs: ['trace'], showsKind: (state) => (state.blockStack === 'encoder' ? 'enc' : 'dec'), streams: false,
    element: true, params: { stack: 'blockStack' }, load: () => import('./block.js') },
  { id: 'positions', families: SINGLE_STACK, element: true, params: { pa: 'positionsA', pb: 'positionsB' },
    load: () => import('./positions.js') },
  // The head table scores a whole target.
  { id: 'heads', scope: 'model', streams: false, load: () => import('./heads.js') },
  { id: 'map', families: SINGLE_STACK, load: () => import('./map.js') },
  { id: 'layers', needs: ['logitLens'], families: SINGLE_STACK, params: { lr: 'lensRow' },
    load: () => import('./layers.js') },
  { id: 'contributions', needs: ['attribution'], families: SINGLE_STACK,
    load: () => import('./contributions.js') },
  // Opens at the last position's prediction; a click on a node reads it with the logit lens.
  { id: 'flow', needs: ['flow', 'logitLens'], families: SINGLE_STACK, opens: { query: LAST_POSITION }, streams: false,
    element: true, params: { tau: 'flowTau' }, load: () => import('./flow.js') },
  // Activation patching: a grid of worker jobs' rows over the whole model, for one prompt pair.
  // Its answer and wrong pickers offer the clean run's top predictions. Encoder–decoders: the
  // sources differ, the decoder has written `prefix`, and `patch-stack` says whose sites are patched.
  { id: 'patching', scope: 'model', needs: ['predictions'], streams: false, element: true,
    params: { corrupted: 'patchCorrupted', answer: 'patchAnswer', wrong: 'patchWrong', site: 'patchSite',
      prefix: 'patchPrefix', 'patch-stack': 'patchStack' },
    load: () => import('./patching.js') },
];

/** What an entry that does not say otherwise has. */
export const ENTRY_DEFAULTS = Object.freeze({
  needs: [], families: FAMILIES, unavailable: 'viewNotSeq2Seq', words: false, kinds: false, showsKind: null, opens: {},
  streams: true, element: false, scope: 'head', params: {}, maps: 'every',
});
const entry = (e) => Object.freeze({ ...ENTRY_DEFAULTS, label: `view_${e.id}`, ...e, figure: FIGURE_VIEWS.includes(e.id) });

/** Every view, in tab order. */
export const VIEW_LIST = Object.freeze(ENTRIES.map(entry));
/** id → entry. */
export const VIEW_BY_ID = new Map(VIEW_LIST.map((v) => [v.id, v]));
/** The ids a URL may name. */
export const VIEW_IDS = Object.freeze(VIEW_LIST.map((v) => v.id));
/** The ids, by name, for the code that opens a view (VIEW.head rather than a literal). */
export const VIEW = Object.freeze(Object.fromEntries(VIEW_IDS.map((id) => [id, id])));

/** The entry of a view id (undefined for an unknown id). */
export const viewEntry = (id) => VIEW_BY_ID.get(id);
/** The ids whose entries satisfy `test`. */
export const viewIds = (test) => VIEW_LIST.filter(test).map((v) => v.id);

/** The views <attn-scope> offers, in button order. */
export const ELEMENT_VIEW_IDS = Object.freeze(viewIds((v) => v.element));
/** Whether view `id` reads run output `output` (RUN_OUTPUTS). */
export const viewNeeds = (id, output) => Boolean(viewEntry(id)?.needs.includes(output));
/** The state a switch to view `id` sets: the view, and what opening it implies. */
export const openView = (id) => ({ view: id, ...viewEntry(id)?.opens });

/** A view's module, loaded once: the factory (panel, app) → view of its default export. */
const loaded = new Map();
export function loadView(id) {
  if (!loaded.has(id)) {
    const promise = viewEntry(id).load().then((m) => {
      promise.factory = m.default;
      return m.default;
    });
    promise.catch(() => loaded.delete(id));   // a failed fetch (offline) may be retried
    loaded.set(id, promise);
  }
  return loaded.get(id);
}
/** The factory of a view whose module has loaded, or null. */
export const loadedView = (id) => loaded.get(id)?.factory ?? null;
