// Rotary Positions (the Positions tab for the Llama family): a rotary model adds no position
// vector to the words; it turns each head's q and k by an angle proportional to the token's
// position, so a score depends on the distance i − j. Three panels, all from the model's own
// numbers: (1) the score of one real q, k pair of the reader's sentence (un-rotated from the
// run's q and k) placed at growing distances, checked against the engine's score at the pair's
// actual distance; (2) the angle each frequency pair has turned at that distance; (3) the two
// sentences in two orders: their tokens compared, and the head's attention in each.
import { Heatmap } from '../draw/heatmap.js';
import { renderLegend } from '../draw/legend.js';
import { sequential } from '../draw/colormap.js';
import { maxOf } from '../math/attention-math.js';
import { layerHeadPickers, makeSelect, queryPicker, tokenName } from '../draw/pickers.js';
import { MAX_POSITION_CHARS } from '../state/state.js';
import { anglesDegrees, dot, rotate, scoresByDistance, wavelengths } from '../math/rotary-math.js';
import { tokenComparisonText } from '../math/token-compare.js';
import { kvGroupOf } from '../model/model-family.js';
import { errorReason } from '../i18n/error-text.js';

const MAX_DISTANCE = 256;   // the curve's width in tokens (fewer if the model reads fewer)
const SVG = 'http://www.w3.org/2000/svg';

