// Head detail: one head's T×T attention, large, with token labels, a hover tooltip giving the exact
// weight, row/column highlight and a legend. Clicking (or Enter on) a row selects that query token;
// the selected queries' mean row is drawn as a bar chart under the heatmap.
import { squareOrCross } from './family-switch.js';
import { createCrossView } from './cross.js';
import { Heatmap } from '../draw/heatmap.js';
import { renderLegend, fmt } from '../draw/legend.js';
import { sequential } from '../draw/colormap.js';
import { meanOfRows, maxOf } from '../math/attention-math.js';
import { layerHeadPickers, tokenName } from '../draw/pickers.js';
import { isCausal } from '../model/causal-mask.js';
import { createHeadZoom } from './head-zoom.js';
import { captionWithHowTo } from '../draw/how-to.js';
import { currentViewPng, downloadBlob, exportFileName } from '../../embed/export.js';

export function createHeadDetail(host, app) {
  const top = document.createElement('div');
  top.className = 'view-bar';
  const hint = document.createElement('p');
  hint.className = 'hint';
  const mapHost = document.createElement('div');
  mapHost.className = 'map-host';
  const legend = document.createElement('div');
  const selTitle = document.createElement('h3');
  const bars = document.createElement('canvas');
  bars.className = 'bars';
  const selBox = document.createElement('div');
  selBox.className = 'selection-agg';
  selBox.append(selTitle, bars);
  const hiddenNote = document.createElement('p');
  hiddenNote.className = 'hint hidden-mass';
  const zoomHost = document.createElement('div');
  host.append(top, hint, hiddenNote, mapHost, legend, zoomHost, selBox);
  const zoom = createHeadZoom(zoomHost, app);
  let labels = [], positions = [], removed = null;
  const heatmap = new Heatmap(mapHost, {
    labels: true,
    ariaLabel: '',
    tooltip: (i, j, v) => `${tokenName(positions[i], labels[i])} → ${tokenName(positions[j], labels[j])}: ${v.toFixed(4)}` +
      (removed ? ` ${app.t('hiddenMassRow', { pct: (removed[i] * 100).toFixed(1) })}` : ''),
    onSelect: (i, j) => {
      zoom.moveTo(i, j);   // a long input's close-up follows the cell clicked
      app.toggleSelected(app.originalPosition(positions[i]));
    },
  });

  // A figure for a paper or slides: the heatmap with its labels, as drawn (no hover marks).
  const save = document.createElement('button');
  save.type = 'button';
  save.className = 'save-png';
  save.dataset.noExport = '';   // the page's PNG/SVG exports are figures; this button is not in them
  // The same figure as the page's PNG export (title band, labels, colour scale, at ≥ 2×; it was
  // the bare heatmap canvas, with no title or scale).
  save.addEventListener('click', async () => {
    const png = currentViewPng(app);
    if (png) downloadBlob(await png, exportFileName(app.state, 'png'));
  });

  // The selected tokens' rows in the matrix shown (selection is kept in the typed text's positions).
  function selectedRows() {
    return app.state.selected.map((p) => positions.indexOf(app.resultPosition(p))).filter((a) => a >= 0);
  }

  function render() {
    const { t, state } = app;
    save.textContent = t('savePng');
    top.replaceChildren(layerHeadPickers(app), save);
    captionWithHowTo(hint, t('headHint'), t('headHowTo'));
    ({ positions, labels } = app.display());
    const matrix = app.displayMatrix(state.layer, state.head);
    const n = positions.length, vmax = maxOf(matrix);
    heatmap.overlay.setAttribute('aria-label', t('headAria', { layer: state.layer, head: state.head, n }));
    heatmap.setData({ matrix, n, rowLabels: labels, colLabels: labels, scale: sequential, vmax, threshold: state.threshold, causal: isCausal(app) });
    heatmap.setMarked(selectedRows());
    zoom.update({ matrix, n, labels, positions, vmax, threshold: state.threshold }, !heatmap.geo.labels, selectedRows());
    showHiddenMass();
    renderLegend(legend, { scale: sequential, vmax, caption: isCausal(app) ? `${t('legendAttention')} · ${t('legendMasked')}` : t('legendAttention') });
    drawSelection(matrix, n);
  }

  // Hiding [CLS]/[SEP] renormalises each row over the tokens shown, which can make a head that
  // puts nearly all its weight on [CLS] look crisp: say how much weight each row lost.
  function showHiddenMass() {
    const r = app.result, T = r.shape[2];
    removed = null;
    // Each row's tokens: one, or a word's pieces (its row is their mean, js/analysis/words.js).
    const d = app.display();
    const rowTokens = d.words ? d.rows.map((i) => d.words[i].tokens) : positions.map((p) => [p]);
    const shown = new Set(rowTokens.flat());
    hiddenNote.hidden = shown.size === T;
    if (hiddenNote.hidden) return;
    const raw = r.attention(app.state.layer, app.state.head);
    removed = rowTokens.map((pieces) => {
      let sum = 0;
      for (const p of pieces) for (let j = 0; j < T; j++) if (!shown.has(j)) sum += raw[p * T + j];
      return sum / pieces.length;
    });
    const pct = (v) => (v * 100).toFixed(0);
    hiddenNote.dataset.removed = removed.map((v) => v.toFixed(6)).join(',');
    hiddenNote.textContent = app.t('hiddenMass', { min: pct(Math.min(...removed)), max: pct(Math.max(...removed)),
      mean: pct(removed.reduce((a, b) => a + b, 0) / removed.length) });
  }

  function drawSelection(matrix, n) {
    const rows = selectedRows();
    selBox.hidden = rows.length === 0;
    if (!rows.length) return;
    selTitle.textContent = app.t('selectionTitle', { tokens: rows.map((a) => labels[a]).join(', ') });
    const mean = meanOfRows(matrix, n, rows);
    const geo = heatmap.geo, dpr = window.devicePixelRatio || 1;
    const font = '11px system-ui, sans-serif';
    const ctx = bars.getContext('2d');
    // Each bar sits under its heatmap column; where columns are wide enough for text (as in the
    // heatmap's own labels) the bars carry their token names below, rotated the same way.
    // The three largest are named in the accessible label and get their weight above the bar.
    ctx.font = font;
    const named = geo.cell >= 10;
    const labelH = named ? Math.min(90, Math.ceil(Math.max(...labels.map((l) => ctx.measureText(l).width))) + 6) : 0;
    const barsH = 90, h = barsH + labelH;
    const w = geo.labelW + geo.grid;
    bars.width = w * dpr;
    bars.height = h * dpr;
    bars.style.width = w + 'px';
    bars.style.height = h + 'px';
    bars.dataset.values = Array.from(mean, (v) => v.toFixed(6)).join(',');
    const top3 = Array.from(mean.keys()).sort((a, b) => mean[b] - mean[a]).slice(0, Math.min(3, n));
    bars.setAttribute('role', 'img');
    bars.setAttribute('aria-label', top3.map((j) => `${labels[j]} ${mean[j].toFixed(3)}`).join(', '));
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.font = font;   // resizing the canvas above reset it
    const vmax = Math.max(maxOf(mean), 1e-9);
    const base = barsH - 14, top = 14;   // room for the weights written above the tallest bars
    const barHeight = (v) => (v / vmax) * (base - top);
    const color = getComputedStyle(host).color;
    ctx.fillStyle = '#2171b5';
    for (let j = 0; j < n; j++) {
      const bh = barHeight(mean[j]);
      ctx.fillRect(geo.labelW + j * geo.cell + geo.cell * 0.1, base - bh, Math.max(1, geo.cell * 0.8), bh);
    }
    ctx.fillStyle = color;
    ctx.textAlign = 'center';
    for (const j of top3) {
      if (!(mean[j] >= 0.005)) continue;   // a weight that rounds to 0.00 says nothing
      const x = geo.labelW + (j + 0.5) * geo.cell;
      ctx.fillText(mean[j].toFixed(2), Math.min(w - 14, Math.max(geo.labelW + 14, x)), base - barHeight(mean[j]) - 3);
    }
    ctx.textAlign = 'left';
    ctx.fillText(fmt(vmax), 0, top);
    ctx.fillText('0', 0, base);
    if (named) {
      ctx.textAlign = 'right';
      ctx.textBaseline = 'middle';
      for (let j = 0; j < n; j++) {
        ctx.save();
        ctx.translate(geo.labelW + (j + 0.5) * geo.cell, base + 4);
        ctx.rotate(-Math.PI / 2);
        ctx.fillStyle = rows.includes(j) ? '#d94801' : color;   // the selected queries' own columns
        ctx.fillText(labels[j], 0, 0);
        ctx.restore();
      }
    }
  }

  return { render, heatmap };
}

/** The Head tab: an encoder–decoder's cross-attention in the cross view. */
export default squareOrCross(createHeadDetail, createCrossView);
