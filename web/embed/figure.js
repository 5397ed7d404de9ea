// A view as a figure for a paper or slides: what is on screen (canvases, and the HTML text around
// them — token labels, legends with their numbers, captions, tables) under a title band that says
// which model, text, layer and head it shows. The panel is read once into a display list of
// boxes, texts and images in CSS pixels; the list is then drawn onto a canvas at devicePixelRatio
// (PNG) or written as SVG with real <text> (so the words stay searchable and editable).
import { cssColour, sequential } from '../src/draw/colormap.js';

const SVG_NS = 'http://www.w3.org/2000/svg';
const PAD = 12;                       // px around the title band and the figure
const TITLE_FONT = '600 15px system-ui, "Noto Sans KR", sans-serif';
const SUB_FONT = '12px system-ui, "Noto Sans KR", sans-serif';
const SUB_COLOUR = '#555555';
const MAX_TEXT_CHARS = 160;           // of the input text quoted in the title band
// Controls are not part of a figure: their state is in the title band (layer, head) or the picture.
const SKIP = new Set(['INPUT', 'TEXTAREA', 'SELECT', 'SCRIPT', 'STYLE', 'TEMPLATE', 'OPTION']);
// Nor are the labels around them ("Layer [0]"), buttons other than toggles that stand as a legend
// (the lines view's head dots: aria-pressed), or how-to text marked data-no-export.
const isControl = (el) => (el.tagName === 'LABEL' && el.querySelector('input, select, textarea')) ||
  (el.tagName === 'BUTTON' && !el.hasAttribute('aria-pressed'));
/** A PNG figure's pixels per CSS px: at least 2 (slides and print), the screen's if finer. */
export const PNG_SCALE_MIN = 2;

let scratch = null;
function measureCtx() {
  scratch ??= document.createElement('canvas').getContext('2d');
  return scratch;
}

function opaque(colour) {
  return colour && colour !== 'transparent' && !/rgba\(.*,\s*0\)$/.test(colour);
}

