// <attn-scope src="fig.json">: a frozen figure (js/snapshot.js) fetched and turned into the run
// the views draw, with no WebAssembly and no model download. The element stays frozen while the
// figure holds every matrix the view asks for; a new text, or a view or head it does not hold,
// switches it to a live run of the model. A flow or patching figure's own code (js/figure-kinds.js)
// is a chunk fetched with the first such figure or view.
import { RunResult } from '../../js/result.js';
import { AttnScopeError } from '../../js/errors.js';
import { FIGURE_KIND_VIEWS, figureResult, registerFigureKinds } from '../../js/snapshot.js';

/** Fetches (and registers) the code that writes and reads `view`'s figures, where it has its own (flow, patching). */
export const loadFigureKinds = (view) => (FIGURE_KIND_VIEWS.includes(view)
  ? import('../../js/figure-kinds.js').then((m) => registerFigureKinds(m.FIGURE_KIND_CODE)) : Promise.resolve());

/** Fetches and reads a figure: { result, info, covers(view, layer, head), text, model, view, layer, head }. */
export async function fetchFigure(src, baseUrl) {
  let response;
  try {
    response = await fetch(new URL(src, baseUrl));
  } catch (error) {
    throw new AttnScopeError('E_NETWORK', `cannot fetch the figure ${src}: ${error.message}`);
  }
  if (!response.ok) throw new AttnScopeError('E_NETWORK', `cannot fetch the figure ${src}: HTTP ${response.status}`);
  let doc;
  try {
    doc = await response.json();
  } catch {
    throw new AttnScopeError('E_INPUT', `the figure ${src} is not JSON`);
  }
  await loadFigureKinds(doc?.view);
  const figure = figureResult(doc);
  return { ...figure, result: new RunResult(figure.fields) };
}
