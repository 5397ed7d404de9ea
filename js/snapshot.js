// Frozen figures: the data one figure draws (tokens, the matrices its view shows, the model's
// name and shape, the text, view/layer/head) as a small JSON document, so a blog can show the
// figure with no WebAssembly and no model download (<attn-scope src="fig.json">). Written by
// `attnscope snapshot`, the page's "Save figure data" and the element; read back by
// figureResult. Not a cache of a whole run: a head view keeps one head, a lines view one layer.
// With words (sub-word pieces merged) it also holds the word spans and each held head's word-level matrix
// (js/words.js), so the figure draws words with no model; the token matrices stay (a reader may
// switch words off). Both are optional fields of version 1: an older reader ignores them.
// An encoder–decoder's figure holds one of its square self-attentions, the encoder's or the
// decoder's (optional field `kind`: 'enc' | 'dec', as the element's kind attribute names them).
// Version 2 adds two figures (version 1 files are still read): an encoder–decoder's
// cross-attention (kind 'cross', target × source matrices: js/figure-cross.js) and the logit lens
// (view 'layers', per row and position the top tokens: js/figure-lens.js).
import { AttnScopeError } from './errors.js';
import { findWords, mergeHead } from './words.js';
import { CROSS_KIND, checkCrossFigure, crossSource, sourceFromFigure } from './figure-cross.js';
import { LENS_VIEW, lensData, lensFromFigure } from './figure-lens.js';

export const FIGURE_FORMAT = 'attnscope-figure';
export const FIGURE_VERSION = 2;
/** The versions this reader draws (each adds optional fields to the one before). */
export const FIGURE_VERSIONS_READ = Object.freeze([1, 2]);
/** Views a frozen figure can draw from what it holds (others need q, k, v or a trace). */
export const FIGURE_VIEWS = Object.freeze(['head', 'lines', 'grid', LENS_VIEW]);
// Six decimals: a weight is a probability, and a figure needs no more (the sum of a row stays
// within 1e-5 of 1); full float32 would triple the file.
const DECIMALS = 1e6;

/** The [layer, head] pairs a view draws. */
export function figureHeads(view, layer, head, layers, heads) {
  if (view === LENS_VIEW) return [];   // the lens holds tokens and probabilities, no attention
  if (view === 'head') return [[layer, head]];
  const pairs = [];
  for (let l = 0; l < layers; l++) {
    if (view === 'lines' && l !== layer) continue;
    for (let h = 0; h < heads; h++) pairs.push([l, h]);
  }
  return pairs;
}

/**
 * The figure document for one view of a run.
 * @param result a RunResult (tokens, tokenTexts, specialTokensMask, shape, attention())
 * @param {{model: string, info: object, text: string, view: string, layer: number, head: number,
 *   words?: boolean}} what  words: add `words` [{text, start, end, tokens}] (findWords over the
 *   run's offsets into `text`) and `wordAttentions`, one W×W matrix per entry of `heads`
 */
export function figureData(result, { model, info, text, view, layer, head, words = false }) {
  if (!FIGURE_VIEWS.includes(view)) {
    throw new AttnScopeError('E_INPUT', `a frozen figure draws the ${FIGURE_VIEWS.join(', ')} views, not "${view}"`);
  }
  const [L, H, T] = result.shape;
  const cross = result.kind === CROSS_KIND;
  if (cross) checkCrossFigure(words);
  const heads = figureHeads(view, layer, head, L, H);
  if (words && heads.length === 0) throw new AttnScopeError('E_INPUT', `the ${view} view holds no attention to merge into words`);
  const round = (v) => Math.round(v * DECIMALS) / DECIMALS;
  const wordSpans = words ? findWords(result, text) : null;
  const figure = {
    format: FIGURE_FORMAT,
    version: FIGURE_VERSION,
    model,
    modelInfo: { kind: info.kind, config: figureConfig(info, result) },
    ...(info.kind === 'encoder-decoder' ? { kind: result.kind } : {}),
    text,
    view, layer, head,
    tokens: [...result.tokens],
    tokenTexts: [...(result.tokenTexts ?? result.tokens)],
    specialTokensMask: [...result.specialTokensMask],
    offsets: [...result.offsets],
    shape: cross ? [...result.shape] : [L, H, T],
    ...(cross ? { source: crossSource(result) } : {}),
    heads,
    attentions: heads.map(([l, h]) => Array.from(result.attention(l, h), round)),
    ...(view === LENS_VIEW ? { lens: lensData(result.logitLens) } : {}),
  };
  if (wordSpans) {
    figure.words = wordSpans.map(({ text: word, start, end, tokens }) => ({ text: word, start, end, tokens: [...tokens] }));
    figure.wordAttentions = heads.map(([l, h]) => Array.from(mergeHead(result.attention(l, h), wordSpans, T), round));
  }
  return figure;
}

