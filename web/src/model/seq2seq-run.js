// An encoder–decoder's run (js/api/seq2seq.js: encoderAttentions, decoderAttentions, crossAttentions)
// seen through the page's one result shape, so the grid, head and lines views draw any of its
// three attention kinds unchanged. state.kind chooses which: 'enc' (source ↔ source),
// 'dec' (target ↔ earlier target, causal), 'cross' (target rows → source columns: not square, so
// only the cross views, views/cross*.js, draw it). The source and target tokenizations (offsets,
// special tokens) come from the worker's tokenize, since a seq2seq run carries ids and tokens only.

import { viewEntry } from '../views/registry.js';

export const ATTENTION_KINDS = ['enc', 'dec', 'cross'];
/** The stacks whose layers the Block view walks (state.blockStack, ?stack=), the default first. */
export const SEQ2SEQ_STACKS = Object.freeze(['decoder', 'encoder']);

/** The kind the views draw: state.kind, but a view may read one kind whatever the switch says
 *  (its registry entry's showsKind: the Block view walks a layer of the stack state.blockStack
 *  names, so there the result is that stack's: its layers, heads and tokens to pick the query from). */
export function kindShown(state) {
  return viewEntry(state.view)?.showsKind?.(state) ?? state.kind;
}

/** The loaded model is an encoder–decoder (BART, Marian, T5). */
export function isSeq2Seq(info) {
  return info?.kind === 'encoder-decoder';
}

/**
 * Runs `source` (and the target: typed text, or the ids of a generation) on a worker client
 * holding an encoder–decoder; resolves to a result whose matrices follow kindOf() ('enc' | 'dec'
 * | 'cross'), read each time a view asks. trace: also the decoder's trace (raw.decoderTrace, the
 * Block view's).
 */
export async function runSeq2Seq(client, { source, target, targetIds, trace = false, signal }, kindOf) {
  const targetOption = targetIds ? { targetIds: Array.from(targetIds) } : target ? { target } : {};
  const [raw, src, tgt] = await Promise.all([
    client.runSeq2Seq(source, { ...targetOption, topK: 5, trace, signal }),
    client.tokenize(source, { signal }),
    targetIds || !target ? null : client.tokenizeTarget(target, { signal }),
  ]);
  return seq2seqResult(raw, { source, src, tgt }, kindOf);
}

/** The adapter itself (exported for tests and the embed): raw is js/api/seq2seq.js's run result. */
export function seq2seqResult(raw, { source, src, tgt }, kindOf) {
  const S = raw.sourceIds.length, T = raw.targetIds.length;
  // decoder_start_token_id is special; the typed target's own tokens carry its tokenizer's mask
  // (a generated target: its EOS is special when it is the model's EOS, read from the tokens).
  const targetSpecial = Uint8Array.from(raw.targetTokens, (tok, i) =>
    i === 0 ? 1 : tgt ? tgt.specialTokensMask[i - 1] ?? 0 : /^<\/?s>$|^<pad>$/.test(tok) ? 1 : 0);
  const sides = {
    enc: { tokens: raw.sourceTokens, ids: raw.sourceIds, special: Uint8Array.from(src.specialTokensMask),
      offsets: src.offsets, shape: raw.encoderShape, data: raw.encoderAttentions, text: source },
    dec: { tokens: raw.targetTokens, ids: raw.targetIds, special: targetSpecial,
      offsets: null, shape: raw.decoderShape, data: raw.decoderAttentions, text: undefined },
    cross: { tokens: raw.targetTokens, ids: raw.targetIds, special: targetSpecial,
      offsets: null, shape: raw.crossShape, data: raw.crossAttentions, text: undefined },
  };
  const side = () => sides[kindOf()] ?? sides.enc;
  const rows = (s) => s.shape[2] * s.shape[3];
  return {
    seq2seq: raw,
    sourceText: source,   // what `text` gives only while the encoder's side is shown
    sources: { tokens: raw.sourceTokens, special: sides.enc.special, offsets: src.offsets, S },
    // The source as a cross-attention figure holds it (js/analysis/figure-cross.js: its columns' labels).
    source: { tokens: raw.sourceTokens, tokenTexts: src.tokenTexts ?? raw.sourceTokens.map(readable),
      specialTokensMask: sides.enc.special, offsets: src.offsets },
    targets: { tokens: raw.targetTokens, special: targetSpecial, T },
    next: raw.next,
    numTruncated: 0,
    get kind() { return kindOf(); },
    get tokens() { return side().tokens; },
    get tokenTexts() { return side().tokens.map(readable); },
    get ids() { return side().ids; },
    get typeIds() { return new Int32Array(side().tokens.length); },
    get specialTokensMask() { return side().special; },
    get offsets() { return side().offsets ?? new Int32Array(side().tokens.length * 2); },
    get shape() { return side().shape; },
    get text() { return side().text; },
    /** One head's matrix of the kind shown ([rows][cols]: S×S, T×T, or T×S for cross). */
    attention(layer, head) {
      const s = side(), n = rows(s), at = (layer * s.shape[1] + head) * n;
      return s.data.subarray(at, at + n);
    },
    /** The cross-attention of one head, [T][S], whatever kind is shown. */
    cross(layer, head) {
      const s = sides.cross, n = rows(s), at = (layer * s.shape[1] + head) * n;
      return s.data.subarray(at, at + n);
    },
  };
}

// SentencePiece's ▁ and byte-level BPE's Ġ mark a word's start: shown as ␣ like the other models.
export function readable(token) {
  return token.replace(/^[\u2581\u0120]/, '\u2423');
}
