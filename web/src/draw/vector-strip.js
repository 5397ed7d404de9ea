// One vector drawn as a row of coloured cells (the diverging scale: red negative, blue positive, scaled to the vector's
// own largest magnitude), with its L2 norm beside it so a reader sees how much a step changed the
// token, and the exact value of the cell under the pointer (hover or tap) in a readout line.
// `groups` splits the strip into equal coloured slices (the heads' shares of C).
import { diverging, cssColour, HEAD_COLOURS } from './colormap.js';

const STRIP_WIDTH = 320;   // CSS px; the canvas scales down on a phone (max-width: 100%)

export function l2(values) {
  let s = 0;
  for (const v of values) s += v * v;
  return Math.sqrt(s);
}

/** A head's colour: the Lines view's (one colour per head wherever heads are told apart). */
export function headHue(h) {
  return HEAD_COLOURS[h % HEAD_COLOURS.length];
}

/**
 * @param {ArrayLike<number>} values
 * @param {{label: string, groups?: number, norm?: boolean, t: Function}} options
 * @returns {HTMLElement} a .vector-row with data-norm (the L2 norm) for the tests
 */
export function vectorStrip(values, { label, groups = 0, norm = true, t }) {
  const row = document.createElement('div');
  row.className = 'vector-row';
  const name = document.createElement('span');
  name.className = 'vector-name';
  name.textContent = label;
  const n = values.length;
  const canvas = document.createElement('canvas');
  const height = groups ? 18 : 14;
  const dpr = window.devicePixelRatio || 1;
  canvas.width = Math.round(STRIP_WIDTH * dpr);
  canvas.height = Math.round(height * dpr);
  canvas.style.width = STRIP_WIDTH + 'px';
  canvas.style.height = height + 'px';
  const ctx = canvas.getContext('2d');
  ctx.scale(dpr, dpr);
  let m = 0;
  for (const v of values) m = Math.max(m, Math.abs(v));
  const w = STRIP_WIDTH / n;
  for (let i = 0; i < n; i++) {
    ctx.fillStyle = cssColour(diverging, m ? (values[i] / m + 1) / 2 : 0.5);
    ctx.fillRect(i * w, 0, Math.max(w, 0.6), 14);
  }
  // Head slices: a coloured band under the strip, one colour per head.
  if (groups) {
    const per = n / groups;
    for (let g = 0; g < groups; g++) {
      ctx.fillStyle = headHue(g);
      ctx.fillRect(g * per * w, 14, per * w, 4);
    }
  }
  const readout = document.createElement('code');
  readout.className = 'vector-readout';
  const norms = norm ? t('blockNorm', { norm: l2(values).toFixed(3), n }) : t('blockDims', { n });
  readout.textContent = norms;
  const show = (e) => {
    const x = e.offsetX ?? 0;
    const i = Math.min(n - 1, Math.max(0, Math.floor((x / canvas.clientWidth) * n)));
    const head = groups ? ' · ' + t('blockHeadOf', { head: Math.floor(i / (n / groups)) }) : '';
    readout.textContent = `[${i}] = ${Number(values[i]).toPrecision(6)}${head}`;
  };
  canvas.addEventListener('pointermove', show);
  canvas.addEventListener('pointerdown', show);
  canvas.addEventListener('pointerleave', () => { readout.textContent = norms; });
  canvas.title = label;
  row.dataset.norm = String(l2(values));
  row.append(name, canvas, readout);
  return row;
}
