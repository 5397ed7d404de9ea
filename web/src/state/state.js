// The page's one state object and its mirror in the URL (so a permalink restores the view).
// URL parameters are untrusted: each is parsed and validated here, and anything invalid falls
// back to the default. Values are only ever shown through textContent, never as HTML.
import { isHubId } from '../../../js/api/hub-id.js';
import { BUNDLED_MODEL, isBundledModelId } from '../../../js/api/bundled-models.js';
import { FLOW_DEFAULT_TAU } from '../../../js/analysis/flow-tau.js';
import { GENERATE_DEFAULTS } from '../../../js/analysis/generate.js';
import { PATCH_SITES, PATCH_STACKS } from '../../../js/analysis/patching.js';
import { STEER_MAX_STRENGTH } from './setting-check.js';
import { WEIGHT_PRECISION_CHOICES } from '../../../js/api/memory-estimate.js';
import { LESSONS } from '../lesson/steps.js';
import { ATTENTION_KINDS, SEQ2SEQ_STACKS } from '../model/seq2seq-run.js';
import { openView, VIEW, VIEW_IDS } from '../views/registry.js';

export { isHubId };

/** The views a URL may name (views/registry.js). */
export const VIEWS = VIEW_IDS;
export const LANGS = ['en', 'ko'];
// The API's choices, 'auto' first: the page's default (the API's is f32).
export const WEIGHT_PRECISIONS = ['auto', ...WEIGHT_PRECISION_CHOICES.filter((p) => p !== 'auto')];
export const MAX_TEXT_CHARS = 20000;   // keeps permalinks and the tokenizer's work bounded

export const DEFAULT_TEXT = 'The cat sat on the mat because it was tired.';
// The positions view's two sentences: the same words in another order.
export const DEFAULT_POSITION_PAIR = ['There is a prince', 'Is there a prince'];
export const MAX_POSITION_CHARS = 500;   // the positions view's inputs take as much
const MAX_TOKEN_CHARS = 100;             // a patching answer names one token
const MAX_STEER_CHARS = 500;             // a steering text is a short phrase
// The Steering panel's example on the bundled decoder: "the house" → "the church" added at layer
// 4 turns "In the evening he went to the house…" into "…to the church. He was a church…".
export const STEER_EXAMPLE = Object.freeze({ prompt: 'In the evening he went to', from: 'the house', to: 'the church', layer: 4, strength: 1.5 });

// The Patching view opens an encoder–decoder's grid on the encoder's sites, where the two sources
// differ (the API's default is the decoder's, which the difference only reaches through
// cross-attention).
const PAGE_PATCH_STACK = 'encoder';

/** The values a parameter limited to a list may take (state key → list, the default first): tests pick from it. */
export const PARAM_CHOICES = Object.freeze({ patchSite: PATCH_SITES, blockStack: SEQ2SEQ_STACKS,
  patchStack: [PAGE_PATCH_STACK, ...PATCH_STACKS.filter((s) => s !== PAGE_PATCH_STACK)] });

export function defaultState() {
  return {
    text: DEFAULT_TEXT,
    pair: '',
    pairOn: false,
    model: BUNDLED_MODEL,    // 'bundled' | 'bundled-causal' | hub id | 'local' (a picked folder; not restorable)
    view: VIEW.grid,
    layer: 0,
    head: 0,
    query: 1,                // token position for the formula and the head view's focus
    selected: [],            // query positions aggregated together
    hideSpecial: false,
    lesson: '',              // the guided lesson shown above the views ('' none; lesson/steps.js)
    step: 1,                 // its step, 1-based
    words: false,            // the matrix views merge sub-word tokens into words (js/analysis/words.js)
    threshold: 0,            // weights below it draw as 0
    lang: 'en',
    // Generation (decoders): kept in the permalink so the same seed writes the same text.
    genTokens: GENERATE_DEFAULTS.maxNewTokens,
    genTemperature: GENERATE_DEFAULTS.temperature,
    genTopK: GENERATE_DEFAULTS.topK,
    genTopP: GENERATE_DEFAULTS.topP,         // top-p (nucleus) of generation and of the next-token panel's sampling preview
    genSeed: GENERATE_DEFAULTS.seed,
    flowTau: FLOW_DEFAULT_TAU, // the Flow view's threshold: edges with a smaller share are not drawn
    lensRow: -1,             // the Layers view's open cell: its row (0 = embeddings, l = after layer l; −1 none) at `query`
    headsOff: [],            // heads switched off ('layer:head'): the ablation (ablation.js)
    weightPrecision: 'auto', // 'auto' (f16 when f32 weights would pass ~300 MB) | 'f32' | 'f16' | 'q8'
    positionsA: DEFAULT_POSITION_PAIR[0],   // the positions view's sentences (typed text: kept in the link)
    positionsB: DEFAULT_POSITION_PAIR[1],
    // Encoder–decoders (seq2seq-run.js): the target typed after the source, and which attention
    // the grid, head and lines views show ('enc' | 'dec' | 'cross').
    target: '',
    kind: 'cross',
    blockStack: SEQ2SEQ_STACKS[0],   // the stack whose layers the Block view walks ('decoder' | 'encoder')
    // The Patching view: the corrupted prompt and the two tokens compared ('' = the view's
    // suggestion, patch-suggest.js), and the activation patched (js/analysis/patching.js's sites).
    patchCorrupted: '',
    patchAnswer: '',
    patchWrong: '',
    patchSite: PATCH_SITES[0],
    // Encoder–decoders: the target the decoder has written so far ('' = the view's choice,
    // patch-suggest.js), the answer being its next token, and whose sites are patched.
    patchPrefix: '',
    patchStack: PAGE_PATCH_STACK,
    // The Steering panel (steer-panel.js): strength · (mean residual stream of steerTo − that of
    // steerFrom) added entering layer steerLayer; the example's values by default.
    steerFrom: STEER_EXAMPLE.from,
    steerTo: STEER_EXAMPLE.to,
    steerLayer: STEER_EXAMPLE.layer,
    steerStrength: STEER_EXAMPLE.strength,
  };
}

