// A T×T heatmap (or rows × cols: an encoder–decoder's cross-attention, target × source) on canvas: the cells are one ImageData (T×T pixels) scaled onto the grid, token
// labels are drawn beside it when cells are tall enough to read, and hover/focus highlights live
// on a second canvas so moving the pointer redraws two rectangles, not the matrix. Keyboard:
// arrow keys move the focused cell (said through a live region, announcer.js), Enter selects its
// row. One tooltip element, textContent only.
import { packedColour, sequential } from './colormap.js';
import { drawMaskTriangle } from '../model/causal-mask.js';
import { createAnnouncer } from './announcer.js';

const MAX_CELL = 28;       // px: a short sentence should not become a wall of giant squares
const LABEL_MIN_CELL = 9;  // px: below this, labels would overlap; the tooltip names the tokens
const LABEL_MAX = 96;      // px reserved at most for row / column labels

export class Heatmap {
  // options: { labels, tooltip(i, j, v) → string, onSelect(i, j), ariaLabel, maxSize }
  constructor(host, options = {}) {
    this.options = options;
    this.root = document.createElement('div');
    this.root.className = 'heatmap';
    this.base = document.createElement('canvas');
    this.overlay = document.createElement('canvas');
    this.overlay.className = 'heatmap-overlay';
    this.overlay.tabIndex = 0;
    this.overlay.setAttribute('role', 'img');
    if (options.ariaLabel) this.overlay.setAttribute('aria-label', options.ariaLabel);
    this.tip = document.createElement('div');
    this.tip.className = 'tooltip';
    this.tip.hidden = true;
    this.tip.setAttribute('aria-hidden', 'true');   // the announcer says it (keyboard moves)
    this.root.append(this.base, this.overlay, this.tip);
    this.say = createAnnouncer(this.root);
    host.append(this.root);
    this.hover = null;         // {i, j} under the pointer or keyboard focus
    this.marked = [];          // rows to mark at the left edge (selected queries)
    this.pending = false;
    this.overlay.addEventListener('pointermove', (e) => this.pointAt(e));
    this.overlay.addEventListener('pointerleave', () => { if (!this.keyboard) this.setHover(null); });
    // A touch has no hover: the first tap on a cell shows its weight, a second tap on the same
    // cell selects (a mouse click selects at once).
    this.overlay.addEventListener('pointerdown', (e) => { this.lastPointer = e.pointerType; });
    this.overlay.addEventListener('click', (e) => {
      const cell = this.cellAt(e);
      if (!cell) return;
      const shown = this.hover && this.hover.i === cell.i && this.hover.j === cell.j && !this.tip.hidden;
      this.setHover(cell, e);
      if (this.lastPointer === 'touch' && !shown) return;
      if (this.options.onSelect) this.options.onSelect(cell.i, cell.j);
    });
    this.overlay.addEventListener('keydown', (e) => this.onKey(e));
    this.overlay.addEventListener('focus', () => {
      this.keyboard = true;
      if (!this.hover && this.n) this.setHover({ i: 0, j: 0 });
    });
    this.overlay.addEventListener('blur', () => { this.keyboard = false; this.setHover(null); });
  }

  // data: { matrix (n×cols), n (rows), cols (default n), rowLabels, colLabels, scale, vmax, threshold }
  setData(data) {
    this.data = data;
    this.n = data.n;
    this.cols = data.cols ?? data.n;
    if (this.hover && (this.hover.i >= this.n || this.hover.j >= this.cols)) this.hover = null;
    this.draw();
  }

  setMarked(rows) {
    this.marked = rows;
    this.requestOverlay();
  }

  layout() {
    const { n, rowLabels } = this.data, cols = this.cols;
    const width = this.root.parentElement ? this.root.parentElement.clientWidth : 300;
    const maxSize = this.options.maxSize ?? 720;
    const probe = Math.min(maxSize, width) / Math.max(n, cols);
    const labels = this.options.labels && rowLabels && probe >= LABEL_MIN_CELL;
    let labelW = 0, labelH = 0;
    if (labels) {
      const ctx = this.base.getContext('2d');
      ctx.font = this.font(Math.min(MAX_CELL, probe));
      const widest = (list) => Math.min(LABEL_MAX, Math.ceil(Math.max(0, ...list.map((s) => ctx.measureText(s).width))) + 6);
      labelW = widest(rowLabels);
      labelH = this.data.colLabels ? widest(this.data.colLabels) : labelW;   // the column labels stand rotated above
    }
    const cell = Math.min(MAX_CELL, Math.max(0.5, (Math.min(maxSize, width) - labelW) / Math.max(n, cols, 1)));
    // grid: the square's side; gridW × gridH when rows and columns differ.
    const gridW = Math.floor(Math.max(cols, 1) * cell), gridH = Math.floor(Math.max(n, 1) * cell);
    return { labels, labelW, labelH, grid: gridW, gridW, gridH, cell };
  }

