// Head ablation in the page: the heads switched off (state.headsOff, 'layer:head'
// strings, in the permalink as off=0:1,2:3) are applied to the typed text as a second run with
// Hugging Face's head_mask, shown as an edit of kind 'heads' so the diff view compares it with
// the intact run; predictionDiff() lists the [MASK] / next-token guesses of both. The corpus
// effect of each head (js/analysis/head-stats.js ablationEffects) runs inside the worker as one job in
// time slices (worker client ablationEffects), not one round trip per run.
import { loadSample } from '../model/corpus.js';

/** Sentences of the sample scored by ablationEffects: each costs (L·H + 1) · maskEvery runs. */
export const ABLATION_SENTENCES = 60;

/** headsOff → a [L][H] mask of 1/0, or null when no head of this model is off. */
export function headMaskFor(headsOff, L, H) {
  const off = headsOff.map((s) => s.split(':').map(Number)).filter(([l, h]) => l < L && h < H);
  if (!off.length) return null;
  const mask = Array.from({ length: L }, () => new Array(H).fill(1));
  for (const [l, h] of off) mask[l][h] = 0;
  return mask;
}

export function toggleHead(app, layer, head) {
  const key = `${layer}:${head}`;
  const off = app.state.headsOff.includes(key) ? app.state.headsOff.filter((k) => k !== key) : [...app.state.headsOff, key];
  app.set({ headsOff: off });
}

/**
 * The page's ablation runner. rerun() after every run of the typed text and after headsOff
 * changes: it runs the text with the head mask and shows it as the edit, or drops a heads edit.
 */
export function createAblationRunner(app, { getClient, runOptions, onShown }) {
  let seq = 0;
  async function rerun() {
    const mine = ++seq;
    const r = app.original, client = getClient();
    if (!r || !client) return;
    if (app.edit && app.edit.kind !== 'heads') return;   // a token edit (mask/drop) is on screen
    const [L, H] = r.shape;
    const headMask = headMaskFor(app.state.headsOff, L, H);
    if (!headMask) {
      if (app.edit?.kind === 'heads') { app.clearEdit(); onShown(); }
      return;
    }
    const { state } = app;
    const pair = state.pairOn && state.pair.trim() ? state.pair : undefined;
    let edited;
    try {
      edited = await client.run(state.text, { textPair: pair, headMask, ...runOptions() });
    } catch (e) {
      if (e?.code !== 'E_ABORTED' && e?.code !== 'E_DISPOSED') console.warn('head ablation run failed:', e?.message ?? e);
      return;
    }
    if (mine !== seq || app.original !== r) return;   // superseded
    app.showEdit({ kind: 'heads', positions: [], heads: [...state.headsOff] }, edited);
    onShown();
  }
  return { rerun };
}

/** The intact and ablated guesses side by side (encoders: each [MASK]; decoders: the next token). */
export function predictionDiff(app) {
  const { original, edited, t } = app;
  const box = document.createElement('div');
  box.className = 'ablation-predictions';
  const rows = [];
  if (original.maskPredictions && edited.maskPredictions) {
    original.maskPredictions.forEach((p, i) => rows.push([t('ablationAtMask', { position: p.position }), p.top, edited.maskPredictions[i].top]));
  } else if (original.next && edited.next) {
    rows.push([t('ablationNext'), original.next, edited.next]);
  }
  if (!rows.length) {
    box.textContent = t('ablationNoPredictions');
    return box;
  }
  const table = document.createElement('table');
  table.className = 'ablation-table';
  const head = table.insertRow();
  for (const k of ['ablationWhere', 'ablationIntact', 'ablationOff']) {
    const th = document.createElement('th');
    th.textContent = t(k);
    head.append(th);
  }
  const list = (top) => top.map((x) => `${x.text ?? x.token} ${(100 * x.prob).toFixed(1)}%`).join(' · ');
  for (const [where, a, b] of rows) {
    const tr = table.insertRow();
    tr.insertCell().textContent = where;
    tr.insertCell().textContent = list(a);
    tr.insertCell().textContent = list(b);
  }
  box.append(table);
  return box;
}

/**
 * ablationEffects over the first ABLATION_SENTENCES sentences of the sample, in the worker:
 * (L·H + 1) · maskEvery runs per sentence (7,140 for the bundled BERT). Progress: { done, total }
 * in heads, { runs, totalRuns } in runs.
 */
export async function corpusAblation(client, { signal, onProgress } = {}) {
  const sample = await loadSample();
  const texts = sample.sentences.slice(0, ABLATION_SENTENCES).map(([text]) => text);
  return client.ablationEffects(texts, { signal, onProgress });
}

/**
 * The grid's "Switch heads off" mode: a checkbox (while on, a click on a head toggles it instead
 * of opening it), the list of heads off and a button switching them all back on.
 */
export function createAblationToggle(app) {
  const element = document.createElement('div');
  element.className = 'ablation-bar';
  const label = document.createElement('label');
  const box = document.createElement('input');
  box.type = 'checkbox';
  box.className = 'ablate-mode';
  const text = document.createElement('span');
  label.append(box, text);
  const off = document.createElement('span');
  off.className = 'hint heads-off';
  const reset = document.createElement('button');
  reset.type = 'button';
  reset.className = 'heads-on';
  reset.addEventListener('click', () => app.set({ headsOff: [] }));
  element.append(label, off, reset);
  const toggle = {
    element,
    on: false,
    render() {
      const { t, state } = app;
      // Only the page runs ablations (app.ablates); <attn-scope> shares the grid without them.
      element.hidden = !app.ablates;
      text.textContent = t('gridAblate');
      box.checked = toggle.on;
      label.title = t('gridAblateHint');
      off.textContent = state.headsOff.length ? t('gridHeadsOff', { n: state.headsOff.length, heads: state.headsOff.join(', ') })
        : toggle.on ? t('gridAblateHint') : '';
      reset.textContent = t('gridHeadsOn');
      reset.hidden = !state.headsOff.length;
    },
  };
  box.addEventListener('change', () => { toggle.on = box.checked; toggle.render(); });
  return toggle;
}

/** Greys the thumbnails of the heads switched off and crosses them out. */
export function drawHeadsOff(ctx, headsOff, cell) {
  for (const key of headsOff) {
    const [l, h] = key.split(':').map(Number);
    const [x, y, s] = cell(l, h);
    ctx.fillStyle = 'rgba(128, 128, 128, 0.75)';
    ctx.fillRect(x, y, s, s);
    ctx.strokeStyle = '#444';
    ctx.lineWidth = 1.5;
    ctx.beginPath();
    ctx.moveTo(x + 3, y + 3); ctx.lineTo(x + s - 3, y + s - 3);
    ctx.moveTo(x + s - 3, y + 3); ctx.lineTo(x + 3, y + s - 3);
    ctx.stroke();
  }
}
