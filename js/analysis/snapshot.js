// Frozen figures: the data one figure draws (tokens, the matrices its view shows, the model's
// name and shape, the text, view/layer/head) as a small JSON document, so a blog can show the
// figure with no WebAssembly and no model download (<attn-scope src="fig.json">). Written by
// `attnscope snapshot`, the page's "Save figure data" and the element; read back by
// figureResult. Not a cache of a whole run: a head view keeps one head, a lines view one layer.
// With words (sub-word pieces merged) it also holds the word spans and each held head's word-level matrix
// (js/analysis/words.js), so the figure draws words with no model; the token matrices stay (a reader may
// switch words off). Both are optional fields of version 1: an older reader ignores them.
// An encoder–decoder's figure holds one of its square self-attentions, the encoder's or the
// decoder's (optional field `kind`: 'enc' | 'dec', as the element's kind attribute names them).
// Version 2 adds four figures (version 1 files are read as before):
// - an encoder–decoder's cross-attention (kind 'cross', target × source matrices with the
//   source's tokens: js/analysis/figure-cross.js), drawn by the head, lines and grid views;
// - the logit lens (view 'layers', per row and position the top tokens, field `lens`: js/analysis/figure-lens.js);
// - figures that hold a block of their own named as their view instead of attention matrices
//   (FIGURE_KIND_VIEWS: the flow graph, js/analysis/figure-flow.js; a patching grid, js/analysis/figure-patching.js),
//   whose code js/analysis/figure-kinds.js holds for registerFigureKinds: the package's entry registers it,
//   the element fetches it only for such a figure.
// The lens and cross-attention are not views with a block of their own: cross is an attention
// kind that the matrix views draw, and a lens figure may hold another view's matrices beside its
// `lens` (the Python package's heads_of). Their code is registered all the same
// (registerFigureKinds), so an element drawing matrices fetches none of it.
// Version 3 adds an encoder–decoder's patching grid (its sources, the target so far, the stack:
// js/analysis/figure-patching.js). A figure carries the lowest version that has all it holds
// (figure-views.js figureVersion), so a reader from before version 2 still draws the head, lines
// and grid figures written now, and one from before version 3 every single-stack figure.
import { AttnScopeError } from '../formats/errors.js';
import { findWords, mergeHead } from './words.js';
import { CROSS_KIND, FIGURE_KIND_VIEWS, FIGURE_VIEW, FIGURE_VERSION, FIGURE_VIEWS, LENS_VIEW, figureVersion, holdsAttention } from '../formats/figure-views.js';

export { FIGURE_KIND_VIEWS, FIGURE_VERSION, FIGURE_VIEWS, figureVersion, holdsAttention };
export const FIGURE_FORMAT = 'attnscope-figure';
/** The versions figureResult reads. */
export const FIGURE_VERSIONS_READ = Object.freeze([1, 2, 3]);
// The code of the version-2 figures, registered (registerFigureKinds) by whoever writes or reads
// them: js/analysis/figure-kinds.js's FIGURE_KIND_CODE, flow and patching: view → { write(result, what) →
// the block, read(doc, [L, H, T], decoder, bad) → { fields, info?, state, covers(state), jobs? } };
// js/analysis/figure-lens.js's LENS_FIGURE_CODE, layers: { write(result) → lens, read(doc, L, T, bad) };
// js/analysis/figure-cross.js's CROSS_FIGURE_CODE, cross: { write(result, words) → source, read(doc, S, bad) }.
const FIGURE_KINDS = {};

/** Registers figure code (FIGURE_KIND_CODE, LENS_FIGURE_CODE, CROSS_FIGURE_CODE). */
export function registerFigureKinds(code) {
  Object.assign(FIGURE_KINDS, code);
}

// The registered code of one part of the format (figure-views.js figureCodeParts).
function codeOf(part) {
  if (!FIGURE_KINDS[part]) throw new AttnScopeError('E_INTERNAL', `the ${part} figure's code is not registered (registerFigureKinds)`);
  return FIGURE_KINDS[part];
}

