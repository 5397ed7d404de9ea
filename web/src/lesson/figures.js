// The lesson's small figures, each of the reader's own run (the model's q, k, v and attention,
// through attention-math.js's formula code): q·k vs cosine beside two draggable toy vectors,
// the spread of the scores and the softmax with and without ÷√d_k, each exp and Σ, the shapes
// of X, Q, K, V and QKᵀ, and the width split into heads. A figure is rebuilt on each render;
// the toy vectors keep their place between renders.
import { formulaSteps, headVector } from '../math/attention-math.js';
import { causalKeyMask, isCausal } from '../model/causal-mask.js';
import { headHue } from '../draw/vector-strip.js';
import { scrollHint } from '../draw/scroll-hint.js';
import { PATCHING_EXAMPLE } from '../model/patch-suggest.js';

const el = (tag, className, text) => {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
};
const fmt = (v, digits = 3) => (Number.isFinite(v) ? v.toFixed(digits) : '—');

/** The query token and its strongest key in the state's layer and head (the formula's own row). */
function queryRow(app) {
  const r = app.result, { layer, head, query } = app.state;
  const T = r.shape[2];
  const mask = isCausal(app) ? causalKeyMask(T, query, app.keyMask()) : app.keyMask();
  const f = formulaSteps(r, layer, head, query, mask);
  let best = 0;
  for (let j = 0; j < T; j++) if (f.softmax[j] > f.softmax[best]) best = j;
  return { f, mask, best, T, labels: r.tokenTexts ?? r.tokens };
}

const dot = (a, b) => a.reduce((s, v, i) => s + v * b[i], 0);
const norm = (a) => Math.sqrt(dot(a, a));

/** A row of bars (values in [0, max]) labelled by token; `t` words the cue shown while the row is
 *  wider than the screen (a phone, a long sentence). */
function bars(values, labels, max, caption, t) {
  const box = el('div', 'lesson-bars');
  box.append(el('p', 'lesson-bars-caption', caption));
  const row = el('div', 'lesson-bars-row');
  const more = scrollHint(row, () => t('scrollMore'));
  box.append(more.element);
  more.update();
  values.forEach((v, j) => {
    const cell = el('div', 'lesson-bar');
    const track = el('div', 'lesson-bar-track');
    const fill = el('div', 'lesson-bar-fill');
    fill.style.height = `${Math.max(0, Math.min(1, v / max)) * 100}%`;
    track.append(fill);
    cell.title = `${labels[j]}: ${fmt(v, 4)}`;
    cell.append(el('span', 'lesson-bar-value', v >= 0.005 ? v.toFixed(2).replace(/^0/, '') : ''), track, el('span', 'lesson-bar-label', labels[j]));
    row.append(cell);
  });
  box.append(row);
  return box;
}

// The two toy vectors of the dot-product step, in unit coordinates (kept across renders).
const toy = { a: [0.8, 0.3], b: [0.4, 0.7] };

