// The page's example list: one button per bundled model, each opening it on a text that shows
// what that kind of model does. The encoder–decoder's example types a held-out source (its
// folder's heldout.jsonl knows which source word each target word comes from) and lets the model
// write the target, so the cross-attention view can overlay the known alignment on the model's
// own output.
import { BUNDLED_CAUSAL_MODEL, BUNDLED_MODEL, BUNDLED_SEQ2SEQ_MODEL } from '../../../js/api/bundled-models.js';
import { findHeldout } from '../../../js/analysis/alignment-accuracy.js';
import { PATCHING_EXAMPLE, PATCHING_SEQ2SEQ_EXAMPLE } from '../model/patch-suggest.js';
import { DEFAULT_TEXT, STEER_EXAMPLE } from '../state/state.js';
import { VIEW } from '../views/registry.js';

// A short held-out pair with a visible reordering: "I by her on the divan sat."
export const SEQ2SEQ_EXAMPLE_SOURCE = 'I sat by her on the divan.';

const LAST = Symbol('the last token');
// The target the bundled encoder–decoder writes for the patching example's source (its other views show it).
const SEQ2SEQ_PATCHING_TARGET = 'The man a doctor was.';

export const EXAMPLES = [
  // "What does 'it' look at?": the query (the chips, the formula) and the head view's row on "it".
  { id: 'bert', model: BUNDLED_MODEL, label: 'exampleBert', text: DEFAULT_TEXT, patch: { view: VIEW.grid }, query: 'it' },
  // A decoder's example opens on its last token: what the model expects next.
  { id: 'gpt', model: BUNDLED_CAUSAL_MODEL, label: 'exampleGpt', text: 'The river ran past the old mill, and the river', patch: { view: VIEW.grid }, query: LAST },
  // "Which activations decide church or school?": the patching grid of a one-word change.
  { id: 'patching', model: BUNDLED_CAUSAL_MODEL, label: 'examplePatching', text: PATCHING_EXAMPLE.clean, query: LAST,
    patch: { view: VIEW.patching, patchCorrupted: PATCHING_EXAMPLE.corrupted, patchAnswer: PATCHING_EXAMPLE.answer,
      patchWrong: PATCHING_EXAMPLE.wrong, patchSite: 'resid_pre' } },
  // "Steer it": the same prompt written plain and pushed from "the house" toward "the church".
  { id: 'steer', model: BUNDLED_CAUSAL_MODEL, label: 'exampleSteer', text: STEER_EXAMPLE.prompt, query: LAST, steer: true,
    patch: { view: VIEW.grid, steerFrom: STEER_EXAMPLE.from, steerTo: STEER_EXAMPLE.to, steerLayer: STEER_EXAMPLE.layer,
      steerStrength: STEER_EXAMPLE.strength } },
  { id: 'sov', model: BUNDLED_SEQ2SEQ_MODEL, label: 'exampleSov', text: SEQ2SEQ_EXAMPLE_SOURCE, patch: { view: VIEW.cross, kind: 'cross', target: '' }, generate: true },
  // "Where in the source is it decided when the verb comes?": the encoder's grid of a one-word
  // change that keeps the verb in place; the target is the rewrite the model writes for the clean one.
  { id: 'patchingSeq2Seq', model: BUNDLED_SEQ2SEQ_MODEL, label: 'examplePatchingSeq2Seq', text: PATCHING_SEQ2SEQ_EXAMPLE.clean,
    patch: { view: VIEW.patching, target: SEQ2SEQ_PATCHING_TARGET, patchCorrupted: PATCHING_SEQ2SEQ_EXAMPLE.corrupted,
      patchPrefix: PATCHING_SEQ2SEQ_EXAMPLE.prefix, patchAnswer: PATCHING_SEQ2SEQ_EXAMPLE.answer,
      patchWrong: PATCHING_SEQ2SEQ_EXAMPLE.wrong, patchStack: PATCHING_SEQ2SEQ_EXAMPLE.stack, patchSite: 'resid_pre' } },
];

/**
 * Fills `host` with the example buttons.
 * @param loadModel (id) → Promise<error|null>: the picker's load of a bundled model
 * @param openText (text, patch): the page's text box and state
 * @param generateTarget (): the target panel's Generate, once the model and source are in
 * @param steer (): the Steering panel's start, once the prompt has run
 */
export function createExamples(host, app, { loadModel, openText, generateTarget, steer }) {
  const title = document.createElement('span');
  title.id = 'examples-title';
  title.className = 'muted';
  const buttons = EXAMPLES.map((ex) => {
    const b = document.createElement('button');
    b.type = 'button';
    b.dataset.example = ex.id;
    b.addEventListener('click', () => open(ex));
    return b;
  });
  host.append(title, ...buttons);

  // `patch` replaces the example's own (a link's view kept: see ownText).
  async function open(ex, patch = ex.patch) {
    if (app.state.model !== ex.model && await loadModel(ex.model)) return;   // the picker says why
    // A held-out source when the model's file has this one (its weights may be retrained).
    const text = ex.generate && app.heldout?.length && !findHeldout(app.heldout, ex.text) ? app.heldout[0].source : ex.text;
    app.generated = null;
    // A query named by its token is found in the run (its position depends on the tokenizer) and
    // selected (the head view's row); the last token is only the query.
    const query = ex.query === LAST ? (r) => r.tokens.length - 1
      : ex.query ? (r) => r.tokens.indexOf(ex.query) : undefined;
    openText(text, { ...patch, query, select: typeof ex.query === 'string' });
    if (ex.generate) generateTarget();
    if (ex.steer) await steerWhenRun(text);
  }

  // The example's prompt must be on screen (its run) before it is written twice.
  async function steerWhenRun(text) {
    for (let tries = 0; tries < 200; tries++) {
      if (app.original?.text === text && app.state.text === text) return steer();
      if (app.state.text !== text) return undefined;   // the reader moved on
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return undefined;
  }

  /** A link that names the encoder–decoder but no text: its own example (the target written),
   *  in the link's view, rather than an English sentence with no target. */
  function ownText() {
    const ex = EXAMPLES.find((e) => e.model === app.state.model && e.generate);
    if (ex) open(ex, { kind: app.state.kind, target: '' });
    return Boolean(ex);
  }

  function render() {
    title.textContent = app.t('examplesTitle');
    EXAMPLES.forEach((ex, i) => { buttons[i].textContent = app.t(ex.label); });
  }
  render();
  return { render, ownText, open: (id) => open(EXAMPLES.find((e) => e.id === id)) };
}
