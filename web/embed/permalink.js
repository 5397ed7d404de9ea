// "Copy permalink" for an element: the explorer page's URL with the same parameters the page
// itself mirrors (web/src/state/state.js), every value validated first. A model that is not
// restorable by the page (a URL) is left out, so the page falls back to its bundled model.
import { defaultState, isHubId, stateToUrl, LANGS, MAX_POSITION_CHARS, MAX_TEXT_CHARS, VIEWS, WEIGHT_PRECISIONS } from '../src/state/state.js';
import { AttnScopeError } from '../../js/formats/errors.js';
import { isBundledModelId } from '../../js/api/bundled-models.js';
import { ATTENTION_KINDS } from '../src/model/seq2seq-run.js';

/** The page URL for an element's settings; pageUrl must be an http(s) URL. */
export function permalinkFor(pageUrl, { text, textPair, target, kind, model, view, layer, head, lang, weightPrecision, positionsA, positionsB }) {
  let base;
  try {
    base = new URL(pageUrl);
  } catch {
    throw new AttnScopeError('E_INPUT', 'page-url is not a valid URL');
  }
  if (base.protocol !== 'https:' && base.protocol !== 'http:') {
    throw new AttnScopeError('E_INPUT', 'page-url must be an http(s) URL');
  }
  const s = defaultState();
  if (typeof text === 'string' && text) s.text = text.slice(0, MAX_TEXT_CHARS);
  if (typeof textPair === 'string' && textPair) { s.pair = textPair.slice(0, MAX_TEXT_CHARS); s.pairOn = true; }
  // An encoder–decoder's target and attention kind (the page's tgt and k).
  if (typeof target === 'string' && target) s.target = target.slice(0, MAX_TEXT_CHARS);
  if (ATTENTION_KINDS.includes(kind)) s.kind = kind;
  if (isBundledModelId(model) || isHubId(model)) s.model = model;
  if (WEIGHT_PRECISIONS.includes(weightPrecision)) s.weightPrecision = weightPrecision;
  if (typeof positionsA === 'string') s.positionsA = positionsA.slice(0, MAX_POSITION_CHARS);
  if (typeof positionsB === 'string') s.positionsB = positionsB.slice(0, MAX_POSITION_CHARS);
  if (VIEWS.includes(view)) s.view = view;
  if (Number.isInteger(layer) && layer >= 0 && layer < 1000) s.layer = layer;
  if (Number.isInteger(head) && head >= 0 && head < 1000) s.head = head;
  if (LANGS.includes(lang)) s.lang = lang;
  base.search = stateToUrl(s);
  base.hash = '';
  return base.href;
}
