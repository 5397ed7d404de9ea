// Static fallbacks for a view: a PNG of exactly what is on screen (every visible canvas of the
// view composited at devicePixelRatio), an SVG heatmap built with the DOM and XMLSerializer (so
// token text is escaped by the serializer, never by hand). The explorer page may import these
// too; the BertViz download is js/formats/bertviz.js, shared with the CLI.
import { cssColour, sequential } from '../src/draw/colormap.js';
import { composeFigure, figureToCanvas, figureToSvg, quoteText } from './figure.js';
import { MASK_FILL, isCausal } from '../src/model/causal-mask.js';
import { bundledLabel } from '../src/i18n/bundled-labels.js';
import { VIEW, viewEntry } from '../src/views/registry.js';

const SVG_NS = 'http://www.w3.org/2000/svg';
const SVG_VECTOR_MAX = 128;   // tokens: above this the cells go in as one embedded PNG, not n² rects

/**
 * Paints every visible canvas inside `panel` onto one canvas of the panel's size × dpr, over
 * the panel's background colour. Text that is HTML (not canvas) is not included.
 */
export function viewToCanvas(panel, dpr = window.devicePixelRatio || 1) {
  const box = panel.getBoundingClientRect();
  const out = document.createElement('canvas');
  out.width = Math.max(1, Math.round(box.width * dpr));
  out.height = Math.max(1, Math.round(box.height * dpr));
  const ctx = out.getContext('2d');
  ctx.fillStyle = opaqueBackground(panel);
  ctx.fillRect(0, 0, out.width, out.height);
  for (const canvas of panel.querySelectorAll('canvas')) {
    const r = canvas.getBoundingClientRect();
    if (!r.width || !r.height || !canvas.width || !canvas.height || canvas.closest('[hidden]')) continue;
    ctx.drawImage(canvas, (r.left - box.left) * dpr, (r.top - box.top) * dpr, r.width * dpr, r.height * dpr);
  }
  return out;
}

// The first non-transparent background up the tree (through shadow roots); white otherwise.
function opaqueBackground(el) {
  for (let node = el; node; node = node.parentElement ?? node.getRootNode()?.host) {
    const bg = getComputedStyle(node).backgroundColor;
    if (bg && bg !== 'transparent' && !/rgba\(.*,\s*0\)$/.test(bg)) return bg;
  }
  return '#ffffff';
}

export function canvasToBlob(canvas, type = 'image/png') {
  return new Promise((resolve, reject) => {
    canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('the canvas could not be encoded'))), type);
  });
}

/** The PNG of a view panel as the user sees it. */
export function viewToPng(panel, dpr) {
  return canvasToBlob(viewToCanvas(panel, dpr));
}

/**
 * One attention matrix as a standalone SVG document string.
 * @param {{matrix: Float32Array, n: number, labels: string[], title?: string, vmax?: number,
 *   threshold?: number, cell?: number, causal?: boolean}} data matrix is n×n row-major (row = query);
 *   causal: a decoder's, whose cells above the diagonal are masked (grey, titled "masked");
 *   scaleCaption: what the colour bar under the cells measures (its ends are 0 and vmax)
 */
export function attentionSvg({ matrix, n, labels, title = '', subtitle = '', vmax, threshold = 0, cell = 16, causal = false,
  scaleCaption = 'attention weight' }) {
  const max = vmax ?? Math.max(1e-12, ...matrix);
  const labelW = 90, top = 90 + (title ? 22 : 0) + (subtitle ? 16 : 0), size = n * cell, scaleH = 28;
  const doc = document.implementation.createDocument(SVG_NS, 'svg', null);
  const svg = doc.documentElement;
  const attrs = (el, values) => { for (const [k, v] of Object.entries(values)) el.setAttribute(k, String(v)); return el; };
  const make = (name, values, text) => {
    const el = attrs(doc.createElementNS(SVG_NS, name), values);
    if (text !== undefined) el.textContent = text;
    return el;
  };
  // Wide enough for the subtitle (≈ 6 px a character at 11 px), within reason.
  const width = Math.max(labelW + size + 8, 360, Math.min(960, subtitle.length * 6 + 8)), height = top + size + 8 + scaleH;
  attrs(svg, { width, height, viewBox: `0 0 ${width} ${height}`,
    'font-family': 'system-ui, sans-serif', 'font-size': Math.max(8, Math.min(12, cell - 3)) });
  svg.append(make('rect', { width: '100%', height: '100%', fill: '#ffffff' }));
  if (title) svg.append(make('title', {}, title), make('text', { x: 4, y: 16, 'font-size': 13, 'font-weight': 600 }, title));
  if (subtitle) svg.append(make('text', { x: 4, y: title ? 34 : 16, 'font-size': 11, fill: '#555555' }, subtitle));
  const weight = (v) => (v < threshold ? cssColour(sequential, 0) : cssColour(sequential, Math.min(1, v / max)));
  const colour = (v, i, j) => (causal && j > i ? MASK_FILL : weight(v));
  if (n <= SVG_VECTOR_MAX) {
    const cells = make('g', { transform: `translate(${labelW} ${top})`, 'shape-rendering': 'crispEdges' });
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        const v = matrix[i * n + j];
        const rect = make('rect', { x: j * cell, y: i * cell, width: cell, height: cell, fill: colour(v, i, j) });
        rect.append(make('title', {}, `${labels[i]} → ${labels[j]}: ${causal && j > i ? 'masked' : v.toFixed(4)}`));
        cells.append(rect);
      }
    }
    svg.append(cells);
  } else {
    svg.append(make('image', { x: labelW, y: top, width: size, height: size, preserveAspectRatio: 'none',
      href: cellsDataUrl(matrix, n, colour) }));
  }
  const rows = make('g', { 'text-anchor': 'end', 'dominant-baseline': 'central' });
  const cols = make('g', { transform: `translate(${labelW} ${top - 4}) rotate(-90)`, 'dominant-baseline': 'central' });
  for (let i = 0; i < n; i++) {
    rows.append(make('text', { x: labelW - 4, y: top + (i + 0.5) * cell }, labels[i]));
    cols.append(make('text', { x: 0, y: (i + 0.5) * cell }, labels[i]));
  }
  svg.append(rows, cols, colourScale(make, { x: 4, y: top + size + 12, vmax: max, caption: scaleCaption }));
  return '<?xml version="1.0" encoding="UTF-8"?>\n' + new XMLSerializer().serializeToString(doc);
}

