// The code of the figures that hold a block of their own (js/analysis/snapshot.js FIGURE_KIND_VIEWS), for
// registerFigureKinds: the package's entry (js/index.js) registers it at once; <attn-scope>
// fetches this module (a chunk of its own) only for a flow or patching figure or view, so an
// element drawing a grid does not carry it. It does not import snapshot.js itself: the element's
// chunks then stay as they were for the matrix views.
import { flowFigureBlock, flowFigureRead } from './figure-flow.js';
import { patchingFigureBlock, patchingFigureRead } from './figure-patching.js';

/** view → { write(result, what) → block, read(doc, [L, H, T], decoder, bad) } (the version that has
 *  each: js/formats/figure-views.js figureVersion; the lens's and cross-attention's code: figure-lens.js,
 *  figure-cross.js, each a chunk of its own in the element). */
export const FIGURE_KIND_CODE = {
  flow: {
    write: (result, what) => flowFigureBlock(result, what),
    read: (doc, shape, decoder, bad) => flowFigureRead(doc, shape, bad),
  },
  patching: {
    write: (result, what) => patchingFigureBlock(result, what.patching, what.info.config.isDecoder === true),
    read: patchingFigureRead,
  },
};
