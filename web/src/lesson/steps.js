// The guided lesson's steps (?lesson=attention&step=N), in the order the seed articles teach
// attention: tokens → embeddings → Q, K, V → dot product → ÷√d_k → softmax → matrices →
// weighted sum → heads → how much of what a head reads gets in (flow) → Add & Norm → feed-forward →
// layers → encoder vs decoder → "I am full" → asking the model why (activation patching).
// A step is a view the page already has (and the layer/head/section it opens at), a short text
// (i18n-lesson.js: lesson_<id>_title / _body) and, for some, a small figure of the reader's own
// run (figures.js). Nothing here computes; it only says what to show.
import { VIEW } from '../views/registry.js';

export const LESSONS = {
  attention: [
    { id: 'tokens', view: VIEW.head, figure: 'tokens' },
    { id: 'embeddings', view: VIEW.positions },
    { id: 'qkv', view: VIEW.formula, figure: 'qkv' },
    { id: 'dot', view: VIEW.formula, figure: 'dot' },
    { id: 'scale', view: VIEW.formula, figure: 'scale' },
    { id: 'softmax', view: VIEW.formula, figure: 'softmax' },
    { id: 'matrices', view: VIEW.block, figure: 'shapes', section: 'blockQkv' },
    { id: 'weighted', view: VIEW.formula, figure: 'weighted' },
    { id: 'heads', view: VIEW.lines, figure: 'heads' },
    // Attention weights are not what gets in: the Flow view's shares on the reader's own run.
    { id: 'flow', view: VIEW.flow },
    { id: 'addnorm', view: VIEW.block, section: 'blockAdd' },
    { id: 'ffn', view: VIEW.block, section: 'blockFfn' },
    { id: 'layers', view: VIEW.grid },
    { id: 'causal', view: VIEW.compare },
    { id: 'full', view: VIEW.head, figure: 'full' },
    // The causal question: the Patching view, with a button opening the bundled example.
    { id: 'patching', view: VIEW.patching, figure: 'patching' },
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
