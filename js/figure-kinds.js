// The code of the figures that hold a block of their own (js/snapshot.js FIGURE_KIND_VIEWS),
// registered with snapshot.js when this module is imported: the package's entry (js/index.js)
// does; <attn-scope> fetches it (a chunk of its own) only for a flow or patching figure, so an
// element drawing a grid does not carry it.
import { registerFigureKind } from './snapshot.js';
import { flowFigureBlock, flowFigureRead } from './figure-flow.js';
import { patchingFigureBlock, patchingFigureRead } from './figure-patching.js';

registerFigureKind('flow', {
  since: 2,
  write: (result, what) => flowFigureBlock(result, what),
  read: (doc, shape, decoder, bad) => flowFigureRead(doc, shape, bad),
});
registerFigureKind('patching', {
  since: 2,
  write: (result, what) => patchingFigureBlock(result, what.patching, what.info.config.isDecoder === true),
  read: patchingFigureRead,
});
