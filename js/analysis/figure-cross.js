// A frozen figure of an encoder–decoder's cross-attention (kind 'cross'): the decoder's rows
// reading the source, one T_target × S_source matrix per head ([L][H][T][S], shape [L, H, T, S]).
// The figure's tokens are the target's (decoder_start_token_id, then the target: the rows), its
// `source` the source's (the columns; the offsets index the figure's text, the source). The views
// draw it as the page draws cross-attention (web/src/views/cross*.js): the grid as target × source
// thumbnails, the head and lines views as the cross view's heatmap and lines.
import { AttnScopeError } from '../formats/errors.js';
import { CROSS_KIND } from '../formats/figure-views.js';

/**
 * An encoder–decoder's run (js/api/seq2seq.js) seen as its cross-attention, the run a cross figure
 * is made of: the target's tokens as rows (as decoderRun: the target has no offsets into the
 * text), the source's as columns (`sourceEncoding`: the model's tokenize of the text,
 * `targetEncoding`: its tokenizeTarget of the target).
 */
export function crossRun(raw, sourceEncoding, targetEncoding) {
  const [L, H, T, S] = raw.crossShape;
  return {
    kind: CROSS_KIND,
    tokens: raw.targetTokens,
    tokenTexts: [raw.targetTokens[0], ...targetEncoding.tokenTexts],
    specialTokensMask: Uint8Array.of(1, ...targetEncoding.specialTokensMask),
    offsets: new Int32Array(2 * T),
    numTruncated: sourceEncoding.numTruncated + targetEncoding.numTruncated,
    shape: [L, H, T, S],
    source: { tokens: raw.sourceTokens, tokenTexts: sourceEncoding.tokenTexts,
      specialTokensMask: sourceEncoding.specialTokensMask, offsets: sourceEncoding.offsets },
    attention: (l, h) => raw.crossAttentions.subarray((l * H + h) * T * S, (l * H + h + 1) * T * S),
  };
}

/** The figure's `source` field from such a run. */
export function crossSource(result) {
  const { tokens, tokenTexts, specialTokensMask, offsets } = result.source;
  return { tokens: [...tokens], tokenTexts: [...tokenTexts], specialTokensMask: [...specialTokensMask], offsets: [...offsets] };
}

/** A cross figure's `source` read back and checked: S tokens, texts, marks and 2S offsets. */
export function sourceFromFigure(doc, S, bad) {
  const s = doc.source;
  if (!s || typeof s !== 'object') throw bad('a cross-attention figure needs its source tokens');
  for (const name of ['tokens', 'tokenTexts', 'specialTokensMask']) {
    if (!Array.isArray(s[name]) || s[name].length !== S) throw bad(`source.${name} must have ${S} entries`);
  }
  const offsets = Array.isArray(s.offsets) && s.offsets.length === 2 * S && s.offsets.every(Number.isInteger)
    ? s.offsets : new Array(2 * S).fill(0);
  return { tokens: s.tokens.map(String), tokenTexts: s.tokenTexts.map(String),
    specialTokensMask: Uint8Array.from(s.specialTokensMask, (v) => (v ? 1 : 0)), offsets: Int32Array.from(offsets) };
}

/** Refuses what a cross figure cannot hold: words (the rows and columns are two sentences). */
export function checkCrossFigure(words) {
  if (words) throw new AttnScopeError('E_INPUT', 'a cross-attention figure holds tokens: words merge one sentence\'s pieces');
}

/** For registerFigureKinds (js/analysis/snapshot.js): a cross figure's `source`, written and read. */
export const CROSS_FIGURE_CODE = {
  [CROSS_KIND]: {
    write: (result, words) => {
      checkCrossFigure(words);
      return crossSource(result);
    },
    read: sourceFromFigure,
  },
};