// The config a figure's views read. An encoder–decoder's figure holds one of its square
// self-attentions (result.kind 'enc' or 'dec', as seq2seqResult or encoderRun give it): the
// layers, heads and head width of that side, a decoder's causal mask when it is the decoder's.
function figureConfig(info, result) {
  const c = info.config;
  if (info.kind !== 'encoder-decoder') {
    return { numLayers: c.numLayers, numHeads: c.numHeads, hiddenSize: c.hiddenSize, headDim: c.headDim,
      isDecoder: c.isDecoder, family: c.family };
  }
  if (!['enc', 'dec', CROSS_KIND].includes(result.kind)) {
    throw new AttnScopeError('E_INPUT', 'an encoder–decoder\'s figure holds one of its attentions: enc, dec or cross');
  }
  const decoder = result.kind !== 'enc';   // cross-attention lives in the decoder's layers
  return { numLayers: result.shape[0], numHeads: result.shape[1], hiddenSize: c.hiddenSize,
    headDim: decoder ? c.decoderHeadDim : c.encoderHeadDim, isDecoder: decoder, family: c.modelType };
}

/**
 * An encoder–decoder's run (js/seq2seq.js) seen as the run of its encoder, the figure `attnscope
 * snapshot` writes for it: the source's self-attention, with the source's tokens, offsets and
 * special tokens from `encoding` (the model's tokenize of the text; the run carries ids only).
 */
export function encoderRun(raw, encoding) {
  const [L, H, S] = raw.encoderShape;
  return {
    kind: 'enc',
    tokens: raw.sourceTokens,
    tokenTexts: encoding.tokenTexts,
    specialTokensMask: encoding.specialTokensMask,
    offsets: encoding.offsets,
    numTruncated: encoding.numTruncated,
    shape: [L, H, S, S],
    attention: (l, h) => raw.encoderAttentions.subarray((l * H + h) * S * S, (l * H + h + 1) * S * S),
  };
}

/**
 * The same run seen as the run of its decoder over the target (`encoding`: the model's
 * tokenizeTarget of it): decoder_start_token_id, then the target's tokens; no offsets (they would
 * index the target, not the figure's text, which is the source).
 */
export function decoderRun(raw, encoding) {
  const [L, H, T] = raw.decoderShape;
  return {
    kind: 'dec',
    tokens: raw.targetTokens,
    tokenTexts: [raw.targetTokens[0], ...encoding.tokenTexts],
    specialTokensMask: Uint8Array.of(1, ...encoding.specialTokensMask),
    offsets: new Int32Array(2 * T),
    numTruncated: encoding.numTruncated,
    shape: [L, H, T, T],
    attention: (l, h) => raw.decoderAttentions.subarray((l * H + h) * T * T, (l * H + h + 1) * T * T),
  };
}

/**
 * A figure document read back: plain RunResult fields (attentions L·H·T·T, zero where the figure
 * holds no head), the model info the views read, and the heads it holds. Throws E_INPUT on
 * anything that is not a figure this version can draw (the file may come from anywhere).
 */
