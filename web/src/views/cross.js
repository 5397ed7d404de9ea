// The cross-attention view (?view=cross): an encoder–decoder's decoder reading the source. One
// head's weights as a heatmap — source tokens along the top, the target down the side — and the
// same weights as lines between the two sentences (line opacity = weight). Row i is the decoder at
// position i: its input is the target so far and it is writing target token i, so rows are
// labelled by the token they write ("→ cat"); the last row writes the model's own next guess.
// When the source and target are a pair of the model folder's heldout.jsonl, the known alignment
// can be overlaid (a ring on each aligned cell, a dashed line between the aligned tokens).
import { Heatmap } from '../draw/heatmap.js';
import { renderLegend } from '../draw/legend.js';
import { sequential } from '../draw/colormap.js';
import { layerHeadPickers } from '../draw/pickers.js';
import { knownAlignment } from '../model/heldout.js';

const SVG = 'http://www.w3.org/2000/svg';
const MIN_WEIGHT = 0.02;   // fainter lines are left out (they would only grey the picture)

/** The cross view's row labels: the token each decoder position writes (see the header). While
 *  a target is being written (r.streamed, target-stream.js) the last row's token is written
 *  already, not a guess. */
export function crossRowLabels(r) {
  const { tokens } = r.targets;
  const guess = r.streamed ? '' : '?';
  return tokens.map((_, i) => (i + 1 < tokens.length ? `→ ${tokens[i + 1]}` : `→ ${r.next?.[0]?.token ?? ''}${guess}`));
}

export function createCrossView(host, app) {
  const top = document.createElement('div');
  top.className = 'view-bar';
  const caption = document.createElement('p');
  caption.className = 'hint cross-caption';
  const alignRow = document.createElement('label');
  alignRow.className = 'check cross-align';
  const alignBox = document.createElement('input');
  alignBox.type = 'checkbox';
  alignBox.checked = true;
  const alignText = document.createElement('span');
  alignRow.append(alignBox, ' ', alignText);
  const mapHost = document.createElement('div');
  mapHost.className = 'map-host';
  const legend = document.createElement('div');
  const linesTitle = document.createElement('h3');
  const lines = document.createElementNS(SVG, 'svg');
  lines.classList.add('cross-lines');
  lines.setAttribute('role', 'img');
  host.append(top, caption, alignRow, mapHost, legend, linesTitle, lines);
  let rowLabels = [], colLabels = [], aligned = null, matrix = null, focus = null;
  const heatmap = new Heatmap(mapHost, {
    labels: true,
    tooltip: (i, j, v) => `${rowLabels[i]} ← #${j} ${colLabels[j]}: ${v.toFixed(4)}` +
      (aligned?.[i] === j ? ` (${app.t('crossAligned')})` : ''),
    onSelect: (i) => { focus = focus === i ? null : i; drawLines(); },
    drawExtra: (ctx, g) => {
      if (!aligned) return;
      ctx.strokeStyle = '#1b9e77';
      ctx.lineWidth = 2;
      aligned.forEach((j, i) => {
        if (j === null || j === undefined) return;
        const s = Math.max(4, g.cell);
        ctx.strokeRect(g.labelW + j * g.cell + 1, g.labelH + i * g.cell + 1, s - 2, s - 2);
      });
    },
  });
  alignBox.addEventListener('change', () => render());

  function render() {
    const { t, state } = app;
    const r = app.original;
    const [L, H, T, S] = r.seq2seq.crossShape;
    top.replaceChildren(layerHeadPickers(app, { layers: L, heads: H }));
    // A target being written has no row past it yet (its last row wrote a token already).
    caption.textContent = t('crossCaption', { layer: state.layer, head: state.head }) + (r.streamed ? '' : ' ' + t('crossCaptionGuess'));
    const known = knownAlignment(app);
    alignRow.hidden = !known;
    alignText.textContent = t('crossShowAlignment');
    aligned = known && alignBox.checked ? known.pair.alignment : null;
    rowLabels = crossRowLabels(r);
    colLabels = r.sources.tokens;
    matrix = r.cross(state.layer, state.head);
    heatmap.overlay.setAttribute('aria-label', t('crossAria', { layer: state.layer, head: state.head, rows: T, cols: S }));
    heatmap.setData({ matrix, n: T, cols: S, rowLabels, colLabels, scale: sequential, vmax: 1, threshold: state.threshold });
    heatmap.overlay.dataset.aligned = aligned ? String(aligned.filter((a) => a !== null).length) : '0';
    renderLegend(legend, { scale: sequential, vmax: 1, caption: t('crossLegend') });
    linesTitle.textContent = t('crossLinesTitle');
    if (focus !== null && focus >= T) focus = null;
    drawLines();
    host.dataset.ready = '1';
  }

  // Source tokens in a column on the left, the target's rows on the right; a line per (row,
  // source token) above MIN_WEIGHT, its opacity the weight. A clicked row shows only its lines.
  function drawLines() {
    const r = app.original;
    const T = rowLabels.length, S = colLabels.length;
    const rowH = 20, width = Math.min(host.clientWidth || 600, 560), labelW = Math.min(130, width * 0.3);
    const height = Math.max(T, S) * rowH + 8;
    lines.setAttribute('viewBox', `0 0 ${width} ${height}`);
    lines.setAttribute('width', String(width));
    lines.setAttribute('height', String(height));
    lines.setAttribute('aria-label', app.t('crossLinesAria'));
    const ys = (i, n) => 4 + (i + 0.5) * rowH + ((Math.max(T, S) - n) * rowH) / 2;
    const x0 = labelW, x1 = width - labelW;
    const parts = [];
    const text = (x, y, s, anchor, cls) => {
      const e = document.createElementNS(SVG, 'text');
      e.setAttribute('x', String(x));
      e.setAttribute('y', String(y));
      e.setAttribute('text-anchor', anchor);
      e.setAttribute('dominant-baseline', 'middle');
      if (cls) e.setAttribute('class', cls);
      e.textContent = s;
      return e;
    };
    const line = (i, j, opacity, cls) => {
      const e = document.createElementNS(SVG, 'line');
      e.setAttribute('x1', String(x0 + 4));
      e.setAttribute('y1', String(ys(j, S)));
      e.setAttribute('x2', String(x1 - 4));
      e.setAttribute('y2', String(ys(i, T)));
      e.setAttribute('class', cls);
      if (opacity !== null) e.setAttribute('stroke-opacity', opacity.toFixed(3));
      e.dataset.row = String(i);
      e.dataset.col = String(j);
      return e;
    };
    for (let i = 0; i < T; i++) {
      if (focus !== null && i !== focus) continue;
      for (let j = 0; j < S; j++) {
        const w = matrix[i * S + j];
        if (w >= MIN_WEIGHT) parts.push(line(i, j, w, 'weight'));
      }
      if (aligned && aligned[i] !== null && aligned[i] !== undefined) parts.push(line(i, aligned[i], null, 'aligned'));
    }
    for (let j = 0; j < S; j++) parts.push(text(x0, ys(j, S), colLabels[j], 'end', r.sources.special[j] ? 'special' : ''));
    rowLabels.forEach((s, i) => {
      const e = text(x1, ys(i, T), s, 'start', focus === i ? 'focus' : '');
      e.dataset.row = String(i);
      e.addEventListener('click', () => { focus = focus === i ? null : i; drawLines(); });
      parts.push(e);
    });
    lines.replaceChildren(...parts);
    lines.dataset.lines = String(parts.filter((p) => p.tagName === 'line' && p.getAttribute('class') === 'weight').length);
  }

  return { render, exposed: { heatmap } };
}

export default createCrossView;
