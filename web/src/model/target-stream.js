// A target being generated, shown as it is written: each generate step
// (js/api/seq2seq.js) carries the decoder's self-attention row and cross-attention row of the position
// that wrote its token, so after k steps the decoder's first k rows are known without running
// anything again. The stream puts those rows together as a run result (seq2seq-run.js's shape)
// whose target is the k decoder inputs that wrote them: the cross view and the decoder kind grow a
// row per token. The full run after the generation stays the source of truth (its first k rows
// equal these; it also has the row after the last token, and the trace the Block view needs).
import { seq2seqResult, kindShown } from './seq2seq-run.js';
import { viewEntry } from '../views/registry.js';


/**
 * @param source the source text; src its tokenization (worker tokenize)
 * @param config the model's config (decoder layers and heads, decoder start token)
 * @param before the run on screen when the generation started, if any: it names the decoder start
 *   token (the worker sends ids only), and its encoder side is reused when it is of the same
 *   source ids (the encoder's attention does not depend on the target)
 * @param kindOf () → the kind the views draw
 */
export function createTargetStream({ source, src, config, before, kindOf }) {
  const Ld = config.decoderLayers, Hd = config.decoderHeads, S = src.ids.length;
  const prev = before?.seq2seq;
  const sameSource = prev && prev.sourceIds.length === S && prev.sourceIds.every((id, i) => id === src.ids[i]);
  const start = { id: config.decoderStartTokenId, token: prev?.targetTokens[0] ?? `[${config.decoderStartTokenId}]` };
  const steps = [];

  /** One more step (its rows must be the next position's). */
  function add(step) {
    const keys = steps.length + 1;
    if (step.decoderAttentions.length !== Ld * Hd * keys || step.crossAttentions.length !== Ld * Hd * S) {
      throw new Error(`generate step ${steps.length}: rows of ${step.decoderAttentions.length} / ${step.crossAttentions.length} floats, not ${Ld * Hd * keys} / ${Ld * Hd * S}`);
    }
    steps.push(step);
  }

  /** The steps so far as a result: T = steps rows, row i written by decoder input i. */
  function result() {
    const T = steps.length;
    const decoder = new Float32Array(Ld * Hd * T * T), cross = new Float32Array(Ld * Hd * T * S);
    steps.forEach((step, i) => {
      for (let lh = 0; lh < Ld * Hd; lh++) {
        // Causal: row i has keys 0..i, the cells after them stay 0 as in a full run.
        decoder.set(step.decoderAttentions.subarray(lh * (i + 1), (lh + 1) * (i + 1)), (lh * T + i) * T);
        cross.set(step.crossAttentions.subarray(lh * S, (lh + 1) * S), (lh * T + i) * S);
      }
    });
    const inputs = [start, ...steps.slice(0, -1)];
    const last = steps[T - 1];
    const raw = {
      sourceIds: Int32Array.from(src.ids),
      sourceTokens: sameSource ? prev.sourceTokens : Array.from(src.tokens),
      targetIds: Int32Array.from(inputs, (s) => s.id),
      targetTokens: inputs.map((s) => s.token),
      encoderAttentions: sameSource ? prev.encoderAttentions : null,
      encoderShape: sameSource ? prev.encoderShape : [config.encoderLayers, config.encoderHeads, S, S],
      decoderAttentions: decoder,
      crossAttentions: cross,
      decoderShape: [Ld, Hd, T, T],
      crossShape: [Ld, Hd, T, S],
      // The last row's token: written already, not a guess (views/cross.js labels it so).
      next: last ? [{ id: last.id, token: last.token, prob: last.prob }] : [],
    };
    const r = seq2seqResult(raw, { source, src }, kindOf);
    r.streamed = true;
    return r;
  }

  return { add, result, get length() { return steps.length; } };
}

/** The result on screen is a stream and the view shown cannot draw it (it waits for the full run):
 *  the Block walk, the head table, the encoder kind when the source's encoder has not run yet. */
export function waitsForFullRun(result, state) {
  if (!result?.streamed) return false;
  // The views that can only show a finished run (registry entry streams: false: the Block walk
  // reads the decoder's trace, the head table scores a whole target), and the encoder's side
  // before the full run has brought it.
  const entry = viewEntry(state.view);
  if (entry && !entry.streams) return true;
  return Boolean(entry?.kinds) && kindShown(state) === 'enc' && !result.seq2seq.encoderAttentions;
}