export function figureResult(doc) {
  const bad = (why) => new AttnScopeError('E_INPUT', `not an AttnScope figure: ${why}`);
  if (!doc || typeof doc !== 'object' || doc.format !== FIGURE_FORMAT) throw bad('format is not "attnscope-figure"');
  if (!FIGURE_VERSIONS_READ.includes(doc.version)) throw bad(`version ${doc.version} (this reader knows ${FIGURE_VERSIONS_READ.join(', ')})`);
  // A cross-attention figure's matrices are T (target) × S (source): shape [L, H, T, S].
  const cross = doc.kind === CROSS_KIND;
  const [L, H, T, S = T] = Array.isArray(doc.shape) && doc.shape.length === (cross ? 4 : 3) ? doc.shape : [];
  if (![L, H, T, S].every((n) => Number.isInteger(n) && n > 0 && n <= 4096)) throw bad('shape');
  for (const name of ['tokens', 'tokenTexts', 'specialTokensMask']) {
    if (!Array.isArray(doc[name]) || doc[name].length !== T) throw bad(`${name} must have ${T} entries`);
  }
  if (!FIGURE_VIEWS.includes(doc.view)) throw bad(`view "${doc.view}"`);
  if (!Array.isArray(doc.heads) || !Array.isArray(doc.attentions) || doc.heads.length !== doc.attentions.length) throw bad('heads');
  const attentions = new Float32Array(L * H * T * S);
  const held = new Set();
  doc.heads.forEach(([l, h], i) => {
    if (!(Number.isInteger(l) && l >= 0 && l < L && Number.isInteger(h) && h >= 0 && h < H)) throw bad(`head ${l}/${h}`);
    const m = doc.attentions[i];
    if (!Array.isArray(m) || m.length !== T * S || !m.every((v) => typeof v === 'number' && v >= 0 && v <= 1)) throw bad(`matrix ${l}/${h}`);
    attentions.set(m, (l * H + h) * T * S);
    held.add(`${l}/${h}`);
  });
  const offsets = Array.isArray(doc.offsets) && doc.offsets.length === 2 * T ? doc.offsets : new Array(2 * T).fill(0);
  const config = { ...doc.modelInfo?.config, numLayers: L, numHeads: H };
  if (cross && doc.words !== undefined) throw bad('a cross-attention figure holds no words');
  const words = doc.words === undefined ? null : figureWords(doc, T, L, H, bad);
  if (doc.view === LENS_VIEW && doc.lens === undefined) throw bad('a layers (logit lens) figure needs its lens');
  const lens = doc.lens === undefined ? null : lensFromFigure(doc, L, T, bad);
  const source = cross ? sourceFromFigure(doc, S, bad) : null;
  return {
    fields: {
      ...(typeof doc.text === 'string' ? { text: doc.text } : {}),   // what the offsets (and words) index
      ...(words ?? {}),
      tokens: doc.tokens.map(String),
      tokenTexts: doc.tokenTexts.map(String),
      ids: new Int32Array(T),
      typeIds: new Int32Array(T),
      offsets: Int32Array.from(offsets),
      specialTokensMask: Uint8Array.from(doc.specialTokensMask, (v) => (v ? 1 : 0)),
      numTruncated: 0,
      shape: [L, H, T, S],
      kvHeads: Array.from({ length: H }, (_, h) => h),
      attentions,
      ...(lens ? { logitLens: lens } : {}),
    },
    // A lens figure of an encoder: its masked-LM head is what read the layers.
    info: { kind: cross ? 'encoder-decoder' : config.isDecoder ? 'decoder' : 'encoder', config, frozen: true,
      source: doc.model, ...(lens && !config.isDecoder ? { hasMlmHead: true } : {}) },
    /** The source side of a cross-attention figure ({tokens, tokenTexts, specialTokensMask, offsets}), or null. */
    source,
    /** Whether the figure holds every matrix `view` at (layer, head) draws (as words, too, if asked;
     *  of the attention `kind` an encoder–decoder's views are asked to show). */
    covers: (view, layer, head, asWords = false, kind = undefined) => FIGURE_VIEWS.includes(view) &&
      (!asWords || words !== null) && (!cross || kind === undefined || kind === CROSS_KIND) &&
      (view === LENS_VIEW ? lens !== null : figureHeads(view, layer, head, L, H).every(([l, h]) => held.has(`${l}/${h}`))),
    /** An encoder–decoder's attention kind it holds ('enc' | 'dec' | 'cross'), or null. */
    kind: typeof doc.kind === 'string' ? doc.kind : null,
    /** Whether the figure was saved with words on (it holds the word spans and matrices). */
    words: words !== null,
    text: typeof doc.text === 'string' ? doc.text : '',
    model: typeof doc.model === 'string' ? doc.model : 'bundled',
    view: doc.view,
    layer: Number.isInteger(doc.layer) ? doc.layer : 0,
    head: Number.isInteger(doc.head) ? doc.head : 0,
  };
}

// A figure's words and word matrices, checked (each word's tokens in range, every token in one
// word, rows of the given size in [0, 1]) and laid out as a RunResult's words / wordAttentions
// (L·H·W·W, zero where the figure holds no head).
function figureWords(doc, T, L, H, bad) {
  const { words, wordAttentions } = doc;
  if (!Array.isArray(words) || words.length === 0 || words.length > T) throw bad('words');
  const seen = new Uint8Array(T);
  for (const w of words) {
    if (!w || typeof w.text !== 'string' || !Number.isInteger(w.start) || !Number.isInteger(w.end) ||
      !Array.isArray(w.tokens) || w.tokens.length === 0) throw bad('a word needs text, start, end and tokens');
    for (const t of w.tokens) {
      if (!Number.isInteger(t) || t < 0 || t >= T || seen[t]) throw bad(`word token ${t}`);
      seen[t] = 1;
    }
  }
  if (!seen.every(Boolean)) throw bad('every token belongs to one word');
  const W = words.length;
  if (!Array.isArray(wordAttentions) || wordAttentions.length !== doc.heads.length) throw bad('wordAttentions: one per head');
  const flat = new Float32Array(L * H * W * W);
  doc.heads.forEach(([l, h], i) => {
    const m = wordAttentions[i];
    if (!Array.isArray(m) || m.length !== W * W || !m.every((v) => typeof v === 'number' && v >= 0 && v <= 1 + 1e-5)) throw bad(`word matrix ${l}/${h}`);
    flat.set(m, (l * H + h) * W * W);
  });
  return { words: words.map((w) => ({ text: w.text, start: w.start, end: w.end, tokens: [...w.tokens] })), wordAttentions: flat };
}
