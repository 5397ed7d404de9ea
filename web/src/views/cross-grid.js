// All heads of an encoder–decoder's cross-attention (decoder layers down, heads across): each a
// small target × source heatmap, on the model grid's fixed √weight scale; click or Enter opens
// that head in the cross view. (The model grid, grid.js, draws square T×T matrices.)
import { packedColour, sequential } from '../draw/colormap.js';
import { renderLegend } from '../draw/legend.js';
import { VIEW } from './registry.js';

const GAP = 12, LABEL = 26;   // wider gaps than the square grid's: rectangles of one layer must not run into the next

export function createCrossGrid(host, app) {
  const note = document.createElement('p');
  note.className = 'hint';
  const canvas = document.createElement('canvas');
  canvas.className = 'model-grid cross-grid';
  canvas.tabIndex = 0;
  canvas.setAttribute('role', 'grid');
  const legend = document.createElement('div');
  host.append(note, canvas, legend);
  let geo = null;

  function render() {
    const { t } = app;
    const r = app.original;
    const [L, H, T, S] = r.seq2seq.crossShape;
    note.textContent = t('crossGridHint');
    renderLegend(legend, { scale: sequential, vmax: 1, caption: t('legendSqrt') });
    canvas.setAttribute('aria-label', t('crossGridAria', { layers: L, heads: H }));
    // Thumbnails keep the matrix's aspect (target rows × source columns) within a w × w box.
    const w = Math.max(24, Math.min(120, Math.floor(((host.clientWidth || 600) - LABEL) / H) - GAP));
    const cell = w / Math.max(T, S);
    const tw = Math.max(4, Math.round(S * cell)), th = Math.max(4, Math.round(T * cell));
    geo = { L, H, tw, th, w: LABEL + H * (tw + GAP), h: LABEL + L * (th + GAP) };
    const dpr = window.devicePixelRatio || 1;
    canvas.width = geo.w * dpr;
    canvas.height = geo.h * dpr;
    canvas.style.width = geo.w + 'px';
    canvas.style.height = geo.h + 'px';
    Object.assign(canvas.dataset, { layers: L, heads: H, rows: T, cols: S });
    const ctx = canvas.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, geo.w, geo.h);
    ctx.fillStyle = getComputedStyle(host).color;
    ctx.font = '11px system-ui, sans-serif';
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    for (let h = 0; h < H; h++) ctx.fillText(`${t('headShort')}${h}`, LABEL + h * (tw + GAP) + tw / 2, LABEL / 2);
    for (let l = 0; l < L; l++) ctx.fillText(`${t('layerShort')}${l}`, LABEL / 2, LABEL + l * (th + GAP) + th / 2);
    const tile = document.createElement('canvas');
    tile.width = S;
    tile.height = T;
    const tctx = tile.getContext('2d');
    ctx.imageSmoothingEnabled = false;
    for (let l = 0; l < L; l++) {
      for (let h = 0; h < H; h++) {
        const m = r.cross(l, h), img = new ImageData(S, T), px = new Uint32Array(img.data.buffer);
        for (let x = 0; x < T * S; x++) px[x] = packedColour(sequential, m[x] < app.state.threshold ? 0 : Math.sqrt(m[x]), 1);
        tctx.putImageData(img, 0, 0);
        const x = LABEL + h * (tw + GAP), y = LABEL + l * (th + GAP);
        ctx.drawImage(tile, x, y, tw, th);
        if (l === app.state.layer && h === app.state.head) {
          ctx.strokeStyle = '#777';
          ctx.lineWidth = 2;
          ctx.strokeRect(x - 2, y - 2, tw + 4, th + 4);
        }
      }
    }
    canvas.dataset.rendered = String(L * H);
  }

  function cellAt(e) {
    if (!geo) return null;
    const rect = canvas.getBoundingClientRect();
    const x = e.clientX - rect.left - LABEL, y = e.clientY - rect.top - LABEL;
    const h = Math.floor(x / (geo.tw + GAP)), l = Math.floor(y / (geo.th + GAP));
    if (x < 0 || y < 0 || h >= geo.H || l >= geo.L || x % (geo.tw + GAP) > geo.tw || y % (geo.th + GAP) > geo.th) return null;
    return { l, h };
  }
  const open = (c) => app.set({ layer: c.l, head: c.h, view: VIEW.cross, kind: 'cross' });
  canvas.addEventListener('click', (e) => { const c = cellAt(e); if (c) open(c); });
  canvas.addEventListener('keydown', (e) => {
    if (e.key !== 'Enter' && e.key !== ' ') return;
    e.preventDefault();
    open({ l: app.state.layer, h: app.state.head });
  });

  return { render };
}