// A view's kind, or null for a matrix view (or the lens, whose `lens` sits beside any matrices).
const kindOf = (view) => (FIGURE_KIND_VIEWS.includes(view) ? codeOf(view) : null);

// Six decimals: a weight is a probability, and a figure needs no more (the sum of a row stays
// within 1e-5 of 1); full float32 would triple the file.
const DECIMALS = 1e6;

/** The [layer, head] pairs a view draws. */
export function figureHeads(view, layer, head, layers, heads) {
  if (!holdsAttention(view)) return [];
  if (view === FIGURE_VIEW.head) return [[layer, head]];
  const pairs = [];
  for (let l = 0; l < layers; l++) {
    if (view === FIGURE_VIEW.lines && l !== layer) continue;
    for (let h = 0; h < heads; h++) pairs.push([l, h]);
  }
  return pairs;
}

/**
 * The figure document for one view of a run.
 * @param result a RunResult (tokens, tokenTexts, specialTokensMask, shape, attention())
 * @param {{model: string, info: object, text: string, view: string, layer: number, head: number,
 *   words?: boolean, position?: number, tau?: number, patching?: object}} what  words: add `words`
 *   [{text, start, end, tokens}] (findWords over the run's offsets into `text`) and `wordAttentions`,
 *   one W×W matrix per entry of `heads`; position, tau: a flow figure's prediction and threshold
 *   (js/analysis/figure-flow.js); patching: a patching figure's grid and corrupted run (js/analysis/figure-patching.js)
 */