function dotFigure(app, box) {
  const t = app.t;
  const size = 220;
  const canvas = el('canvas', 'lesson-toy');
  canvas.width = size;
  canvas.height = size;
  canvas.setAttribute('role', 'img');
  const toyText = el('p', 'lesson-toy-text');
  const draw = () => {
    const ctx = canvas.getContext('2d');
    const c = size / 2, s = size / 2.4;
    ctx.clearRect(0, 0, size, size);
    ctx.strokeStyle = '#ccd2dc';
    ctx.beginPath();
    ctx.moveTo(0, c); ctx.lineTo(size, c); ctx.moveTo(c, 0); ctx.lineTo(c, size);
    ctx.stroke();
    for (const [v, colour] of [[toy.a, '#2166ac'], [toy.b, '#d94801']]) {
      ctx.strokeStyle = colour;
      ctx.fillStyle = colour;
      ctx.lineWidth = 3;
      ctx.beginPath();
      ctx.moveTo(c, c);
      ctx.lineTo(c + v[0] * s, c - v[1] * s);
      ctx.stroke();
      ctx.beginPath();
      ctx.arc(c + v[0] * s, c - v[1] * s, 7, 0, 2 * Math.PI);
      ctx.fill();
    }
    const d = dot(toy.a, toy.b), cos = d / (norm(toy.a) * norm(toy.b) || 1);
    toyText.textContent = t('lessonFigToy', { dot: fmt(d, 2), cos: fmt(cos, 2) });
    canvas.setAttribute('aria-label', toyText.textContent);
  };
  let dragging = null;
  const toUnit = (e) => {
    const rect = canvas.getBoundingClientRect();
    const c = rect.width / 2, s = rect.width / 2.4;
    return [(e.clientX - rect.left - c) / s, (c - (e.clientY - rect.top)) / s].map((v) => Math.max(-1.15, Math.min(1.15, v)));
  };
  canvas.addEventListener('pointerdown', (e) => {
    const p = toUnit(e);
    const dist = (v) => Math.hypot(v[0] - p[0], v[1] - p[1]);
    dragging = dist(toy.a) <= dist(toy.b) ? 'a' : 'b';
    canvas.setPointerCapture(e.pointerId);
    toy[dragging] = p;
    draw();
  });
  canvas.addEventListener('pointermove', (e) => {
    if (!dragging) return;
    toy[dragging] = toUnit(e);
    draw();
  });
  canvas.addEventListener('pointerup', () => { dragging = null; });
  canvas.style.touchAction = 'none';
  draw();
  const { f, best, labels } = queryRow(app);
  const { layer, head, query } = app.state;
  const k = headVector(app.result, 'k', layer, head, best);
  const real = el('p', 'lesson-real', t('lessonFigReal', { layer, head, q: labels[query], k: labels[best],
    dot: fmt(f.scores[best]), cos: fmt(f.scores[best] / (norm(f.q) * norm(k) || 1)) }));
  const toyBox = el('div', 'lesson-toy-box');
  toyBox.append(el('p', 'muted', t('lessonFigDrag')), canvas, toyText);
  box.append(toyBox, real);
}

function spread(values, mask) {
  const kept = Array.from(values).filter((_, j) => !mask || mask[j] !== 0);
  const mean = kept.reduce((s, v) => s + v, 0) / kept.length;
  return Math.sqrt(kept.reduce((s, v) => s + (v - mean) ** 2, 0) / kept.length);
}

function softmaxOf(values, mask) {
  const kept = (j) => !mask || mask[j] !== 0;
  let max = -Infinity;
  values.forEach((v, j) => { if (kept(j) && v > max) max = v; });
  const e = Array.from(values, (v, j) => (kept(j) ? Math.exp(v - max) : 0));
  const sum = e.reduce((s, v) => s + v, 0);
  return e.map((v) => v / sum);
}

function scaleFigure(app, box) {
  const { f, mask, labels } = queryRow(app);
  box.append(el('p', 'lesson-real', app.t('lessonFigScaleStd', { raw: fmt(spread(f.scores, mask)), scaled: fmt(spread(f.scaled, mask)), dk: f.dk })));
  box.append(bars(Array.from(f.softmax), labels, 1, app.t('lessonFigWith'), app.t));
  box.append(bars(softmaxOf(f.scores, mask), labels, 1, app.t('lessonFigWithout'), app.t));
}

function softmaxFigure(app, box) {
  const { f, mask, labels } = queryRow(app);
  const max = Math.max(...Array.from(f.scaled).filter((_, j) => !mask || mask[j] !== 0));
  const exps = Array.from(f.scaled, (v, j) => (!mask || mask[j] !== 0 ? Math.exp(v - max) : 0));
  const sum = exps.reduce((s, v) => s + v, 0);
  const table = el('table', 'lesson-table');
  const head = el('tr');
  head.append(el('th', '', ''), el('th', '', 'q·k/√d_k'), el('th', '', 'exp'), el('th', '', 'α'));
  table.append(head);
  exps.forEach((e, j) => {
    const row = el('tr');
    row.append(el('th', '', labels[j]), el('td', '', fmt(f.scaled[j])), el('td', '', e ? fmt(e, 4) : '0 (mask)'), el('td', '', fmt(f.softmax[j], 4)));
    table.append(row);
  });
  box.append(table, el('p', 'lesson-real', `${app.t('lessonFigExpSum', { sum: fmt(sum, 4) })} (exp(s − max s), max s = ${fmt(max)})`));
}

