// The figure format's code for the version-2 figures (js/analysis/snapshot.js registerFigureKinds), fetched
// by <attn-scope> only for a figure or view that needs it: reading a src's figure
// (frozen-figure.js) or saving the figure of the view on screen (element.js figureData).
import { registerFigureKinds } from '../../js/analysis/snapshot.js';
import { CROSS_KIND, LENS_VIEW, figureCodeParts } from '../../js/formats/figure-views.js';

// Each part of the figure format's code as a chunk of its own, so an element drawing matrices
// carries none of it: part → its module's code, fetched once.
const PART_CODE = {
  flow: () => import('../../js/analysis/figure-kinds.js').then((m) => m.FIGURE_KIND_CODE),
  patching: () => import('../../js/analysis/figure-kinds.js').then((m) => m.FIGURE_KIND_CODE),
  [LENS_VIEW]: () => import('../../js/analysis/figure-lens.js').then((m) => m.LENS_FIGURE_CODE),
  [CROSS_KIND]: () => import('../../js/analysis/figure-cross.js').then((m) => m.CROSS_FIGURE_CODE),
};

/** Fetches (and registers) the code that writes and reads the figures of `view` and an
 *  encoder–decoder's attention `kind`, where they have their own (flow, patching, the lens, cross). */
export const loadFigureKinds = (view, kind) =>
  Promise.all(figureCodeParts(view, kind).map((part) => PART_CODE[part]().then(registerFigureKinds)));
