// A cross-attention figure (js/analysis/figure-cross.js) as the run the page's cross views draw
// (web/src/views/cross*.js read an encoder–decoder's run through seq2seq-run.js's adapter): the
// figure's target rows and source columns, its matrices as the run's crossAttentions. It holds
// only the cross-attention, so the adapter always shows that kind; asking for the encoder's or
// the decoder's self-attention leaves the figure for a live run (the element's covers()).
import { seq2seqResult } from '../src/model/seq2seq-run.js';
import { CROSS_KIND } from '../../js/formats/figure-views.js';

/** The run of a figure read by figureResult whose `source` is set (kind 'cross'). */
export function crossFigureRun(figure) {
  const { fields, source } = figure;
  const raw = {
    sourceIds: new Int32Array(source.tokens.length),
    targetIds: new Int32Array(fields.tokens.length),
    sourceTokens: source.tokens,
    targetTokens: fields.tokens,
    crossShape: fields.shape,
    crossAttentions: fields.attentions,
    next: [],   // the figure holds no prediction: the last row is labelled as a guess ("→ ?")
  };
  // The adapter marks decoder_start_token_id (row 0) special and reads the others' marks here.
  const tgt = { specialTokensMask: fields.specialTokensMask.subarray(1) };
  return seq2seqResult(raw, { source: figure.text, src: source, tgt }, () => CROSS_KIND);
}
