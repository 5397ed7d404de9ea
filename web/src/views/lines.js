// Head view (after BertViz): query tokens on the left, key tokens on the right, a line per
// (query, key) whose opacity is the weight, one colour per head; heads toggle on and off. Hover
// (or arrow keys) on a token focuses its lines. The unfocused picture is cached as a bitmap so a
// hover redraw only paints the focused token's lines (T·H strokes).
import { squareOrCross } from './family-switch.js';
import { createCrossView } from './cross.js';
import { HEAD_COLOURS } from '../draw/colormap.js';
import { layerHeadPickers } from '../draw/pickers.js';
import { isCausal } from '../model/causal-mask.js';
import { captionWithHowTo } from '../draw/how-to.js';

const LABEL_W = 92, MIN_ROW_FOR_LABELS = 10;
// Long inputs, nothing focused: each query's strongest links only (a 512-token layer would be
// 3 M lines, unreadable and seconds of rasterising).
const topPerRow = (n) => (n > 256 ? 1 : n > 64 ? 3 : 0);
const ALPHA_STEPS = 16;

export function createHeadLines(host, app) {
  const top = document.createElement('div');
  top.className = 'view-bar';
  const toggles = document.createElement('div');
  toggles.className = 'head-toggles';
  toggles.setAttribute('role', 'group');
  const hint = document.createElement('p');
  hint.className = 'hint';
  const canvas = document.createElement('canvas');
  canvas.className = 'lines';
  canvas.tabIndex = 0;
  canvas.setAttribute('role', 'img');
  host.append(top, toggles, hint, canvas);
  let hidden = new Set(), focus = null, geo = null, cache = null, pending = false, generation = 0;
  const drawn = { links: 0, forward: 0 };   // lines of the unfocused picture; forward: key after query

  function render() {
    const { t, result, state } = app;
    const H = result.shape[1];
    top.replaceChildren(layerHeadPickers(app, { head: false }));
    // A decoder's lines only ever go back to earlier tokens (later keys are masked, weight 0).
    captionWithHowTo(hint, isCausal(app) ? `${t('linesHint')} ${t('linesHintCausal')}` : t('linesHint'), t('linesHowTo'));
    toggles.setAttribute('aria-label', t('headsToggle'));
    toggles.replaceChildren();
    for (let h = 0; h < H; h++) {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'head-toggle';
      b.style.setProperty('--swatch', HEAD_COLOURS[h % HEAD_COLOURS.length]);
      b.textContent = `${t('headShort')}${h}`;
      b.setAttribute('aria-pressed', String(!hidden.has(h)));
      b.addEventListener('click', () => {
        if (hidden.has(h)) hidden.delete(h); else hidden.add(h);
        render();
      });
      toggles.append(b);
    }
    const { positions, labels } = app.display();
    const n = positions.length;
    const rowH = n <= 40 ? 20 : Math.max(1.5, Math.min(20, 800 / n));
    const width = Math.min(host.clientWidth || 600, 640);
    geo = { n, rowH, width, height: n * rowH + 8, labels: rowH >= MIN_ROW_FOR_LABELS };
    geo.labelW = geo.labels ? Math.min(LABEL_W, width * 0.3) : 12;
    const dpr = window.devicePixelRatio || 1;
    canvas.width = width * dpr;
    canvas.height = geo.height * dpr;
    canvas.style.width = width + 'px';
    canvas.style.height = geo.height + 'px';
    canvas.setAttribute('aria-label', t('linesAria', { layer: state.layer }));
    geo.matrices = [];
    for (let h = 0; h < H; h++) geo.matrices.push(hidden.has(h) ? null : app.displayMatrix(state.layer, h));
    geo.labelsText = labels;
    geo.positions = positions;
    cache = null;
    paint();
  }

  const y = (a) => 4 + (a + 0.5) * geo.rowH;

  // Lines of the given query rows (or key columns). Opacity is the weight, quantised to
  // ALPHA_STEPS levels so each head's lines go out in ≤ ALPHA_STEPS strokes instead of one each.
  function drawLinks(ctx, rowsOrCols, byColumn, limit) {
    const { n, matrices, labelW, width } = geo;
    const x0 = labelW + 4, x1 = width - labelW - 4;
    const th = Math.max(app.state.threshold, 0.005);
    ctx.lineWidth = Math.max(1, Math.min(2, geo.rowH / 8));
    const topB = new Int32Array(limit || 1), topV = new Float32Array(limit || 1);
    matrices.forEach((m, h) => {
      if (!m) return;
      const paths = Array.from({ length: ALPHA_STEPS }, () => null);
      const add = (a, b, v) => {
        const k = Math.min(ALPHA_STEPS - 1, Math.floor(v * ALPHA_STEPS));
        const p = (paths[k] ??= new Path2D());
        // Counted for the tests: a decoder's lines must never reach a later token.
        drawn.links++;
        if (byColumn ? a > b : b > a) drawn.forward++;
        if (byColumn) { p.moveTo(x0, y(b)); p.lineTo(x1, y(a)); } else { p.moveTo(x0, y(a)); p.lineTo(x1, y(b)); }
      };
      for (const a of rowsOrCols) {
        if (!limit) {
          for (let b = 0; b < n; b++) {
            const v = byColumn ? m[b * n + a] : m[a * n + b];
            if (v >= th) add(a, b, v);
          }
          continue;
        }
        // The `limit` strongest links of this row: insertion into a tiny sorted buffer.
        let count = 0;
        for (let b = 0; b < n; b++) {
          const v = m[a * n + b];
          if (v < th || (count === limit && v <= topV[limit - 1])) continue;
          let at = count < limit ? count++ : limit - 1;
          while (at > 0 && topV[at - 1] < v) { topV[at] = topV[at - 1]; topB[at] = topB[at - 1]; at--; }
          topV[at] = v;
          topB[at] = b;
        }
        for (let k = 0; k < count; k++) add(a, topB[k], topV[k]);
      }
      ctx.strokeStyle = HEAD_COLOURS[h % HEAD_COLOURS.length];
      paths.forEach((p, k) => {
        if (!p) return;
        ctx.globalAlpha = (k + 0.5) / ALPHA_STEPS;
        ctx.stroke(p);
      });
    });
    ctx.globalAlpha = 1;
  }

  function drawLabels(ctx) {
    if (!geo.labels) return;
    const { n, labelW, width, labelsText } = geo;
    ctx.font = '12px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    const colour = getComputedStyle(host).color;
    // Selected tokens (a click or tap, as in the head view) get a pale mark behind their labels.
    const selected = new Set(app.state.selected.map((p) => geo.positions.indexOf(app.resultPosition(p))));
    ctx.fillStyle = 'rgba(217, 95, 2, 0.16)';
    for (const a of selected) {
      if (a < 0) continue;
      ctx.fillRect(0, y(a) - geo.rowH / 2, labelW + 2, geo.rowH);
      ctx.fillRect(width - labelW - 2, y(a) - geo.rowH / 2, labelW + 2, geo.rowH);
    }
    for (let a = 0; a < n; a++) {
      const on = focus && focus.a === a;
      ctx.fillStyle = on ? '#d95f02' : colour;
      ctx.textAlign = 'right';
      ctx.fillText(labelsText[a], labelW, y(a), labelW - 4);
      ctx.textAlign = 'left';
      ctx.fillText(labelsText[a], width - labelW, y(a), labelW - 4);
    }
  }

  function paint() {
    pending = false;
    if (!geo) return;
    const dpr = window.devicePixelRatio || 1, ctx = canvas.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, geo.width, geo.height);
    if (!focus) {
      // Unfocused lines are drawn into an offscreen canvas, one head per task (long inputs
      // would otherwise block the page while rasterising), and copied on each paint.
      if (!cache) buildCache(dpr);
      ctx.setTransform(1, 0, 0, 1, 0, 0);
      ctx.drawImage(cache, 0, 0);
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    } else {
      drawLinks(ctx, [focus.a], focus.side === 'right', 0);
      // Marker on the focused token's side.
      ctx.fillStyle = '#d95f02';
      ctx.fillRect(focus.side === 'right' ? geo.width - geo.labelW - 4 : geo.labelW + 1, y(focus.a) - geo.rowH / 2, 3, Math.max(2, geo.rowH));
    }
    drawLabels(ctx);
  }

  function buildCache(dpr) {
    cache = document.createElement('canvas');
    cache.width = canvas.width;
    cache.height = canvas.height;
    const c = cache.getContext('2d');
    c.setTransform(dpr, 0, 0, dpr, 0, 0);
    const all = Array.from({ length: geo.n }, (_, a) => a);
    const heads = geo.matrices.map((m, h) => (m ? h : -1)).filter((h) => h >= 0);
    const mine = ++generation, full = geo.matrices;
    canvas.dataset.drawn = 0;
    drawn.links = drawn.forward = 0;
    const step = (k) => {
      if (mine !== generation || k >= heads.length) return;
      geo.matrices = full.map((m, h) => (h === heads[k] ? m : null));
      drawLinks(c, all, false, topPerRow(geo.n));
      geo.matrices = full;
      canvas.dataset.drawn = k + 1;
      canvas.dataset.links = drawn.links;
      canvas.dataset.forwardLinks = drawn.forward;
      if (!focus) request();
      setTimeout(() => step(k + 1), 0);
    };
    step(0);
  }

  function request() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(paint);
  }

  function setFocus(f) {
    if ((f && focus && f.a === focus.a && f.side === focus.side) || (!f && !focus)) return;
    focus = f;
    canvas.dataset.focus = f ? `${f.side}:${f.a}` : '';
    request();
  }

  // The token label under a pointer: { a, side } or null (between the columns, off the rows).
  function tokenAt(e) {
    const r = canvas.getBoundingClientRect();
    const x = e.clientX - r.left, a = Math.floor((e.clientY - r.top - 4) / geo.rowH);
    if (a < 0 || a >= geo.n) return null;
    if (x < geo.labelW + 8) return { a, side: 'left' };
    if (x > geo.width - geo.labelW - 8) return { a, side: 'right' };
    return null;
  }
  canvas.addEventListener('pointermove', (e) => {
    if (geo && e.pointerType !== 'touch') setFocus(tokenAt(e));
  });
  // A click or a tap on a token selects it (as in the head view) and follows its lines; a touch
  // has no hover, so the focus stays until the next tap.
  canvas.addEventListener('click', (e) => {
    const f = geo && tokenAt(e);
    if (!f) return setFocus(null);
    setFocus(f);
    app.toggleSelected(app.originalPosition(geo.positions[f.a]));
  });
  canvas.addEventListener('pointerleave', (e) => { if (e.pointerType !== 'touch') setFocus(null); });
  canvas.addEventListener('blur', () => setFocus(null));
  canvas.addEventListener('keydown', (e) => {
    if (!geo) return;
    const f = focus ? { ...focus } : { a: 0, side: 'left' };
    if (e.key === 'ArrowDown') f.a = Math.min(geo.n - 1, f.a + (focus ? 1 : 0));
    else if (e.key === 'ArrowUp') f.a = Math.max(0, f.a - 1);
    else if (e.key === 'ArrowLeft') f.side = 'left';
    else if (e.key === 'ArrowRight') f.side = 'right';
    else if (e.key === 'Escape') return setFocus(null);
    else return;
    e.preventDefault();
    setFocus(f);
  });

  return { render };
}

/** The Lines tab: an encoder–decoder's cross-attention in the cross view. */
export default squareOrCross(createHeadLines, createCrossView);
