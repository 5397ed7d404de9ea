// The guided lesson's steps (?lesson=attention&step=N), in the order the seed articles teach
// attention: tokens → embeddings → Q, K, V → dot product → ÷√d_k → softmax → matrices →
// weighted sum → heads → Add & Norm → feed-forward → layers → encoder vs decoder → "I am full".
// A step is a view the page already has (and the layer/head/section it opens at), a short text
// (i18n-lesson.js: lesson_<id>_title / _body) and, for some, a small figure of the reader's own
// run (figures.js). Nothing here computes; it only says what to show.

export const LESSONS = {
  attention: [
    { id: 'tokens', view: 'head', figure: 'tokens' },
    { id: 'embeddings', view: 'positions' },
    { id: 'qkv', view: 'formula', figure: 'qkv' },
    { id: 'dot', view: 'formula', figure: 'dot' },
    { id: 'scale', view: 'formula', figure: 'scale' },
    { id: 'softmax', view: 'formula', figure: 'softmax' },
    { id: 'matrices', view: 'block', figure: 'shapes', section: 'blockQkv' },
    { id: 'weighted', view: 'formula', figure: 'weighted' },
    { id: 'heads', view: 'lines', figure: 'heads' },
    { id: 'addnorm', view: 'block', section: 'blockAdd' },
    { id: 'ffn', view: 'block', section: 'blockFfn' },
    { id: 'layers', view: 'grid' },
    { id: 'causal', view: 'compare' },
    { id: 'full', view: 'head', figure: 'full' },
  ],
};

export const LESSON_NAMES = Object.keys(LESSONS);

/** The model's own numbers a step's text may name: {T, C, H, dk, L, F}. */
export function stepVars(app) {
  const c = app.info?.config ?? {};
  const r = app.result;
  const H = c.numHeads ?? r?.shape[1] ?? 0;
  const C = c.hiddenSize ?? 0;
  return { T: r?.shape[2] ?? 0, C, H, dk: c.headDim ?? (H ? C / H : 0), L: c.numLayers ?? r?.shape[0] ?? 0,
    F: c.intermediateSize ?? 0 };
}
