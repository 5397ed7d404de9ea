// A readable window onto a long input's head (at 512 tokens the full heatmap has
// half-pixel cells and no labels). When the full map is too small for labels, this shows a
// WINDOW×WINDOW block of it — rows and columns with their token labels, the same colours and
// vmax — around the last cell clicked (or the first selected query). Clicking a cell here
// selects its query, as in the full map.
import { Heatmap } from '../draw/heatmap.js';
import { sequential } from '../draw/colormap.js';
import { tokenName } from '../draw/pickers.js';

const WINDOW = 32;   // tokens per side: 32 rows of ≥ 12 px fit a phone

export function createHeadZoom(host, app) {
  const box = document.createElement('div');
  box.className = 'head-zoom';
  box.hidden = true;
  const title = document.createElement('h3');
  const mapHost = document.createElement('div');
  mapHost.className = 'map-host';
  box.append(title, mapHost);
  host.append(box);
  let shown = null;             // { matrix, n, labels, positions, vmax, threshold }
  let centre = null;            // { i, j } the window is centred on (null: the first selected row)
  let r0 = 0, c0 = 0, w = 0;
  // Made on first need: a short input's head view keeps one heatmap (and tests one to find).
  let heatmap = null;
  const makeHeatmap = () => new Heatmap(mapHost, {
    labels: true,
    maxSize: 520,
    tooltip: (i, j, v) => `${tokenName(shown.positions[r0 + i], shown.labels[r0 + i])} → ` +
      `${tokenName(shown.positions[c0 + j], shown.labels[c0 + j])}: ${v.toFixed(4)}`,
    onSelect: (i) => app.toggleSelected(app.originalPosition(shown.positions[r0 + i])),
  });

  const clampStart = (c, n) => Math.max(0, Math.min(n - w, c - Math.floor(w / 2)));

  /** Shows the window, or hides it when the full map has labels (`needed` false). */
  function update(data, needed, selectedRows) {
    box.hidden = !needed;
    shown = data;
    if (!needed) return;
    if (!heatmap) {
      heatmap = makeHeatmap();
      // Classes of its own: the head view's heatmap stays the one `.heatmap` in the panel.
      heatmap.root.className = 'heatmap-zoom';
      heatmap.overlay.className = 'heatmap-zoom-overlay';
    }
    const { matrix, n, labels, vmax, threshold } = data;
    w = Math.min(WINDOW, n);
    const at = centre && centre.i < n && centre.j < n ? centre
      : { i: selectedRows[0] ?? 0, j: selectedRows[0] ?? 0 };
    r0 = clampStart(at.i, n);
    c0 = clampStart(at.j, n);
    const sub = new Float32Array(w * w);
    for (let a = 0; a < w; a++) sub.set(matrix.subarray((r0 + a) * n + c0, (r0 + a) * n + c0 + w), a * w);
    title.textContent = app.t('zoomTitle', { r0: r0, r1: r0 + w - 1, c0: c0, c1: c0 + w - 1 });
    box.dataset.rows = `${r0}-${r0 + w - 1}`;
    box.dataset.cols = `${c0}-${c0 + w - 1}`;
    heatmap.overlay.setAttribute('aria-label', title.textContent);
    heatmap.setData({ matrix: sub, n: w, rowLabels: labels.slice(r0, r0 + w), colLabels: labels.slice(c0, c0 + w),
      scale: sequential, vmax, threshold });
    heatmap.setMarked(selectedRows.filter((a) => a >= r0 && a < r0 + w).map((a) => a - r0));
  }

  /** Centres the window on cell (i, j) of the full map (the caller redraws). */
  function moveTo(i, j) {
    centre = { i, j };
  }

  return { update, moveTo };
}