// "0 ▭▭▭ vmax  caption": the gradient the cells are coloured with, in 32 steps.
function colourScale(make, { x, y, vmax, caption }) {
  const g = make('g', { 'font-size': 11, fill: '#555555', 'dominant-baseline': 'central' });
  const barX = x + 14, barW = 160, steps = 32;
  g.append(make('text', { x, y: y + 6 }, '0'));
  for (let k = 0; k < steps; k++) {
    g.append(make('rect', { x: barX + (k * barW) / steps, y, width: barW / steps + 0.5, height: 12, fill: cssColour(sequential, k / (steps - 1)) }));
  }
  g.append(make('text', { x: barX + barW + 6, y: y + 6 }, String(Number(vmax.toFixed(4)))),
    make('text', { x: barX + barW + 56, y: y + 6 }, caption));
  return g;
}

function cellsDataUrl(matrix, n, colour) {
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = n;
  const ctx = canvas.getContext('2d');
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      ctx.fillStyle = colour(matrix[i * n + j], i, j);
      ctx.fillRect(j, i, 1, 1);
    }
  }
  return canvas.toDataURL('image/png');
}

/** Saves a Blob under a file name (an <a download> click; `host` keeps it inside a shadow root). */
export function downloadBlob(blob, filename, host = document.body) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.hidden = true;
  host.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

// ---- what the page and <attn-scope> export, from the view model (web/src/state/view-model.js) ----

/** The file name of an export of the view on screen. */
export function exportFileName(state, ext) {
  return `attnscope-${state.view}-layer${state.layer}-head${state.head}.${ext}`;
}

/**
 * The view on screen as a figure (web/embed/figure.js): a title band naming the view, layer and
 * head, the model and the text, over everything the panel shows (canvases, labels, legends), and
 * a colour scale for a view whose panel has none. Null before anything is drawn.
 */
export function currentViewFigure(app) {
  const panel = app.views[app.state.view]?.panel;
  if (!panel || !app.result) return null;
  const { t, state } = app;
  // What one drawing of the view covers (its registry entry's scope): every layer and head at once
  // (the title names none), one layer, or one head.
  const { scope, label } = viewEntry(state.view);
  const where = scope === 'model' ? ''
    : scope === 'layer' ? ` · ${t('layer')} ${state.layer}` : ` · ${t('layerHead', { layer: state.layer, head: state.head })}`;
  return composeFigure(panel, {
    title: `AttnScope · ${t(label)}${where}`,
    subtitle: figureSubtitle(app),
    scale: state.view === VIEW.lines ? linesScale(app) : null,
  });
}

// The lines view gives each head a colour (its toggle's dot) and a line the opacity of its weight:
// the scale shows opacity alone, in a neutral ink.
function linesScale(app) {
  return { vmax: 1, caption: app.t('exportLinesScale'), colour: (a) => `rgba(40, 40, 40, ${a.toFixed(3)})` };
}

// "Bundled model (offline) · “The cat sat…”": what was run, under a figure's title.
function figureSubtitle(app) {
  const { state } = app;
  const text = [state.text, state.pairOn ? state.pair : ''].filter(Boolean).join(' ‖ ');
  return `${modelName(app)} · “${quoteText(text)}”`;
}

function modelName(app) {
  const i = app.info;
  if (i?.source === 'files') return app.t('modelLocalLoaded');
  if (i?.source === 'bundled' || !i) return bundledLabel(app.t, app.state.model) ?? app.t('modelBundled');
  return i.id ?? app.state.model;
}

/** A PNG of the view on screen as a figure, at devicePixelRatio; null before anything is drawn. */
export function currentViewPng(app, dpr) {
  const figure = currentViewFigure(app);
  return figure ? canvasToBlob(figureToCanvas(figure, dpr)) : null;
}

/**
 * The view on screen as SVG: the head view as a vector heatmap (one <rect> per cell), every
 * other view as its figure (text as <text>, what is drawn on canvases as embedded PNGs).
 */
export function currentViewSvg(app) {
  if (!app.result) return null;
  // A square matrix as vector cells; an encoder–decoder's cross-attention (target × source) is drawn
  // by the cross view, exported as its figure.
  const [, , rows, cols] = app.result.shape;
  if (app.state.view === VIEW.head && rows === cols) return currentHeadSvg(app);
  const figure = currentViewFigure(app);
  return figure && figureToSvg(figure, `AttnScope · ${app.t(viewEntry(app.state.view).label)}`);
}

/** The current head as the views show it (special tokens hidden or not), as an SVG document. */
export function currentHeadSvg(app) {
  const { layer, head, threshold } = app.state;
  const { labels } = app.display();
  return attentionSvg({ matrix: app.displayMatrix(layer, head), n: labels.length, labels, threshold,
    title: `AttnScope · ${app.t('layerHead', { layer, head })}`, subtitle: figureSubtitle(app),
    causal: isCausal(app), scaleCaption: app.t('legendAttention') });
}