  font(cell) {
    return `${Math.max(9, Math.min(13, Math.floor(cell) - 1))}px system-ui, sans-serif`;
  }

  draw() {
    const { matrix, n, rowLabels, colLabels, scale = sequential, vmax, threshold = 0 } = this.data;
    const L = (this.geo = this.layout());
    const dpr = window.devicePixelRatio || 1;
    const cols = this.cols;
    const cssW = L.labelW + L.gridW, cssH = L.labelH + L.gridH;
    for (const c of [this.base, this.overlay]) {
      c.width = Math.round(cssW * dpr);
      c.height = Math.round(cssH * dpr);
      c.style.width = cssW + 'px';
      c.style.height = cssH + 'px';
    }
    this.root.style.width = cssW + 'px';
    this.root.style.height = cssH + 'px';
    const ctx = this.base.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = '#fff';   // opaque, so a saved PNG reads on any background
    ctx.fillRect(0, 0, cssW, cssH);
    // Cells: one pixel per cell, scaled. Upscaling stays crisp; downscaling smooths.
    const img = new ImageData(Math.max(1, cols), Math.max(1, n));
    const px = new Uint32Array(img.data.buffer);
    for (let x = 0; x < n * cols; x++) px[x] = packedColour(scale, matrix[x], vmax, threshold);
    const tile = document.createElement('canvas');
    tile.width = img.width;
    tile.height = img.height;
    tile.getContext('2d').putImageData(img, 0, 0);
    ctx.imageSmoothingEnabled = Math.max(n, cols) > L.gridW;
    ctx.drawImage(tile, L.labelW, L.labelH, L.gridW, L.gridH);
    // A decoder's later keys are masked (−∞ before the softmax), not weighted 0: drawn hatched.
    if (this.data.causal) drawMaskTriangle(ctx, L.labelW, L.labelH, n, L.cell);
    this.overlay.dataset.causal = this.data.causal ? '1' : '';
    if (L.labels) {
      // Dark on the canvas's own white, whatever the page's text colour (a dark theme's light
      // text drew white on white).
      ctx.fillStyle = '#222';
      ctx.font = this.font(L.cell);
      ctx.textBaseline = 'middle';
      ctx.textAlign = 'right';
      for (let i = 0; i < n; i++) {
        ctx.fillText(clip(ctx, rowLabels[i], L.labelW - 4), L.labelW - 3, L.labelH + (i + 0.5) * L.cell);
      }
      ctx.save();
      ctx.rotate(-Math.PI / 2);
      ctx.textAlign = 'left';
      for (let j = 0; j < cols; j++) {
        // Rotated: x runs upward from the grid's top edge.
        ctx.fillText(clip(ctx, (colLabels || rowLabels)[j], L.labelH - 4), -L.labelH + 3, L.labelW + (j + 0.5) * L.cell);
      }
      ctx.restore();
    }
    // Geometry for tests and assistive tooling: where cell (i, j) is on screen.
    Object.assign(this.overlay.dataset, { n, cols, labelW: L.labelW, labelH: L.labelH, cell: L.cell });
    this.drawOverlay();
  }

  cellAt(e) {
    if (!this.geo || !this.n) return null;
    const r = this.overlay.getBoundingClientRect();
    const x = e.clientX - r.left - this.geo.labelW, y = e.clientY - r.top - this.geo.labelH;
    if (x < 0 || y < 0 || x >= this.geo.gridW || y >= this.geo.gridH) return null;
    return { i: Math.floor(y / this.geo.cell), j: Math.floor(x / this.geo.cell) };
  }

  pointAt(e) {
    this.keyboard = false;
    this.setHover(this.cellAt(e), e);
  }