export function createRotary(host, app) {
  const bar = document.createElement('div');
  bar.className = 'view-bar';
  const intro = document.createElement('p');
  intro.className = 'hint';
  const curve = section('rotary-curve');
  const dials = section('rotary-angles');
  const order = section('rotary-order');
  host.append(bar, intro, curve.s, dials.s, order.s);
  let key = null;          // the key token of the pair (null: the strongest key of the query row)
  const exposed = {};
  let cache = null;        // { key, promise } of the two sentences' runs

  function section(cls) {
    const s = document.createElement('section');
    s.className = 'agg-panel ' + cls;
    const h = document.createElement('h3');
    const body = document.createElement('div');
    const note = document.createElement('p');
    note.className = 'hint';
    s.append(h, body, note);
    return { s, h, body, note };
  }

  // Head (layer, head)'s vector of token p (q or k; the engine stores k per query head).
  function vectorOf(which, p) {
    const r = app.result, [, H, T] = r.shape, arr = r[which], dh = arr.length / (r.shape[0] * H * T);
    const s = ((app.state.layer * H + app.state.head) * T + p) * dh;
    return arr.subarray(s, s + dh);
  }

  function render() {
    const { t, state, result } = app;
    const invFreq = app.info.config.rotaryInverseFrequencies;
    bar.replaceChildren(layerHeadPickers(app), queryPicker(app));
    intro.textContent = t('rotaryIntro');
    if (!result.q || !result.k || !invFreq?.length) {
      curve.body.replaceChildren();
      curve.note.textContent = t('formulaNoQkv');
      return;
    }
    const i = state.query, T = result.shape[2];
    const row = result.attention(state.layer, state.head).subarray(i * T, (i + 1) * T);
    // The pair: the key chosen, else the strongest earlier key (the query itself has d = 0,
    // where nothing has turned yet).
    let j = key !== null && key <= i ? key : 0;
    if (key === null || key > i) for (let c = 0; c < i; c++) if (row[c] > row[j]) j = c;
    const labels = Array.from(result.tokenTexts ?? result.tokens);
    bar.append(makeSelect(t('rotaryKey'), labels.slice(0, i + 1).map((l, p) => [p, `${p}: ${l}`]), j, (p) => { key = p; render(); }, 'key-picker'));

    // (1) Un-rotate the run's q_i and k_j to what they were before the rotation, then place them
    // at every distance. At the actual distance i − j the curve must give the engine's score.
    const qRot = vectorOf('q', i), kRot = vectorOf('k', j);
    const q = rotate(qRot, -i, invFreq), k = rotate(kRot, -j, invFreq);
    const maxD = Math.max(1, Math.min(MAX_DISTANCE, app.info.config.maxTokens - 1));
    const scores = scoresByDistance(q, k, invFreq, maxD);
    const engineScore = dot(qRot, kRot) / Math.sqrt(qRot.length);
    const group = kvGroupOf(app.info.config, state.head);
    curve.h.textContent = t('rotaryCurveTitle', { q: tokenName(i, labels[i]), k: tokenName(j, labels[j]) });
    curve.body.replaceChildren(lineChart(scores, i - j, t, host.clientWidth));
    curve.note.textContent = t('rotaryCurveNote', { d: i - j, curve: scores[i - j].toFixed(4), engine: engineScore.toFixed(4), max: maxD })
      + (group ? ' ' + t('rotaryShared', { kv: group.kv, first: group.first, last: group.last }) : '');

    // (2) The angle of every pair after i − j steps: fast pairs have wrapped round many times,
    // slow ones have barely moved — the slow ones tell far from near, the fast ones near from next.
    const angles = anglesDegrees(i - j, invFreq), waves = wavelengths(invFreq);
    dials.h.textContent = t('rotaryAnglesTitle', { d: i - j, pairs: invFreq.length });
    dials.body.replaceChildren(dialGrid(angles, waves, t));
    dials.note.textContent = t('rotaryAnglesNote', { fast: waves[0].toFixed(1), slow: Math.round(waves.at(-1)) });

    exposed.last = { layer: state.layer, head: state.head, query: i, key: j, distance: i - j, invFreq: Array.from(invFreq),
      scores: Array.from(scores), engineScore, angles, wavelengths: waves, qRotated: Array.from(qRot), kRotated: Array.from(kRot),
      order: exposed.order };
    renderOrder();
  }

  // (3) The same words in another order, run through the model (no trace: the engine has none
  // for this layer); what differs is said from the token lists, not assumed.
  function renderOrder() {
    const { t, state } = app;
    order.h.textContent = t('rotaryOrderTitle');
    const wanted = `${app.info.location ?? ''}|${app.info.loadMs}|${state.positionsA}|${state.positionsB}`;
    if (cache?.key !== wanted) {
      const promise = Promise.all([app.jobs.run(state.positionsA, {}), app.jobs.run(state.positionsB, {})]);
      cache = { key: wanted, promise };
      promise.catch(() => { if (cache?.promise === promise) cache = null; });
    }
    const asked = cache.promise;
    if (!order.body.childElementCount) order.note.textContent = t('positionsRunning');
    asked.then((runs) => { if (cache?.promise === asked) drawOrder(runs); }, (e) => {
      if (e?.code !== 'E_ABORTED') order.note.textContent = t('runFailed', { reason: errorReason(t, e) });
    });
  }

  function drawOrder(runs) {
    const { t, state } = app;
    const [L, H] = runs[0].shape;
    const layer = Math.min(state.layer, L - 1), head = Math.min(state.head, H - 1);
    const texts = runs.map((r) => Array.from(r.tokenTexts ?? r.tokens));
    const grid = document.createElement('div');
    grid.className = 'agg-grid positions-grid';
    const vmax = Math.max(...runs.map((r) => maxOf(r.attention(layer, head))));
    runs.forEach((r, s) => {
      const panel = document.createElement('div');
      panel.className = 'rotary-sentence';
      const label = document.createElement('label');
      const input = document.createElement('input');
      input.type = 'text';
      input.className = 'positions-sentence';
      input.maxLength = MAX_POSITION_CHARS;
      input.value = s ? state.positionsB : state.positionsA;
      input.dataset.side = String(s);
      input.addEventListener('change', () => app.set({ [s ? 'positionsB' : 'positionsA']: input.value }));
      label.append(document.createTextNode(t(s ? 'positionsSentenceB' : 'positionsSentenceA') + ' '), input);
      const tokens = document.createElement('p');
      tokens.className = 'rotary-tokens';
      tokens.textContent = texts[s].map((x, p) => `${p}:${x}`).join('  ');
      const mapHost = document.createElement('div');
      mapHost.className = 'map-host';
      const legend = document.createElement('div');
      panel.append(label, tokens, mapHost, legend);
      grid.append(panel);
      order.body.replaceChildren(grid);   // in the page before the heatmap measures its width
      const n = texts[s].length;
      const map = new Heatmap(mapHost, { labels: true, maxSize: 260,
        tooltip: (a, b, v) => `${tokenName(a, texts[s][a])} → ${tokenName(b, texts[s][b])}: ${v.toFixed(4)}` });
      map.setData({ matrix: r.attention(layer, head), n, rowLabels: texts[s], colLabels: texts[s], scale: sequential, vmax, threshold: 0, causal: true });
      renderLegend(legend, { scale: sequential, vmax, caption: t('legendAttention') });
    });
    order.note.textContent = `${tokenComparisonText(t, texts[0], texts[1])} ${t('rotaryOrderNote')}`;
    exposed.order = { tokensA: texts[0], tokensB: texts[1] };
    if (exposed.last) exposed.last.order = exposed.order;
    host.dataset.ready = '1';
  }

  return { render, exposed, get last() { return exposed.last; } };
}

