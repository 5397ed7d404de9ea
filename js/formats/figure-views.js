// What a frozen figure can be, in one place: the views it draws, the kinds of figure that came
// with each format version, and their names. Facts only, no code: the view registry, the run
// controller and the element read them without carrying the figure format's readers and writers
// (js/analysis/snapshot.js, and the code it is given for the lens, cross-attention, flow and patching).

/** The logit lens's view (web/src/views/registry.js's id): a figure of tokens and probabilities. */
export const LENS_VIEW = 'layers';
/** Tokens per lens cell: what the Layers view lists for a cell (its live runs ask for as many). */
export const LENS_TOP_K = 5;
/** The attention kind of an encoder–decoder's cross-attention figure (the element's kind attribute names it so). */
export const CROSS_KIND = 'cross';

/** Views a frozen figure can draw with no model (others need q, k, v, a trace or more runs), by
 *  name: the package names them as FIGURE_VIEW.<id> (the page's registry, which it cannot import,
 *  checks that they are its view ids). */
export const FIGURE_VIEW = Object.freeze({ head: 'head', lines: 'lines', grid: 'grid', [LENS_VIEW]: LENS_VIEW, flow: 'flow', patching: 'patching' });
export const FIGURE_VIEWS = Object.freeze(Object.values(FIGURE_VIEW));
/** Those whose figure holds a block of its own (named as the view) instead of attention matrices. */
export const FIGURE_KIND_VIEWS = Object.freeze([FIGURE_VIEW.flow, FIGURE_VIEW.patching]);

/** Whether a figure of `view` holds attention matrices: the lens holds tokens and probabilities,
 *  a flow or patching figure a block of its own. */
export const holdsAttention = (view) => view !== LENS_VIEW && !FIGURE_KIND_VIEWS.includes(view);

// The format version that first has each view or attention kind; the rest are version 1.
const VERSION_SINCE = Object.freeze({ [LENS_VIEW]: 2, [FIGURE_VIEW.flow]: 2, [FIGURE_VIEW.patching]: 2, [CROSS_KIND]: 2 });
// The version that first has a view's figure of an encoder–decoder (one with a `kind`), where
// that came later than the view: a patching grid over two sources and a target so far.
const SEQ2SEQ_SINCE = Object.freeze({ [FIGURE_VIEW.patching]: 3 });

/** The newest version written (an encoder–decoder's patching figure's). */
export const FIGURE_VERSION = 3;

/** The version a figure of `view` (and an encoder–decoder's attention `kind`) carries: the lowest
 *  that has both, so a reader from before version 2 still draws the figures it knew. */
export function figureVersion(view, kind) {
  return Math.max(VERSION_SINCE[view] ?? 1, VERSION_SINCE[kind] ?? 1, (kind && SEQ2SEQ_SINCE[view]) || 1);
}

/** The parts of the figure format's code (registerFigureKinds) a figure of `view` and `kind`
 *  needs: its view's, where it is not a matrix view, and cross-attention's. */
export function figureCodeParts(view, kind) {
  return [...(holdsAttention(view) ? [] : [view]), ...(kind === CROSS_KIND ? [CROSS_KIND] : [])];
}
