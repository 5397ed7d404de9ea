// The Patching view on an encoder–decoder (views/patching.js): the clean and corrupted prompts are
// sources, the decoder reads the same target so far (the prefix) after both, and the answer is its
// next token, as `attnscope patch --target` reads it (js/analysis/patching.js targetPrefixIds: no end token).
// The grid patches the decoder's sites (target positions; its self-attention heads) or the
// encoder's (source positions; its heads). This file finds the corrupted source, the prefix and
// both runs over it through the view's jobs; no DOM here.
import { PATCHING_SEQ2SEQ_EXAMPLE, corruptionCandidates, defaultPrefix } from './patch-suggest.js';
import { readable } from './seq2seq-run.js';

// The corrupted source's token count only: no predictions needed yet.
const COUNT_ONLY = { topK: 0 };
// Both runs' top next tokens: what the answer and wrong pickers offer.
const TOP_K = 5;

/**
 * The corrupted source (typed, or the first suggestion as long as the clean one), the prefix's
 * ids (typed text, or defaultPrefix over the run's target) and both runs over it.
 * @param r      the run on screen (seq2seq-run.js's result: its source and target)
 * @param run    (text, options) → a job's js/api/seq2seq.js run result
 * @param config the model's config (its special tokens: a typed prefix drops those added)
 * Resolves to { text, suggestion, prefixIds, prefixChoice, prefixWord, cleanRun, run } or
 * { error: { key } }; prefixChoice says where the prefix came from: 'typed', 'example', 'cut'
 * (before prefixWord, the changed word as the target has it), 'whole' (the run's whole target) or
 * 'none' (the run has no target: the answer is the first target token).
 */
export async function prepareSeq2Seq(r, { clean, typed, prefix, config }, run) {
  const sourceLength = r.sources.tokens.length;
  let text = typed, suggestion = null, corruptedTokens = null;
  if (typed) corruptedTokens = (await run(typed, COUNT_ONLY)).sourceTokens;
  else {
    for (const c of corruptionCandidates(clean)) {
      const out = await run(c.text, COUNT_ONLY);
      if (out.sourceTokens.length !== sourceLength) continue;
      ({ text } = c);
      suggestion = c;
      corruptedTokens = out.sourceTokens;
      break;
    }
    if (!text) return { error: { key: 'patchNoSuggestion' } };
  }
  const special = new Set([config.eosTokenId, config.padTokenId, config.decoderStartTokenId]);
  const idsOf = (out) => Array.from(out.targetIds).slice(1).filter((id) => !special.has(id));
  // The bundled example's prefix, typed by its link or chosen, is explained as the example's.
  const example = clean === PATCHING_SEQ2SEQ_EXAMPLE.clean && (!prefix || prefix === PATCHING_SEQ2SEQ_EXAMPLE.prefix);
  let prefixIds, prefixWord = null, prefixChoice = example ? 'example' : 'typed';
  const chosen = prefix ? { text: prefix } : defaultPrefix(clean, r.sources.tokens, corruptedTokens,
    r.targets.tokens.filter((_, i) => i > 0 && !r.targets.special[i]));
  if (chosen.text !== undefined) prefixIds = idsOf(await run(clean, { ...COUNT_ONLY, target: chosen.text }));
  else {
    prefixIds = Array.from(r.seq2seq.targetIds).filter((_, i) => i > 0 && !r.targets.special[i]).slice(0, chosen.length);
    prefixChoice = chosen.word !== null ? 'cut' : chosen.length > 0 ? 'whole' : 'none';
    prefixWord = chosen.word?.replace(/^[\u2581\u0120]/, '') ?? null;
  }
  const [cleanRun, corruptedRun] = await Promise.all([clean, text].map((t) => run(t, { topK: TOP_K, targetIds: prefixIds })));
  return { text, suggestion, prefixIds, prefixChoice, prefixWord, cleanRun, run: corruptedRun };
}

/** A run's sources as the view's alignment rows show them: { tokens, tokenTexts }. */
export const sourceRow = (raw) => ({ tokens: raw.sourceTokens, tokenTexts: raw.sourceTokens.map(readable) });

/** The grid of `stack` for a site: its layers, columns (positions or heads) and column labels,
 *  from the clean run over the prefix. */
export function seq2seqGrid(cleanRun, stack, byHead) {
  const [layers, heads] = stack === 'encoder' ? cleanRun.encoderShape : cleanRun.decoderShape;
  const tokens = stack === 'encoder' ? cleanRun.sourceTokens : cleanRun.targetTokens;
  return byHead ? { layers, columns: heads, labels: Array.from({ length: heads }, (_, h) => `H${h}`) }
    : { layers, columns: tokens.length, labels: tokens.map(readable) };
}

/** What the decoder has written, as the view says it: its tokens after the start token joined
 *  into words (SentencePiece's ▁ and byte-level BPE's Ġ start a word; otherwise WordPiece's ##
 *  continues one). */
export function prefixText(cleanRun) {
  const tokens = cleanRun.targetTokens.slice(1);
  const marksStarts = tokens.some((tok) => /^[\u2581\u0120]/.test(tok));
  return tokens.map((tok, i) => {
    if (marksStarts) return /^[\u2581\u0120]/.test(tok) && i > 0 ? ' ' + tok.slice(1) : tok.replace(/^[\u2581\u0120]/, '');
    return tok.startsWith('##') ? tok.slice(2) : (i > 0 ? ' ' : '') + tok;
  }).join('');
}
