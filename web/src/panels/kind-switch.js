// Which of an encoder–decoder's three attentions the grid, head and lines views show
// (state.kind, seq2seq-run.js): a radio group above the views, each choice naming what attends
// to what. Hidden for other models, and in views that show one kind only (cross, head table).
import { ATTENTION_KINDS, isSeq2Seq } from '../model/seq2seq-run.js';
import { viewEntry } from '../views/registry.js';
const LABEL_KEYS = { enc: 'kindEnc', dec: 'kindDec', cross: 'kindCross' };

export function createKindSwitch(host, app) {
  host.setAttribute('role', 'radiogroup');
  const title = document.createElement('span');
  title.className = 'kind-title';
  const buttons = ATTENTION_KINDS.map((kind) => {
    const b = document.createElement('button');
    b.type = 'button';
    b.setAttribute('role', 'radio');
    b.dataset.kind = kind;
    b.addEventListener('click', () => app.set({ kind }));
    return b;
  });
  const note = document.createElement('span');
  note.className = 'hint kind-note';
  host.append(title, ...buttons, note);

  function render() {
    const { t, state } = app;
    host.hidden = !isSeq2Seq(app.info) || !viewEntry(state.view)?.kinds;
    if (host.hidden) return;
    host.setAttribute('aria-label', t('kindTitle'));
    title.textContent = t('kindTitle');
    for (const b of buttons) {
      b.textContent = t(LABEL_KEYS[b.dataset.kind]);
      b.setAttribute('aria-checked', String(state.kind === b.dataset.kind));
    }
    note.textContent = t(LABEL_KEYS[state.kind] + 'Note');
  }
  return { render };
}
