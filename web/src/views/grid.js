// The model view: every layer × head as a small heatmap on one canvas (layers down, heads
// across), all on one fixed √weight scale (see thumbnail()). Thumbnails are built a few per task
// so a 512-token, 12×12 model never blocks the page; click or Enter opens a head.
import { squareOrCross } from './family-switch.js';
import { createCrossGrid } from './cross-grid.js';
import { packedColour, sequential } from '../draw/colormap.js';
import { renderLegend } from '../draw/legend.js';
import { isCausal, maskPixel } from '../model/causal-mask.js';
import { createAblationToggle, drawHeadsOff, toggleHead } from '../panels/ablation.js';
import { drawKvBands, KV_BAND } from '../draw/kv-bands.js';
import { kvGroupOf, kvGroups } from '../model/model-family.js';
import { createAnnouncer } from '../draw/announcer.js';
import { captionWithHowTo } from '../draw/how-to.js';
import { VIEW } from './registry.js';
import { CACHED_MAPS } from '../../../js/api/result.js';
import { errorReason } from '../i18n/error-text.js';

const GAP = 6, LABEL = 26;

export function createModelGrid(host, app) {
  const wrap = document.createElement('div');
  wrap.className = 'grid-wrap';
  const note = document.createElement('p');
  note.className = 'hint';
  const canvas = document.createElement('canvas');
  canvas.className = 'model-grid';
  canvas.tabIndex = 0;
  canvas.setAttribute('role', 'grid');
  const tip = document.createElement('div');
  tip.className = 'tooltip';
  tip.hidden = true;
  wrap.append(canvas, tip);
  const say = createAnnouncer(wrap);   // arrow-key moves, said to screen readers
  const legend = document.createElement('div');
  const ablate = createAblationToggle(app);   // a click switches a head off instead of opening it
  ablate.element.dataset.noExport = '';       // a control, not part of an exported figure
  host.append(note, wrap, ablate.element, legend);   // the canvas stays first in the tab order
  let geo = null, generation = 0, focus = null, thumbs = null;
  // For the test hook: each head's last row as drawn (a decoder's last query sees every key).
  const exposed = { lastRows: [] };

  function render() {
    const { t, state, result } = app;
    const [L, H] = result.shape;
    const causal = isCausal(app);
    ablate.render();
    captionWithHowTo(note, causal ? `${t('gridHint')} ${t('gridHintCausal')}` : t('gridHint'), t('gridHowTo'));
    renderLegend(legend, { scale: sequential, vmax: 1, caption: causal ? `${t('legendSqrt')} · ${t('legendMasked')}` : t('legendSqrt') });
    canvas.setAttribute('aria-label', t('gridAria', { layers: L, heads: H }));
    const s = thumbSize(L, H);
    // Grouped-query attention: a band above the head labels brackets the heads sharing K/V.
    const top = LABEL + (kvGroups(app.info?.config).length ? KV_BAND : 0);
    geo = { L, H, s, top, w: LABEL + H * (s + GAP), h: top + L * (s + GAP) };
    const dpr = window.devicePixelRatio || 1;
    canvas.width = geo.w * dpr;
    canvas.height = geo.h * dpr;
    canvas.style.width = geo.w + 'px';
    canvas.style.height = geo.h + 'px';
    canvas.dataset.layers = L;
    canvas.dataset.heads = H;
    canvas.dataset.rendered = 0;
    const ctx = canvas.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = getComputedStyle(host).color;
    ctx.font = '11px system-ui, sans-serif';
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    for (let h = 0; h < H; h++) ctx.fillText(`${t('headShort')}${h}`, LABEL + h * (s + GAP) + s / 2, top - LABEL / 2);
    for (let l = 0; l < L; l++) ctx.fillText(`${t('layerShort')}${l}`, LABEL / 2, top + l * (s + GAP) + s / 2);
    canvas.dataset.kvGroups = drawKvBands(ctx, app.info?.config, { x: (h) => LABEL + h * (s + GAP), s, y: 2,
      label: (g) => t('kvBand', { kv: g.kv }) }).length;
    thumbs = new Array(L * H);
    exposed.lastRows = new Array(L * H);
    const mine = ++generation;
    const { positions } = app.display();
    canvas.dataset.causal = causal ? '1' : '';
    // A few heads per macrotask (≈ 3·T² reads each), so a 512-token, 12×12 model never blocks. A
    // run whose maps stay in the worker: as many heads as the result keeps at hand, fetched in one
    // job, each drawn and then let go (a 22 × 32 grid never holds its 704 maps).
    const inWorker = result.mapsInWorker;
    const PER_TASK = inWorker ? CACHED_MAPS : positions.length > 256 ? 3 : positions.length > 64 ? 12 : L * H;
    const drawFrom = async (k0) => {
      if (mine !== generation) return;
      const k1 = Math.min(L * H, k0 + PER_TASK);
      if (inWorker) {
        const heads = Array.from({ length: k1 - k0 }, (_, i) => [Math.floor((k0 + i) / H), (k0 + i) % H]);
        try {
          await result.attentionsOf(heads);
        } catch (e) {
          // Released: a newer run is on its way. Anything else the reader is told under the grid.
          if (e?.code !== 'E_DISPOSED' && e?.code !== 'E_ABORTED' && mine === generation) {
            note.textContent = app.t('runFailed', { reason: errorReason(app.t, e) });
          }
          return;
        }
        if (mine !== generation) return;
      }
      for (let k = k0; k < k1; k++) {
        const l = Math.floor(k / H), h = k % H;
        const m = app.displayMatrix(l, h), n = positions.length;
        exposed.lastRows[k] = m.slice((n - 1) * n, n * n);
        const img = thumbnail(m, n, s, state.threshold, causal);
        thumbs[k] = img;
        ctx.putImageData(img, (LABEL + h * (s + GAP)) * dpr, (top + l * (s + GAP)) * dpr);
      }
      canvas.dataset.rendered = k1;
      if (k1 < L * H) setTimeout(() => drawFrom(k1), 0);
      else {
        drawHeadsOff(ctx, app.state.headsOff, (l, h) => [LABEL + h * (s + GAP), top + l * (s + GAP), s]);
        drawFocus();
      }
    };
    drawFrom(0);
  }

  // Thumbnail side in CSS px: as wide as the panel allows, but short enough that every layer fits
  // on the screen below the grid's top (a deep, narrow model such as the 8 × 4 bundled decoder
  // would otherwise run off the first screen); never below 40 px for height's sake (the pattern
  // must stay readable; a 12-layer model then scrolls a little), never below 18 px at all. Where
  // the grid starts low (phones: below the text panel), it fits one screen once scrolled to.
  function thumbSize(L, H) {
    const width = host.clientWidth || 600;
    const byWidth = Math.floor((width - LABEL) / H) - GAP;
    const screen = window.innerHeight || 800;
    const top = wrap.getBoundingClientRect().top + window.scrollY;
    const below = screen - top - 12;
    const room = below >= 0.5 * screen ? below : 0.85 * screen;
    const byHeight = Math.max(40, Math.floor((room - LABEL) / L) - GAP);
    return Math.max(18, Math.min(84, byWidth, byHeight));
  }

  // s×s thumbnail (device pixels = s·dpr) of an n×n matrix: max-pooled when shrinking (a sharp
  // diagonal must not vanish), nearest cell when enlarging. One fixed scale for all heads, on
  // √weight: a diffuse head stays pale (per-head scaling made uniform attention look strong),
  // and weights of 1/512 remain visible at 512 tokens.
  // A decoder's masked cells (later keys) are hatched grey, not white: see causal-mask.js.
  function thumbnail(m, n, s, threshold, causal) {
    const dpr = window.devicePixelRatio || 1, size = Math.round(s * dpr);
    const colour = (v) => packedColour(sequential, v < threshold ? 0 : Math.sqrt(v), 1);
    const img = new ImageData(size, size);
    const px = new Uint32Array(img.data.buffer);
    if (n <= size) {
      for (let y = 0; y < size; y++) {
        const i = Math.floor((y * n) / size);
        for (let x = 0; x < size; x++) {
          const j = Math.floor((x * n) / size);
          px[y * size + x] = causal && j > i ? maskPixel(x, y) : colour(m[i * n + j]);
        }
      }
    } else {
      const pooled = new Float32Array(size * size);
      for (let i = 0; i < n; i++) {
        const y = Math.floor((i * size) / n), row = i * n;
        for (let j = 0; j < n; j++) {
          const x = Math.floor((j * size) / n), v = m[row + j];
          if (v > pooled[y * size + x]) pooled[y * size + x] = v;
        }
      }
      // Pooled: a pixel strictly above the diagonal holds only later keys (x > y ⇒ every j > i).
      for (let x = 0; x < size * size; x++) {
        const py = Math.floor(x / size), pxl = x % size;
        px[x] = causal && pxl > py ? maskPixel(pxl, py) : colour(pooled[x]);
      }
    }
    return img;
  }

  function cellAt(e) {
    const r = canvas.getBoundingClientRect();
    const x = e.clientX - r.left - LABEL, y = e.clientY - r.top - geo?.top;
    if (!geo || x < 0 || y < 0) return null;
    const h = Math.floor(x / (geo.s + GAP)), l = Math.floor(y / (geo.s + GAP));
    if (h >= geo.H || l >= geo.L || x % (geo.s + GAP) > geo.s || y % (geo.s + GAP) > geo.s) return null;
    return { l, h };
  }

  // Focus ring on the overlay area: redraw only the gaps around the focused thumbnail.
  function drawFocus() {
    if (!geo) return;
    const dpr = window.devicePixelRatio || 1, ctx = canvas.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.lineWidth = 2;
    for (let l = 0; l < geo.L; l++) {
      for (let h = 0; h < geo.H; h++) {
        const on = focus && focus.l === l && focus.h === h;
        const current = app.state.layer === l && app.state.head === h;
        const x = LABEL + h * (geo.s + GAP), y = geo.top + l * (geo.s + GAP), s = geo.s;
        ctx.clearRect(x - 3, y - 3, s + 6, 3);
        ctx.clearRect(x - 3, y + s, s + 6, 3);
        ctx.clearRect(x - 3, y, 3, s);
        ctx.clearRect(x + s, y, 3, s);
        if (on || current) {
          ctx.strokeStyle = on ? '#d95f02' : '#777';
          ctx.strokeRect(x - 2, y - 2, s + 4, s + 4);
        }
      }
    }
    if (focus) {
      tip.textContent = headText(focus);
      tip.hidden = false;
      tip.style.left = Math.min(geo.w - 120, LABEL + (focus.h + 1) * (geo.s + GAP)) + 'px';
      tip.style.top = geo.top + focus.l * (geo.s + GAP) + 'px';
    } else tip.hidden = true;
  }

  function setFocus(f) {
    if (f && focus && f.l === focus.l && f.h === focus.h) return;
    focus = f;
    requestAnimationFrame(drawFocus);
  }

  const open = (f) => app.set({ layer: f.l, head: f.h, view: VIEW.head });
  canvas.addEventListener('pointermove', (e) => setFocus(cellAt(e)));
  canvas.addEventListener('pointerleave', () => setFocus(null));
  canvas.addEventListener('click', (e) => {
    const f = cellAt(e);
    if (f && ablate.on) toggleHead(app, f.l, f.h);
    else if (f) open(f);
  });
  canvas.addEventListener('focus', () => setFocus({ l: app.state.layer, h: app.state.head }));
  canvas.addEventListener('blur', () => setFocus(null));
  canvas.addEventListener('keydown', (e) => {
    if (!geo) return;
    const f = focus ? { ...focus } : { l: 0, h: 0 };
    if (e.key === 'ArrowUp') f.l = Math.max(0, f.l - 1);
    else if (e.key === 'ArrowDown') f.l = Math.min(geo.L - 1, f.l + 1);
    else if (e.key === 'ArrowLeft') f.h = Math.max(0, f.h - 1);
    else if (e.key === 'ArrowRight') f.h = Math.min(geo.H - 1, f.h + 1);
    else if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      if (ablate.on) { toggleHead(app, f.l, f.h); return; }
      open(f);
      // The keyboard user lands in the head just opened (drawn on the next frame), not on <body>.
      requestAnimationFrame(() => requestAnimationFrame(() => app.views.head?.panel.querySelector('.heatmap-overlay')?.focus()));
      return;
    }
    else return;
    e.preventDefault();
    setFocus(f);
    say(headText(f));
  });

  // "Layer 2, head 3" (and its key/value group): the tooltip's words, and what a move says.
  function headText(f) {
    const g = kvGroupOf(app.info?.config, f.h);
    return app.t('layerHead', { layer: f.l, head: f.h }) + (g ? ' · ' + app.t('kvBand', { kv: g.kv }) : '');
  }

  return { render, exposed, destroy() { generation++; } };
}

/** The All heads tab: an encoder–decoder's cross-attention in the cross grid. */
export default squareOrCross(createModelGrid, createCrossGrid);