export function figureData(result, what) {
  const { model, info, text, view, layer, head } = what;
  if (!FIGURE_VIEWS.includes(view)) {
    throw new AttnScopeError('E_INPUT', `a frozen figure draws the ${FIGURE_VIEWS.join(', ')} views, not "${view}"`);
  }
  // An encoder–decoder's patching grid is a figure of its encoder, whatever attention the host shows.
  if (view === FIGURE_VIEW.patching && info.kind === 'encoder-decoder') result = encoderSide(result);
  const kind = kindOf(view);
  const words = Boolean(what.words) && !kind;   // a flow graph or patching grid is drawn over tokens
  const [L, H, T] = result.shape;
  const cross = result.kind === CROSS_KIND;
  const crossCode = cross ? codeOf(CROSS_KIND) : null;
  const heads = figureHeads(view, layer, head, L, H);
  if (words && heads.length === 0) throw new AttnScopeError('E_INPUT', `the ${view} view holds no attention to merge into words`);
  const round = (v) => Math.round(v * DECIMALS) / DECIMALS;
  const wordSpans = words ? findWords(result, text) : null;
  const figure = {
    format: FIGURE_FORMAT,
    version: figureVersion(view, result.kind),
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
    ...(cross ? { source: crossCode.write(result, words) } : {}),
    ...(kind ? { [view]: kind.write(result, what) } : {
      heads,
      attentions: heads.map(([l, h]) => Array.from(result.attention(l, h), round)),
    }),
    ...(view === LENS_VIEW ? { lens: codeOf(LENS_VIEW).write(result) } : {}),
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
 * An encoder–decoder's run (js/api/seq2seq.js) seen as the run of its encoder, the figure `attnscope
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

// The encoder's side of an encoder–decoder's run: itself (encoderRun's), or the page's adapter
// (web/src/model/seq2seq-run.js: its raw run and the source's tokenization) seen through encoderRun.
function encoderSide(result) {
  if (result.kind === 'enc' && !result.seq2seq) return result;
  if (!result.seq2seq || !result.source) throw new AttnScopeError('E_INPUT', 'an encoder–decoder\'s patching figure is drawn over its source: give its run');
  return encoderRun(result.seq2seq, result.source);
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
  const kind = kindOf(doc.view);
  if (cross && kind) throw bad(`a cross-attention figure draws the matrix views, not "${doc.view}"`);
  if (doc.version < figureVersion(doc.view, doc.kind)) throw bad(`${cross ? 'kind "cross"' : `view "${doc.view}"`} in version ${doc.version}`);
  if (!kind && (!Array.isArray(doc.heads) || !Array.isArray(doc.attentions) || doc.heads.length !== doc.attentions.length)) throw bad('heads');
  const attentions = new Float32Array(L * H * T * S);
  const held = new Set();
  const config = { ...doc.modelInfo?.config, numLayers: L, numHeads: H };
  const own = kind ? kind.read(doc, [L, H, T], config.isDecoder === true, bad) : null;
  (kind ? [] : doc.heads).forEach(([l, h], i) => {
    if (!(Number.isInteger(l) && l >= 0 && l < L && Number.isInteger(h) && h >= 0 && h < H)) throw bad(`head ${l}/${h}`);
    const m = doc.attentions[i];
    if (!Array.isArray(m) || m.length !== T * S || !m.every((v) => typeof v === 'number' && v >= 0 && v <= 1)) throw bad(`matrix ${l}/${h}`);
    attentions.set(m, (l * H + h) * T * S);
    held.add(`${l}/${h}`);
  });
  const offsets = Array.isArray(doc.offsets) && doc.offsets.length === 2 * T ? doc.offsets : new Array(2 * T).fill(0);
  if (cross && doc.words !== undefined) throw bad('a cross-attention figure holds no words');
  const words = doc.words === undefined || kind ? null : figureWords(doc, T, L, H, bad);
  if (doc.view === LENS_VIEW && doc.lens === undefined) throw bad('a layers (logit lens) figure needs its lens');
  const lens = doc.view === LENS_VIEW ? codeOf(LENS_VIEW).read(doc, L, T, bad) : null;
  const source = cross ? codeOf(CROSS_KIND).read(doc, S, bad) : null;
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
      ...own?.fields,
    },
    // A lens figure of an encoder: its masked-LM head is what read the layers.
    info: { kind: cross ? 'encoder-decoder' : config.isDecoder ? 'decoder' : 'encoder', config, frozen: true,
      source: doc.model, ...(lens && !config.isDecoder ? { hasMlmHead: true } : {}), ...own?.info },
    /** The source side of a cross-attention figure ({tokens, tokenTexts, specialTokensMask, offsets}), or null. */
    source,
    /** Whether the figure holds what `view` at (layer, head) draws: every matrix (as words, too, if
     *  asked; of the attention kind an encoder–decoder's views are asked to show, `state.kind`), the
     *  lens of a lens figure; a flow or patching figure: whether `state` (state.js) asks for the graph
     *  or grid it holds. */
    covers: (view, layer, head, asWords = false, state = {}) => {
      if (kind) return view === doc.view && own.covers(state);
      if (!FIGURE_VIEWS.includes(view) || FIGURE_KIND_VIEWS.includes(view)) return false;
      if (asWords && words === null) return false;
      if (cross && state.kind !== undefined && state.kind !== CROSS_KIND) return false;
      return view === LENS_VIEW ? lens !== null : figureHeads(view, layer, head, L, H).every(([l, h]) => held.has(`${l}/${h}`));
    },
    /** An encoder–decoder's attention kind it holds ('enc' | 'dec' | 'cross'), or null. */
    kind: typeof doc.kind === 'string' ? doc.kind : null,
    /** The view state the figure was saved at (a flow figure's query and τ, a grid's prompts), or {}. */
    state: own?.state ?? {},
    /** The worker jobs the figure answers itself (a patching grid's), or null. */
    jobs: own?.jobs ?? null,
    /** An encoder–decoder's patching figure: the clean source's run over the target so far, as
     *  js/api/seq2seq.js gives it (no attention), which the element shows through seq2seq-run.js; or null. */
    seq2seq: own?.seq2seq ?? null,
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