function intParam(params, name, min, max) {
  const raw = params.get(name);
  if (raw === null || !/^\d{1,6}$/.test(raw)) return undefined;
  const n = Number(raw);
  return n >= min && n <= max ? n : undefined;
}

// Reads a state from a query string; unknown or invalid parameters are ignored.
export function stateFromUrl(search) {
  const s = defaultState();
  const p = new URLSearchParams(search);
  const text = p.get('text');
  if (text !== null) s.text = text.slice(0, MAX_TEXT_CHARS);
  for (const [name, key] of [['pa', 'positionsA'], ['pb', 'positionsB']]) {
    const v = p.get(name);
    if (v !== null) s[key] = v.slice(0, MAX_POSITION_CHARS);
  }
  const corrupted = p.get('corrupted');
  if (corrupted !== null) s.patchCorrupted = corrupted.slice(0, MAX_TEXT_CHARS);
  for (const [name, key] of [['answer', 'patchAnswer'], ['wrong', 'patchWrong']]) {
    const v = p.get(name);
    if (v !== null && v.length <= MAX_TOKEN_CHARS) s[key] = v;
  }
  for (const [name, key] of [['sf', 'steerFrom'], ['st', 'steerTo']]) {
    const v = p.get(name);
    if (v !== null) s[key] = v.slice(0, MAX_STEER_CHARS);
  }
  s.steerLayer = intParam(p, 'sl', 0, 999) ?? s.steerLayer;   // checked against the model when it steers
  const ss = p.get('ss');
  if (ss !== null && /^-?\d{1,3}(\.\d{1,3})?$/.test(ss) && Math.abs(Number(ss)) <= STEER_MAX_STRENGTH) s.steerStrength = Number(ss);
  const site = p.get('site');
  if (PATCH_SITES.includes(site)) s.patchSite = site;
  const prefix = p.get('prefix');
  if (prefix !== null) s.patchPrefix = prefix.slice(0, MAX_TEXT_CHARS);
  const patchStack = p.get('patch-stack');
  if (PATCH_STACKS.includes(patchStack)) s.patchStack = patchStack;
  const target = p.get('tgt');
  if (target !== null) s.target = target.slice(0, MAX_TEXT_CHARS);
  const kind = p.get('k');
  if (ATTENTION_KINDS.includes(kind)) s.kind = kind;
  const stack = p.get('stack');
  if (SEQ2SEQ_STACKS.includes(stack)) s.blockStack = stack;
  const pair = p.get('pair');
  if (pair !== null) { s.pair = pair.slice(0, MAX_TEXT_CHARS); s.pairOn = true; }
  const model = p.get('model');
  if (isBundledModelId(model) || isHubId(model)) s.model = model;
  const view = p.get('view');
  if (VIEWS.includes(view)) Object.assign(s, openView(view));   // the cross view: kind 'cross' too
  // Upper bounds are generous here; they are clamped to the loaded model and input later.
  s.layer = intParam(p, 'layer', 0, 999) ?? s.layer;
  s.head = intParam(p, 'head', 0, 999) ?? s.head;
  s.query = intParam(p, 'q', 0, 99999) ?? s.query;
  const sel = p.get('sel');
  if (sel && /^\d{1,5}(,\d{1,5}){0,63}$/.test(sel)) s.selected = [...new Set(sel.split(',').map(Number))];
  if (p.get('hs') === '1') s.hideSpecial = true;
  if (p.get('w') === '1') s.words = true;
  const lesson = p.get('lesson');
  if (lesson !== null && Object.hasOwn(LESSONS, lesson)) {
    s.lesson = lesson;
    s.step = intParam(p, 'step', 1, LESSONS[lesson].length) ?? 1;
    // Without its own view in the link, a step opens at its view.
    if (p.get('view') === null) s.view = LESSONS[lesson][s.step - 1].view;
  }
  const th = p.get('th');
  if (th !== null && /^(0(\.\d{1,4})?|1(\.0{1,4})?)$/.test(th)) s.threshold = Number(th);
  const lang = p.get('lang');
  if (LANGS.includes(lang)) s.lang = lang;
  s.genTokens = intParam(p, 'gn', 1, 200) ?? s.genTokens;
  s.genTopK = intParam(p, 'gk', 0, 100000) ?? s.genTopK;
  s.genSeed = intParam(p, 'gs', 0, 999999) ?? s.genSeed;
  const off = p.get('off');
  if (off && /^\d{1,3}:\d{1,3}(,\d{1,3}:\d{1,3}){0,255}$/.test(off)) s.headsOff = [...new Set(off.split(','))];
  const wp = p.get('wp');
  if (WEIGHT_PRECISIONS.includes(wp)) s.weightPrecision = wp;
  const gt = p.get('gt');
  if (gt !== null && /^\d{1,2}(\.\d{1,3})?$/.test(gt) && Number(gt) <= 10) s.genTemperature = Number(gt);
  const gp = p.get('gp');
  if (gp !== null && /^(0(\.\d{1,3})?|1(\.0{1,3})?)$/.test(gp) && Number(gp) > 0) s.genTopP = Number(gp);
  s.lensRow = intParam(p, 'lr', 0, 999) ?? s.lensRow;
  const tau = p.get('tau');
  if (tau !== null && /^(0(\.\d{1,4})?|1(\.0{1,4})?)$/.test(tau)) s.flowTau = Number(tau);
  return s;
}