function fontOf(style) {
  return `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
}

// The same font as SVG presentation attributes (a style="" attribute would trip a page's
// style-src Content Security Policy even on a detached document).
function fontAttributes(font) {
  const m = /^(?:(normal|italic|oblique)\s+)?(?:(\d{3}|bold|normal)\s+)?([\d.]+px)\s+(.*)$/.exec(font);
  if (!m) return { 'font-family': 'sans-serif' };
  return { 'font-style': m[1] ?? 'normal', 'font-weight': m[2] ?? 'normal', 'font-size': m[3], 'font-family': m[4] };
}

// The alphabetic baseline of a line of `font` text centred in a box `top`..`top + height`.
function baseline(font, top, height) {
  const ctx = measureCtx();
  ctx.font = font;
  const m = ctx.measureText('Hg');
  const ascent = m.fontBoundingBoxAscent ?? m.actualBoundingBoxAscent;
  const descent = m.fontBoundingBoxDescent ?? m.actualBoundingBoxDescent;
  return top + (height - ascent - descent) / 2 + ascent;
}

/**
 * Reads `panel` into a display list: {type: 'rect', x, y, w, h, fill} | {type: 'text', x, y
 * (baseline), text, font, fill} | {type: 'image', x, y, w, h, source (canvas or img)}, in paint
 * order, coordinates relative to the panel's top left. Elements marked data-no-export (a view's
 * own save button) and hidden ones are left out; a <select> shows its chosen option's text.
 */
export function readPanel(panel) {
  const box = panel.getBoundingClientRect();
  const ops = [];
  const rel = (r) => ({ x: r.left - box.left, y: r.top - box.top, w: r.width, h: r.height });
  const visit = (el, clip) => {
    if (SKIP.has(el.tagName) || el.hasAttribute?.('data-no-export') || el.hidden || isControl(el)) return;
    const style = getComputedStyle(el);
    if (style.display === 'none') return;
    const r = el.getBoundingClientRect();
    const visible = style.visibility !== 'hidden' && r.width > 0 && r.height > 0;
    if (visible && opaque(style.backgroundColor)) ops.push({ type: 'rect', ...rel(r), fill: style.backgroundColor });
    if (visible) borders(style, rel(r), ops);
    if (visible) marker(el, style, rel(r), ops);
    if (el.tagName === 'CANVAS' || el.tagName === 'IMG') {
      if (visible && (el.width || el.naturalWidth)) ops.push({ type: 'image', ...rel(r), source: el });
      return;
    }
    if (el.tagName === 'SELECT') {
      const chosen = el.selectedOptions[0]?.textContent ?? '';
      if (visible) ops.push({ type: 'text', x: r.left - box.left + 4, y: baseline(fontOf(style), r.top - box.top, r.height),
        text: chosen, font: fontOf(style), fill: style.color });
      return;
    }
    // Scrolled or clipped containers: what lies outside them is not on screen, so not in the figure.
    const inner = style.overflow === 'visible' ? clip : intersect(clip, r);
    for (const child of el.childNodes) {
      if (child.nodeType === Node.ELEMENT_NODE) visit(child, inner);
      else if (child.nodeType === Node.TEXT_NODE && style.visibility !== 'hidden') texts(child, style, inner);
    }
  };
  const texts = (node, style, clip) => {
    const raw = node.textContent;
    if (!raw.trim()) return;
    const font = fontOf(style);
    for (const line of textLines(node)) {
      if (!overlaps(clip, line.rect)) continue;
      ops.push({ type: 'text', x: line.rect.left - box.left, y: baseline(font, line.rect.top - box.top, line.rect.height),
        text: line.text, font, fill: style.color });
    }
  };
  visit(panel, box);
  // What was left out (the pickers, the how-to) sat above the picture: start at the first thing drawn.
  // (The panel's own box, if it paints one, does not count; a text's top is about its size above its baseline.)
  const tops = ops.filter((op) => !(op.type === 'rect' && op.y <= 0.5 && op.h >= 0.9 * box.height))
    .map((op) => (op.type === 'text' ? op.y - Number(/([\d.]+)px/.exec(op.font)?.[1] ?? 14) : op.y));
  const top = tops.length ? Math.max(0, Math.floor(Math.min(...tops)) - 2) : 0;
  for (const op of ops) if (!(op.type === 'rect' && op.y <= 0.5 && op.h >= 0.9 * box.height)) op.y -= top;
  return { width: box.width, height: box.height - top, ops };
}

// A text node as the lines it is laid out on: one range per word, words grouped by their top.
function textLines(node) {
  const range = document.createRange();
  range.selectNodeContents(node);
  const rects = range.getClientRects();
  const collapsed = node.textContent.replace(/\s+/g, ' ').trim();
  if (rects.length <= 1) return rects.length ? [{ text: collapsed, rect: rects[0] }] : [];
  const lines = [];
  for (const match of node.textContent.matchAll(/\S+/g)) {
    range.setStart(node, match.index);
    range.setEnd(node, match.index + match[0].length);
    const r = range.getBoundingClientRect();
    if (!r.width) continue;
    const last = lines.at(-1);
    if (last && Math.abs(last.rect.top - r.top) < r.height / 2) {
      last.text += ' ' + match[0];
      last.rect = { left: last.rect.left, top: last.rect.top, width: r.right - last.rect.left, height: last.rect.height };
    } else {
      lines.push({ text: match[0], rect: { left: r.left, top: r.top, width: r.width, height: r.height } });
    }
  }
  return lines;
}

// Solid borders as thin boxes (tables, chips, the explanation box); rounded corners are squared.
function borders(style, r, ops) {
  const sides = [['Top', (w) => ({ x: r.x, y: r.y, w: r.w, h: w })], ['Bottom', (w) => ({ x: r.x, y: r.y + r.h - w, w: r.w, h: w })],
    ['Left', (w) => ({ x: r.x, y: r.y, w, h: r.h })], ['Right', (w) => ({ x: r.x + r.w - w, y: r.y, w, h: r.h })]];
  for (const [side, place] of sides) {
    const w = parseFloat(style[`border${side}Width`]);
    const colour = style[`border${side}Color`];
    if (w > 0 && style[`border${side}Style`] !== 'none' && opaque(colour)) ops.push({ type: 'rect', ...place(w), fill: colour });
  }
}

// A ::before dot or swatch (the lines view's head colours) as a box at the start of its element.
function marker(el, style, r, ops) {
  const before = getComputedStyle(el, '::before');
  if (before.content === 'none' || before.content === 'normal' || before.display !== 'inline-block') return;
  const w = parseFloat(before.width), h = parseFloat(before.height);
  if (!(w > 0 && h > 0)) return;
  const box = { x: r.x + parseFloat(style.paddingLeft) + parseFloat(style.borderLeftWidth), y: r.y + (r.h - h) / 2, w, h };
  if (opaque(before.backgroundColor)) ops.push({ type: 'rect', ...box, fill: before.backgroundColor });
  else borders(before, box, ops);
}

function intersect(a, b) {
  const left = Math.max(a.left, b.left), top = Math.max(a.top, b.top);
  return { left, top, right: Math.min(a.right, b.right), bottom: Math.min(a.bottom, b.bottom) };
}

// A line of text is shown when its middle is inside the clip (a half-scrolled line is left out).
function overlaps(clip, r) {
  const midY = r.top + r.height / 2;
  return r.left < clip.right && r.left + r.width > clip.left && midY > clip.top && midY < clip.bottom;
}

// Breaks `text` into lines no wider than `width` in `font` (at spaces; a long word breaks anywhere).
function wrap(text, font, width) {
  const ctx = measureCtx();
  ctx.font = font;
  const lines = [];
  let line = '';
  for (const word of text.split(/(?<=\s)/)) {
    if (ctx.measureText(line + word).width <= width || !line) line += word;
    else { lines.push(line.trimEnd()); line = word; }
    while (ctx.measureText(line).width > width && line.length > 1) {
      let cut = line.length - 1;
      while (cut > 1 && ctx.measureText(line.slice(0, cut)).width > width) cut--;
      lines.push(line.slice(0, cut));
      line = line.slice(cut);
    }
  }
  if (line.trim()) lines.push(line.trimEnd());
  return lines;
}

/**
 * The whole figure: a title band (`title`, then `subtitle` in grey, wrapped to the width) above
 * the panel's display list, and under it an optional colour scale (`scale`: {caption, vmax,
 * colour(t)} for views whose colours the panel itself does not explain).
 */
export function composeFigure(panel, { title, subtitle = '', scale = null }) {
  const body = readPanel(panel);
  const width = Math.max(body.width + 2 * PAD, 320);
  const ops = [];
  let y = PAD;
  for (const [text, font, fill, lineH] of [[title, TITLE_FONT, '#111111', 20], [subtitle, SUB_FONT, SUB_COLOUR, 16]]) {
    for (const line of text ? wrap(text, font, width - 2 * PAD) : []) {
      ops.push({ type: 'text', x: PAD, y: baseline(font, y, lineH), text: line, font, fill });
      y += lineH;
    }
  }
  y += 6;
  for (const op of body.ops) ops.push({ ...op, x: op.x + PAD, y: op.y + y });
  y += body.height;
  if (scale) y = scaleOps(scale, ops, y + 8, width);
  return { width, height: Math.ceil(y + PAD), ops };
}

// A labelled gradient bar: "0 ▭▭▭ vmax  caption".
function scaleOps({ caption, vmax, colour = (t) => cssColour(sequential, t) }, ops, y, width) {
  const barW = 160, barH = 10, font = SUB_FONT;
  const lo = '0', hi = String(Number(vmax.toFixed(4)));
  const ctx = measureCtx();
  ctx.font = font;
  let x = PAD;
  const mid = baseline(font, y, 16);
  ops.push({ type: 'text', x, y: mid, text: lo, font, fill: SUB_COLOUR });
  x += ctx.measureText(lo).width + 6;
  const steps = 32;
  for (let k = 0; k < steps; k++) {
    ops.push({ type: 'rect', x: x + (k * barW) / steps, y: y + 3, w: barW / steps + 0.5, h: barH, fill: colour(k / (steps - 1)) });
  }
  x += barW + 6;
  ops.push({ type: 'text', x, y: mid, text: hi, font, fill: SUB_COLOUR });
  x += ctx.measureText(hi).width + 10;
  // The caption goes beside the bar, or under it where that would run past the edge (phones).
  const lines = wrap(caption, font, width - 2 * PAD);
  if (lines.length === 1 && x + ctx.measureText(caption).width <= width - PAD) {
    ops.push({ type: 'text', x, y: mid, text: caption, font, fill: SUB_COLOUR });
    return y + 16;
  }
  lines.forEach((line, k) => ops.push({ type: 'text', x: PAD, y: mid + 18 * (k + 1), text: line, font, fill: SUB_COLOUR }));
  return y + 16 + 18 * lines.length;
}

/** Draws a figure onto a new canvas at `dpr` device pixels per CSS pixel, on white. */
export function figureToCanvas(figure, dpr = Math.max(PNG_SCALE_MIN, window.devicePixelRatio || 1)) {
  const canvas = document.createElement('canvas');
  canvas.width = Math.round(figure.width * dpr);
  canvas.height = Math.round(figure.height * dpr);
  const ctx = canvas.getContext('2d');
  ctx.scale(dpr, dpr);
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, figure.width, figure.height);
  ctx.textBaseline = 'alphabetic';
  // A 1× screen's canvases are scaled up smoothly (their labels read better soft than blocky).
  ctx.imageSmoothingQuality = 'high';
  for (const op of figure.ops) {
    if (op.type === 'rect') { ctx.fillStyle = op.fill; ctx.fillRect(op.x, op.y, op.w, op.h); }
    else if (op.type === 'text') { ctx.font = op.font; ctx.fillStyle = op.fill; ctx.fillText(op.text, op.x, op.y); }
    else {
      // Canvases land on whole device pixels, so a heatmap copied 1:1 stays crisp (no resampling blur).
      const snap = (v) => Math.round(v * dpr) / dpr;
      ctx.drawImage(op.source, snap(op.x), snap(op.y), snap(op.x + op.w) - snap(op.x), snap(op.y + op.h) - snap(op.y));
    }
  }
  return canvas;
}

/** The same figure as an SVG document string: boxes as <rect>, words as <text>, canvases as <image>. */
export function figureToSvg(figure, title = '') {
  const doc = document.implementation.createDocument(SVG_NS, 'svg', null);
  const svg = doc.documentElement;
  const make = (name, attrs, text) => {
    const el = doc.createElementNS(SVG_NS, name);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
    if (text !== undefined) el.textContent = text;
    return el;
  };
  const { width, height } = figure;
  for (const [k, v] of Object.entries({ width, height, viewBox: `0 0 ${width} ${height}` })) svg.setAttribute(k, String(v));
  if (title) svg.append(make('title', {}, title));
  svg.append(make('rect', { width: '100%', height: '100%', fill: '#ffffff' }));
  const round = (v) => Math.round(v * 100) / 100;
  for (const op of figure.ops) {
    if (op.type === 'rect') svg.append(make('rect', { x: round(op.x), y: round(op.y), width: round(op.w), height: round(op.h), fill: op.fill }));
    else if (op.type === 'text') svg.append(make('text', { x: round(op.x), y: round(op.y), ...fontAttributes(op.font), fill: op.fill }, op.text));
    else svg.append(make('image', { x: round(op.x), y: round(op.y), width: round(op.w), height: round(op.h), preserveAspectRatio: 'none', href: imageUrl(op.source) }));
  }
  return '<?xml version="1.0" encoding="UTF-8"?>\n' + new XMLSerializer().serializeToString(doc);
}

function imageUrl(source) {
  if (source.tagName === 'CANVAS') return source.toDataURL('image/png');
  const c = document.createElement('canvas');
  c.width = source.naturalWidth;
  c.height = source.naturalHeight;
  c.getContext('2d').drawImage(source, 0, 0);
  return c.toDataURL('image/png');
}

/** Shortens the input text for a title band. */
export function quoteText(text) {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_TEXT_CHARS ? flat.slice(0, MAX_TEXT_CHARS - 1) + '…' : flat;
}
