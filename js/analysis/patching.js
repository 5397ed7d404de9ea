// Activation patching through the API (engine/patching.h: the definitions and the engine's
// checks). The grid is computed a row (one layer) per engine call, with a yield between rows, so a
// signal stops it between two rows and onProgress sees each row as it comes.
import { AttnScopeError, abortedError, checkSignal } from '../formats/errors.js';
import { nextTask } from './generate.js';

export const PATCH_SITES = Object.freeze(['resid_pre', 'attn_out', 'mlp_out', 'head', 'pattern']);
/** The sites whose cells are (layer, head); the others' are (layer, position). */
export const HEAD_PATCH_SITES = Object.freeze(['head', 'pattern']);
export const PATCH_OPTIONS = Object.freeze(['clean', 'corrupted', 'answer', 'wrong', 'site', 'signal', 'onProgress']);
// Encoder–decoders: the decoder's input (target text or ids) and whose sites (stack).
export const SEQ2SEQ_PATCH_OPTIONS = Object.freeze([...PATCH_OPTIONS, 'target', 'targetIds', 'stack']);
/** An encoder–decoder's stacks whose sites a grid patches, the default first. */
export const PATCH_STACKS = Object.freeze(['decoder', 'encoder']);

/** The ids of a target prefix (tokenizeTarget's encoding) the decoder has written so far: without
 *  the special tokens the tokenizer adds (T5's and Marian's </s>), so the logit difference is read
 *  after its last word rather than after an end of sequence. */
export const targetPrefixIds = (encoding) => Array.from(encoding.ids).filter((_, i) => !encoding.specialTokensMask[i]);

/**
 * The token id an answer names: a vocabulary id, a vocabulary token ("Ġcat"), or text that
 * tokenizes (special tokens aside) to exactly one piece (" cat"); E_INPUT naming the pieces
 * otherwise.
 * @param {{tokenToId(t): number, tokenize(text): {ids, tokens, specialTokensMask}}} model
 */
export function answerTokenId(model, value, name, vocabSize) {
  if (Number.isInteger(value)) {
    if (value < 0 || value >= vocabSize) throw new AttnScopeError('E_INPUT', `${name} id ${value} is outside the vocabulary [0, ${vocabSize})`);
    return value;
  }
  if (typeof value !== 'string' || value === '') {
    throw new AttnScopeError('E_INPUT', `${name} must be a token id or a non-empty token text, got ${JSON.stringify(value)}`);
  }
  const id = model.tokenToId(value);
  if (id >= 0) return id;
  const encoding = model.tokenize(value);
  const pieces = encoding.tokens.filter((_, i) => !encoding.specialTokensMask[i]);
  const ids = Array.from(encoding.ids).filter((_, i) => !encoding.specialTokensMask[i]);
  if (ids.length !== 1) {
    throw new AttnScopeError('E_INPUT', `${name} ${JSON.stringify(value)} is ${pieces.length} tokens ` +
      `(${pieces.map((p) => JSON.stringify(p)).join(' ')}), not one: patching compares the logits of single tokens`);
  }
  return ids[0];
}

/** Checks patch() options: E_INPUT naming the bad one. */
export function checkPatchOptions(o) {
  if (o === null || typeof o !== 'object') throw new AttnScopeError('E_INPUT', 'patch: options must be an object');
  for (const name of ['clean', 'corrupted', 'answer', 'wrong']) {
    if (o[name] === undefined || o[name] === null) throw new AttnScopeError('E_INPUT', `patch: ${name} is required`);
  }
  const site = o.site ?? 'resid_pre';
  if (!PATCH_SITES.includes(site)) throw new AttnScopeError('E_INPUT', `patch: site must be one of ${PATCH_SITES.join(', ')}, got ${JSON.stringify(site)}`);
  if (o.onProgress !== undefined && typeof o.onProgress !== 'function') throw new AttnScopeError('E_INPUT', 'patch: onProgress must be a function');
  checkSignal(o.signal, 'patch');
  return site;
}

/**
 * Runs a grid. `engine`: startPatch(clean, corrupted, answer, wrong, position, site) → {layers,
 * columns, position, cleanLd, corruptedLd}, patchRow(layer) → {scores}, endPatch().
 * Resolves to {site, clean, corrupted, scores: number[L][T or H], position, layers, columns}.
 */
export async function patchGrid(engine, { clean, corrupted, answer, wrong, position, site, signal, onProgress }) {
  const start = engine.startPatch(clean, corrupted, answer, wrong, position, site);
  try {
    const scores = [];
    for (let layer = 0; layer < start.layers; layer++) {
      await nextTask();  // an abort (or a worker's abort message) gets its turn between rows
      if (signal?.aborted) throw abortedError(signal.reason);
      const row = Array.from(engine.patchRow(layer).scores);
      scores.push(row);
      onProgress?.({ layer, scores: row, done: layer + 1, total: start.layers });
    }
    return { site, clean: start.cleanLd, corrupted: start.corruptedLd, scores, position: start.position,
      layers: start.layers, columns: start.columns };
  } finally {
    engine.endPatch();
  }
}