// Score against distance: an SVG polyline, the pair's actual distance marked.
// Drawn at the panel's width (up to 560 px), so its labels keep their size on a phone.
function lineChart(scores, actual, t, width) {
  const W = Math.max(260, Math.min(560, (width || 560) - 24)), Hh = 180, PAD = 36, n = scores.length;
  let lo = Infinity, hi = -Infinity;
  for (const v of scores) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
  if (hi - lo < 1e-9) { hi += 1; lo -= 1; }
  const x = (d) => PAD + (d / (n - 1)) * (W - PAD - 8), y = (v) => 8 + (1 - (v - lo) / (hi - lo)) * (Hh - PAD - 8);
  const svg = el('svg', { viewBox: `0 0 ${W} ${Hh}`, class: 'rotary-chart', role: 'img', 'aria-label': t('rotaryChartAria', { n: n - 1 }) });
  svg.append(el('line', { x1: PAD, y1: Hh - PAD, x2: W - 8, y2: Hh - PAD, class: 'axis' }), el('line', { x1: PAD, y1: 8, x2: PAD, y2: Hh - PAD, class: 'axis' }));
  if (lo < 0 && hi > 0) svg.append(el('line', { x1: PAD, y1: y(0), x2: W - 8, y2: y(0), class: 'zero' }));
  svg.append(el('polyline', { points: Array.from(scores, (v, d) => `${x(d).toFixed(1)},${y(v).toFixed(1)}`).join(' '), class: 'curve' }));
  if (actual < n) svg.append(el('circle', { cx: x(actual), cy: y(scores[actual]), r: 4, class: 'actual' }));
  const text = (s, attrs) => { const e = el('text', attrs); e.textContent = s; return e; };
  svg.append(text(t('rotaryAxisDistance'), { x: (W + PAD) / 2, y: Hh - 6, 'text-anchor': 'middle' }),
    text('0', { x: PAD, y: Hh - PAD + 14, 'text-anchor': 'middle' }), text(String(n - 1), { x: W - 8, y: Hh - PAD + 14, 'text-anchor': 'end' }),
    text(hi.toFixed(2), { x: PAD - 4, y: 14, 'text-anchor': 'end' }), text(lo.toFixed(2), { x: PAD - 4, y: Hh - PAD, 'text-anchor': 'end' }));
  return svg;
}

// One small dial per frequency pair: the angle turned, with its wavelength in tokens below.
function dialGrid(angles, waves, t) {
  const box = document.createElement('div');
  box.className = 'rotary-dials';
  angles.forEach((deg, d) => {
    const fig = document.createElement('figure');
    fig.title = t('rotaryDialTitle', { pair: d, deg: deg.toFixed(1), wave: waves[d].toFixed(1) });
    const svg = el('svg', { viewBox: '-12 -12 24 24', width: 30, height: 30, 'aria-hidden': 'true' });
    const a = (deg * Math.PI) / 180;
    svg.append(el('circle', { r: 10, class: 'dial' }), el('line', { x1: 0, y1: 0, x2: 10, y2: 0, class: 'dial-zero' }),
      el('line', { x1: 0, y1: 0, x2: (10 * Math.cos(a)).toFixed(2), y2: (-10 * Math.sin(a)).toFixed(2), class: 'dial-hand' }));
    const cap = document.createElement('figcaption');
    cap.textContent = `${Math.round(deg)}°`;
    fig.append(svg, cap);
    box.append(fig);
  });
  return box;
}

function el(name, attrs) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}