function shapesFigure(app, box) {
  const { T, C, H, dk } = app.lessonVars;
  const list = el('ul', 'lesson-shapes');
  for (const [name, rows, cols] of [['X', T, C], ['Q, K, V', T, C], [`Q_h, K_h, V_h (× ${H})`, T, dk], ['QKᵀ', T, T], ['softmax(QKᵀ/√d_k)·V', T, dk]]) {
    list.append(el('li', '', app.t('lessonFigShape', { name, rows, cols })));
  }
  box.append(list);
}

function headsFigure(app, box) {
  const { C, H, dk } = app.lessonVars;
  box.append(el('p', 'lesson-real', app.t('lessonFigHeads', { C, H, dk })));
  const strip = el('div', 'lesson-width');
  for (let h = 0; h < H; h++) {
    const part = el('span', 'lesson-width-head', `H${h}: ${dk}`);
    part.style.flex = '1';
    part.style.background = headHue(h);   // the Lines view's colour for the head
    strip.append(part);
  }
  box.append(strip);
}

function qkvFigure(app, box) {
  const { layer, head, query } = app.state;
  const labels = app.result.tokenTexts ?? app.result.tokens;
  const dk = headVector(app.result, 'q', layer, head, query).length;
  box.append(el('p', 'lesson-real', app.t('lessonFigQkv', { q: labels[query], layer, head, dk })));
  for (const which of ['q', 'k', 'v']) {
    const v = headVector(app.result, which, layer, head, query);
    const max = Math.max(...Array.from(v, Math.abs)) || 1;
    const row = el('div', 'lesson-vector');
    row.append(el('span', 'lesson-vector-name', which));
    for (const x of v) {
      const cell = el('span', 'lesson-vector-cell');
      cell.style.background = x >= 0 ? `rgba(33, 102, 172, ${Math.abs(x) / max})` : `rgba(217, 72, 1, ${Math.abs(x) / max})`;
      cell.title = fmt(x);
      row.append(cell);
    }
    box.append(row);
  }
}

function weightedFigure(app, box) {
  const { f, labels } = queryRow(app);
  box.append(bars(Array.from(f.softmax), labels, 1, 'α', app.t));
  box.append(el('p', 'lesson-real', app.t('lessonFigWeighted', { q: labels[app.state.query], dk: f.dk, norm: fmt(norm(Array.from(f.output))) })));
}

function tokensFigure(app, box) {
  const r = app.result;
  const labels = r.tokenTexts ?? r.tokens;
  box.append(el('p', 'lesson-real', app.t('lessonFigTokens', { T: r.shape[2] })));
  const list = el('p', 'lesson-ids');
  list.textContent = labels.map((s, i) => `${s} → ${r.ids[i]}`).join(' · ');
  box.append(list);
}

function fullFigure(app, box, { tryText }) {
  const { T, C } = app.lessonVars;
  box.append(el('p', 'lesson-real', app.t('lessonFigShape', { name: 'X', rows: T, cols: C })));
  const b = el('button', 'lesson-try', app.t('lessonTryFull'));
  b.type = 'button';
  b.addEventListener('click', () => tryText('I am full'));
  box.append(b);
}

// The patching step: the bundled decoder's church/school pair, the prompts the step's text is about
// (a host without the page's example list, <attn-scope>, draws no button).
function patchingFigure(app, box, { openExample }) {
  if (!openExample) return;
  box.append(el('p', 'lesson-real', app.t('lessonFigPatching', { clean: PATCHING_EXAMPLE.clean, corrupted: PATCHING_EXAMPLE.corrupted })));
  const b = el('button', 'lesson-try', app.t('lessonTryPatching'));
  b.type = 'button';
  b.addEventListener('click', () => openExample('patching'));
  box.append(b);
}

export const FIGURES = { dot: dotFigure, scale: scaleFigure, softmax: softmaxFigure, shapes: shapesFigure,
  heads: headsFigure, qkv: qkvFigure, weighted: weightedFigure, tokens: tokensFigure, full: fullFigure,
  patching: patchingFigure };
