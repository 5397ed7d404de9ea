// An encoder–decoder's patching figure (js/analysis/figure-patching.js, version 3) as the run the Patching
// view reads (web/src/model/seq2seq-run.js's adapter over js/api/seq2seq.js's result): the clean source's
// tokens and the target so far, with the clean run's top predictions after it. It holds no
// attention, so it shows the encoder's side (the figure's own tokens); the view's other runs and
// its grid are the figure's jobs.
import { seq2seqResult } from '../src/model/seq2seq-run.js';

/** The run of a figure read by figureResult whose `seq2seq` is set. */
export function patchingFigureRun(figure) {
  const { fields, seq2seq: raw } = figure;
  // The adapter marks decoder_start_token_id (row 0) special; the target so far has no others.
  const tgt = { specialTokensMask: new Uint8Array(raw.targetTokens.length - 1) };
  return seq2seqResult(raw, { source: figure.text, src: fields, tgt }, () => 'enc');
}
