// The logit lens's and direct logit attribution's options and results, the same for every kind of
// model (js/api/model.js; js/api/seq2seq.js for an encoder–decoder's decoder side): the bindings return
// flat typed arrays (bindings/analysis.h), named and shaped here.
import { AttnScopeError } from '../formats/errors.js';

/** E_INPUT unless options.logitLens is absent, false or a positive integer and options.attribution
 *  absent, false, true or {tokenId?, position?} of non-negative integers. */
export function checkAnalysisOptions({ logitLens, attribution }) {
  if (logitLens !== undefined && logitLens !== false && (!Number.isInteger(logitLens) || logitLens < 1)) {
    throw new AttnScopeError('E_INPUT', `logitLens must be a positive integer (tokens per cell), got ${logitLens}`);
  }
  if (attribution !== undefined && attribution !== false && attribution !== true) {
    const ok = attribution !== null && typeof attribution === 'object' &&
      Object.keys(attribution).every((key) => ['tokenId', 'position'].includes(key)) &&
      [attribution.tokenId, attribution.position].every((v) => v === undefined || (Number.isInteger(v) && v >= 0));
    if (!ok) throw new AttnScopeError('E_INPUT', 'attribution must be true or {tokenId?, position?} with non-negative integers');
  }
}

/**
 * The lens as [L+1][T] of {top: [{id, token, text, prob}], finalRank, finalProb} (with `next`, also
 * nextRank, nextProb: the token that actually follows; null at the last position). Row 0 is the
 * embeddings. named(id) → {id, token, text}.
 */
export function lensRows(raw, named, next) {
  const { layers, tokens, topK: k } = raw;
  const rows = [];
  for (let l = 0; l <= layers; l++) {
    const row = [];
    for (let t = 0; t < tokens; t++) {
      const i = l * tokens + t;
      const top = [];
      for (let r = 0; r < k; r++) top.push({ ...named(raw.topIds[i * k + r]), prob: raw.topProbs[i * k + r] });
      const entry = { top, finalRank: raw.finalRanks[i], finalProb: raw.finalProbs[i] };
      if (next) {
        const follows = raw.nextRanks[i] > 0;
        entry.nextRank = follows ? raw.nextRanks[i] : null;
        entry.nextProb = follows ? raw.nextProbs[i] : null;
      }
      row.push(entry);
    }
    rows.push(row);
  }
  return rows;
}

/** {position, tokenId, token, text, logit, parts: [{kind, layer, head, value}], sum}. */
export function attributionResult(raw, named) {
  const parts = raw.kinds.map((kind, i) => ({
    kind, layer: raw.layers[i] < 0 ? null : raw.layers[i], head: raw.heads[i] < 0 ? null : raw.heads[i], value: raw.values[i],
  }));
  const { token, text } = named(raw.tokenId);
  return { position: raw.position, tokenId: raw.tokenId, token, text, logit: raw.logit, parts, sum: raw.sum };
}
