// <attn-scope src="fig.json">: a frozen figure (js/analysis/snapshot.js) fetched and turned into the run
// the views draw, with no WebAssembly and no model download. The element stays frozen while the
// figure holds every matrix the view asks for; a new text, or a view or head it does not hold,
// switches it to a live run of the model. A cross-attention figure becomes an encoder–decoder's
// run (frozen-cross.js), drawn by the cross views, and so does an encoder–decoder's patching grid
// (frozen-patching.js); a lens figure's run carries its logitLens for the Layers view. The version-2 figures' own code is a chunk fetched with the first such figure
// or view (figure-code.js).
import { RunResult } from '../../js/api/result.js';
import { AttnScopeError } from '../../js/formats/errors.js';
import { figureResult } from '../../js/analysis/snapshot.js';
import { loadFigureKinds } from './figure-code.js';

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
  await loadFigureKinds(doc?.view, doc?.kind);
  const figure = figureResult(doc);
  if (figure.seq2seq) {   // an encoder–decoder's patching grid
    const { patchingFigureRun } = await import('./frozen-patching.js');
    return { ...figure, result: patchingFigureRun(figure) };
  }
  if (!figure.source) return { ...figure, result: new RunResult(figure.fields) };
  const { crossFigureRun } = await import('./frozen-cross.js');
  return { ...figure, result: crossFigureRun(figure) };
}
