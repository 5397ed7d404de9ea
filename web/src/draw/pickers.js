// Small shared controls for the views: the layer / head / query-token <select>s. Each change goes
// through app.set() so the state (and the URL) stays the single source of truth.
import { kvGroupOf } from '../model/model-family.js';

export function makeSelect(labelText, options, value, onChange, className = '') {
  const label = document.createElement('label');
  label.className = 'picker ' + className;
  const span = document.createElement('span');
  span.textContent = labelText;
  const select = document.createElement('select');
  for (const [v, text] of options) {
    const o = document.createElement('option');
    o.value = String(v);
    o.textContent = text;
    select.append(o);
  }
  select.value = String(value);
  select.addEventListener('change', () => onChange(Number(select.value)));
  label.append(span, select);
  return label;
}

/** The layer and head <select>s, over the run on screen's layers and heads unless told others. */
export function layerHeadPickers(app, { head = true, layers, heads } = {}) {
  const { t, state } = app;
  const box = document.createElement('div');
  box.className = 'pickers';
  const L = layers ?? app.result.shape[0], H = heads ?? app.result.shape[1];
  box.append(makeSelect(t('layer'), range(L).map((l) => [l, String(l)]), state.layer,
    (layer) => app.set({ layer }), 'layer-picker'));
  if (head) {
    box.append(makeSelect(t('head'), range(H).map((h) => [h, String(h)]), state.head,
      (h) => app.set({ head: h }), 'head-picker'));
    // Grouped-query attention: which key/value head this query head reads, beside its picker.
    const g = kvGroupOf(app.info?.config, state.head);
    if (g) {
      const note = document.createElement('span');
      note.className = 'hint kv-note';
      note.textContent = t('kvOfHead', { kv: g.kv, first: g.first, last: g.last });
      box.append(note);
    }
  }
  return box;
}

export function queryPicker(app) {
  const { positions, labels } = app.display();
  return makeSelect(app.t('queryToken'), positions.map((p, a) => [p, `${p}: ${labels[a]}`]),
    app.state.query, (query) => app.set({ query }), 'query-picker');
}

export function range(n) {
  return Array.from({ length: n }, (_, i) => i);
}

// "#3 cat" — position first so repeated tokens stay distinguishable.
export function tokenName(position, token) {
  return `#${position} ${token}`;
}