  setHover(cell, event) {
    const same = cell && this.hover && cell.i === this.hover.i && cell.j === this.hover.j;
    this.hover = cell;
    if (!same) this.requestOverlay();
    this.updateTip(event);
  }

  updateTip(event) {
    const cell = this.hover;
    if (!cell || !this.options.tooltip) { this.tip.hidden = true; return; }
    const v = this.data.matrix[cell.i * this.cols + cell.j];
    this.tip.textContent = this.options.tooltip(cell.i, cell.j, v);
    this.tip.dataset.row = cell.i;
    this.tip.dataset.col = cell.j;
    this.tip.hidden = false;
    const g = this.geo;
    // Anchor beside the cell (keyboard) or the pointer, kept inside the heatmap's box.
    let x = g.labelW + (cell.j + 1) * g.cell + 8, y = g.labelH + cell.i * g.cell - 4;
    if (event) {
      const r = this.overlay.getBoundingClientRect();
      x = event.clientX - r.left + 14;
      y = event.clientY - r.top + 14;
    }
    const w = this.tip.offsetWidth, maxX = g.labelW + g.gridW - w;
    this.tip.style.left = Math.max(0, Math.min(x, maxX)) + 'px';
    this.tip.style.top = Math.max(0, Math.min(y, g.labelH + g.gridH - 10)) + 'px';
  }

  requestOverlay() {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => { this.pending = false; this.drawOverlay(); });
  }

  // Row band + column band + the cell, plus marks for selected rows: a few rectangles per frame.
  drawOverlay() {
    if (!this.geo) return;
    const started = performance.now();
    const g = this.geo, dpr = window.devicePixelRatio || 1;
    const ctx = this.overlay.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, g.labelW + g.gridW, g.labelH + g.gridH);
    ctx.fillStyle = '#d95f02';
    for (const i of this.marked) {
      if (i < this.n) ctx.fillRect(g.labelW - 3, g.labelH + i * g.cell, 3, Math.max(1, g.cell));
    }
    const cell = this.hover;
    if (cell) this.drawHover(ctx, g, cell);
    this.options.drawExtra?.(ctx, g);   // marks of the view's own (the cross view's known alignment)
    // Measured so the tests can hold hover redraws to a frame budget at 512 tokens.
    this.overlay.dataset.drawMs = (performance.now() - started).toFixed(3);
  }

  drawHover(ctx, g, cell) {
    ctx.fillStyle = 'rgba(255, 170, 0, 0.18)';
    ctx.fillRect(0, g.labelH + cell.i * g.cell, g.labelW + g.gridW, Math.max(1, g.cell));
    ctx.fillRect(g.labelW + cell.j * g.cell, 0, Math.max(1, g.cell), g.labelH + g.gridH);
    ctx.strokeStyle = '#111';
    ctx.lineWidth = 1.5;
    const s = Math.max(2, g.cell);
    ctx.strokeRect(g.labelW + cell.j * g.cell, g.labelH + cell.i * g.cell, s, s);
  }

  onKey(e) {
    if (!this.n) return;
    const c = this.hover ? { ...this.hover } : { i: 0, j: 0 };
    const step = e.shiftKey ? 10 : 1;
    switch (e.key) {
      case 'ArrowUp': c.i = Math.max(0, c.i - step); break;
      case 'ArrowDown': c.i = Math.min(this.n - 1, c.i + step); break;
      case 'ArrowLeft': c.j = Math.max(0, c.j - step); break;
      case 'ArrowRight': c.j = Math.min(this.cols - 1, c.j + step); break;
      case 'Home': c.j = 0; break;
      case 'End': c.j = this.cols - 1; break;
      case 'Enter': case ' ':
        if (this.options.onSelect) this.options.onSelect(c.i, c.j);
        e.preventDefault();
        return;
      default: return;
    }
    e.preventDefault();
    this.keyboard = true;
    this.setHover(c);
    if (this.options.tooltip && !this.tip.hidden) this.say(this.tip.textContent);
  }

  destroy() {
    this.root.remove();
  }
}

// Shortens a label to fit `width` px with an ellipsis.
function clip(ctx, text, width) {
  if (ctx.measureText(text).width <= width) return text;
  let s = text;
  while (s.length > 1 && ctx.measureText(s + '…').width > width) s = s.slice(0, -1);
  return s + '…';
}
