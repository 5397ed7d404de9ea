// A frozen figure of the logit lens (the Layers view, web/src/views/layers.js): per row (the
// embeddings, then the residual stream after each layer) and position, the top-k tokens the
// model's own head reads there with their probabilities, where the last row's top token stands
// (finalRank, finalProb) and, for decoders, where the token that actually follows stands
// (nextRank, nextProb; null at the last position). What js/api/model.js's logitLens gives, in
// camelCase, probabilities to six significant digits (a small probability keeps its digits: the
// view shows it as 3.2e-7). It holds no attention matrix: the view draws none.
import { AttnScopeError } from '../formats/errors.js';
import { LENS_VIEW } from '../formats/figure-views.js';

const significant = (p) => (p === null ? null : Number(p.toPrecision(6)));

/** The figure's `lens` from a run's logitLens ([L+1][T] of {top: [{id, token, text, prob}], …}). */
export function lensData(logitLens) {
  if (!logitLens) throw new AttnScopeError('E_INPUT', 'a lens figure needs the run\'s logit lens (run with logitLens)');
  return logitLens.map((row) => row.map((e) => ({
    top: e.top.map(({ id, token, text, prob }) => ({ id, token, text, prob: significant(prob) })),
    finalRank: e.finalRank,
    finalProb: significant(e.finalProb),
    ...('nextRank' in e ? { nextRank: e.nextRank, nextProb: significant(e.nextProb) } : {}),
  })));
}

/** A figure's `lens` read back and checked: L + 1 rows of T entries, as the Layers view reads
 *  result.logitLens. `bad(why)` makes the reader's error. */
export function lensFromFigure(doc, L, T, bad) {
  const { lens } = doc;
  if (!Array.isArray(lens) || lens.length !== L + 1) throw bad(`lens must have ${L + 1} rows (the embeddings and ${L} layers)`);
  const probability = (p) => typeof p === 'number' && p >= 0 && p <= 1;
  const rank = (r) => Number.isInteger(r) && r >= 1;
  return lens.map((row, l) => {
    if (!Array.isArray(row) || row.length !== T) throw bad(`lens row ${l} must have ${T} entries`);
    return row.map((e, p) => {
      const top = e?.top;
      if (!Array.isArray(top) || top.length === 0 || !top.every((c) => Number.isInteger(c?.id) && c.id >= 0 &&
        typeof c.token === 'string' && typeof c.text === 'string' && probability(c.prob))) throw bad(`lens ${l}/${p}: top`);
      if (!rank(e.finalRank) || !probability(e.finalProb)) throw bad(`lens ${l}/${p}: finalRank, finalProb`);
      const next = 'nextRank' in e;
      if (next && !((e.nextRank === null && e.nextProb === null) || (rank(e.nextRank) && probability(e.nextProb)))) {
        throw bad(`lens ${l}/${p}: nextRank, nextProb`);
      }
      return { top: top.map(({ id, token, text, prob }) => ({ id, token, text, prob })), finalRank: e.finalRank,
        finalProb: e.finalProb, ...(next ? { nextRank: e.nextRank, nextProb: e.nextProb } : {}) };
    });
  });
}

/** For registerFigureKinds (js/analysis/snapshot.js): a lens figure's `lens`, written and read. */
export const LENS_FIGURE_CODE = {
  [LENS_VIEW]: { write: (result) => lensData(result.logitLens), read: lensFromFigure },
};