// The query string for a state (defaults omitted to keep permalinks short).
export function stateToUrl(s) {
  const d = defaultState();
  const p = new URLSearchParams();
  if (s.text !== d.text) p.set('text', s.text);
  if (s.pairOn) p.set('pair', s.pair);
  if (s.target !== d.target) p.set('tgt', s.target);
  if (s.kind !== d.kind) p.set('k', s.kind);
  if (s.blockStack !== d.blockStack) p.set('stack', s.blockStack);
  if (s.positionsA !== d.positionsA) p.set('pa', s.positionsA);
  if (s.positionsB !== d.positionsB) p.set('pb', s.positionsB);
  if (s.patchCorrupted !== d.patchCorrupted) p.set('corrupted', s.patchCorrupted);
  if (s.patchAnswer !== d.patchAnswer) p.set('answer', s.patchAnswer);
  if (s.patchWrong !== d.patchWrong) p.set('wrong', s.patchWrong);
  if (s.patchSite !== d.patchSite) p.set('site', s.patchSite);
  if (s.patchPrefix !== d.patchPrefix) p.set('prefix', s.patchPrefix);
  if (s.patchStack !== d.patchStack) p.set('patch-stack', s.patchStack);
  if (s.steerFrom !== d.steerFrom) p.set('sf', s.steerFrom);
  if (s.steerTo !== d.steerTo) p.set('st', s.steerTo);
  if (s.steerLayer !== d.steerLayer) p.set('sl', String(s.steerLayer));
  if (s.steerStrength !== d.steerStrength) p.set('ss', String(s.steerStrength));
  if (s.model !== 'local' && s.model !== d.model) p.set('model', s.model);
  if (s.view !== d.view) p.set('view', s.view);
  if (s.layer !== d.layer) p.set('layer', String(s.layer));
  if (s.head !== d.head) p.set('head', String(s.head));
  if (s.query !== d.query) p.set('q', String(s.query));
  if (s.selected.length) p.set('sel', s.selected.join(','));
  if (s.hideSpecial) p.set('hs', '1');
  if (s.words) p.set('w', '1');
  if (s.lesson) {
    p.set('lesson', s.lesson);
    p.set('step', String(s.step));
  }
  if (s.threshold) p.set('th', String(s.threshold));
  if (s.lang !== d.lang) p.set('lang', s.lang);
  if (s.genTokens !== d.genTokens) p.set('gn', String(s.genTokens));
  if (s.genTemperature !== d.genTemperature) p.set('gt', String(s.genTemperature));
  if (s.genTopK !== d.genTopK) p.set('gk', String(s.genTopK));
  if (s.genSeed !== d.genSeed) p.set('gs', String(s.genSeed));
  if (s.genTopP !== d.genTopP) p.set('gp', String(s.genTopP));
  if (s.lensRow !== d.lensRow) p.set('lr', String(s.lensRow));
  if (s.flowTau !== d.flowTau) p.set('tau', String(s.flowTau));
  if (s.headsOff.length) p.set('off', s.headsOff.join(','));
  if (s.weightPrecision !== d.weightPrecision) p.set('wp', s.weightPrecision);
  const q = p.toString();
  return q ? '?' + q : '';
}

// Keeps layer/head/query/selection inside the loaded model and the current input.
export function clampToResult(s, layers, heads, tokens) {
  s.layer = Math.min(Math.max(0, s.layer), layers - 1);
  s.head = Math.min(Math.max(0, s.head), heads - 1);
  s.query = Math.min(Math.max(0, s.query), tokens - 1);
  s.selected = s.selected.filter((i) => i < tokens);
}
