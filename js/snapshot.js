// Frozen figures: the data one figure draws (tokens, the matrices its view shows, the model's
// name and shape, the text, view/layer/head) as a small JSON document, so a blog can show the
// figure with no WebAssembly and no model download (<attn-scope src="fig.json">). Written by
// `attnscope snapshot`, the page's "Save figure data" and the element; read back by
// figureResult. Not a cache of a whole run: a head view keeps one head, a lines view one layer.
import { AttnScopeError } from './errors.js';

export const FIGURE_FORMAT = 'attnscope-figure';
export const FIGURE_VERSION = 1;
/** Views a frozen figure can draw from its matrices alone (others need q, k, v or a trace). */
export const FIGURE_VIEWS = Object.freeze(['head', 'lines', 'grid']);
// Six decimals: a weight is a probability, and a figure needs no more (the sum of a row stays
// within 1e-5 of 1); full float32 would triple the file.
const DECIMALS = 1e6;

/** The [layer, head] pairs a view draws. */
export function figureHeads(view, layer, head, layers, heads) {
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
 * @param {{model: string, info: object, text: string, view: string, layer: number, head: number}} what
 */
export function figureData(result, { model, info, text, view, layer, head }) {
  if (!FIGURE_VIEWS.includes(view)) {
    throw new AttnScopeError('E_INPUT', `a frozen figure draws the ${FIGURE_VIEWS.join(', ')} views, not "${view}"`);
  }
  const [L, H, T] = result.shape;
  const heads = figureHeads(view, layer, head, L, H);
  const config = info.config;
  return {
    format: FIGURE_FORMAT,
    version: FIGURE_VERSION,
    model,
    modelInfo: {
      kind: info.kind,
      config: { numLayers: config.numLayers, numHeads: config.numHeads, hiddenSize: config.hiddenSize,
        headDim: config.headDim, isDecoder: config.isDecoder, family: config.family },
    },
    text,
    view, layer, head,
    tokens: [...result.tokens],
    tokenTexts: [...(result.tokenTexts ?? result.tokens)],
    specialTokensMask: [...result.specialTokensMask],
    offsets: [...result.offsets],
    shape: [L, H, T],
    heads,
    attentions: heads.map(([l, h]) => Array.from(result.attention(l, h), (v) => Math.round(v * DECIMALS) / DECIMALS)),
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
  if (doc.version !== FIGURE_VERSION) throw bad(`version ${doc.version} (this reader knows ${FIGURE_VERSION})`);
  const [L, H, T] = Array.isArray(doc.shape) ? doc.shape : [];
  if (![L, H, T].every((n) => Number.isInteger(n) && n > 0 && n <= 4096)) throw bad('shape');
  for (const name of ['tokens', 'tokenTexts', 'specialTokensMask']) {
    if (!Array.isArray(doc[name]) || doc[name].length !== T) throw bad(`${name} must have ${T} entries`);
  }
  if (!FIGURE_VIEWS.includes(doc.view)) throw bad(`view "${doc.view}"`);
  if (!Array.isArray(doc.heads) || !Array.isArray(doc.attentions) || doc.heads.length !== doc.attentions.length) throw bad('heads');
  const attentions = new Float32Array(L * H * T * T);
  const held = new Set();
  doc.heads.forEach(([l, h], i) => {
    if (!(Number.isInteger(l) && l >= 0 && l < L && Number.isInteger(h) && h >= 0 && h < H)) throw bad(`head ${l}/${h}`);
    const m = doc.attentions[i];
    if (!Array.isArray(m) || m.length !== T * T || !m.every((v) => typeof v === 'number' && v >= 0 && v <= 1)) throw bad(`matrix ${l}/${h}`);
    attentions.set(m, (l * H + h) * T * T);
    held.add(`${l}/${h}`);
  });
  const offsets = Array.isArray(doc.offsets) && doc.offsets.length === 2 * T ? doc.offsets : new Array(2 * T).fill(0);
  const config = { ...doc.modelInfo?.config, numLayers: L, numHeads: H };
  return {
    fields: {
      tokens: doc.tokens.map(String),
      tokenTexts: doc.tokenTexts.map(String),
      ids: new Int32Array(T),
      typeIds: new Int32Array(T),
      offsets: Int32Array.from(offsets),
      specialTokensMask: Uint8Array.from(doc.specialTokensMask, (v) => (v ? 1 : 0)),
      numTruncated: 0,
      shape: [L, H, T, T],
      kvHeads: Array.from({ length: H }, (_, h) => h),
      attentions,
    },
    info: { kind: config.isDecoder ? 'decoder' : 'encoder', config, frozen: true, source: doc.model },
    /** Whether the figure holds every matrix `view` at (layer, head) draws. */
    covers: (view, layer, head) => FIGURE_VIEWS.includes(view) &&
      figureHeads(view, layer, head, L, H).every(([l, h]) => held.has(`${l}/${h}`)),
    text: typeof doc.text === 'string' ? doc.text : '',
    model: typeof doc.model === 'string' ? doc.model : 'bundled',
    view: doc.view,
    layer: Number.isInteger(doc.layer) ? doc.layer : 0,
    head: Number.isInteger(doc.head) ? doc.head : 0,
  };
}
