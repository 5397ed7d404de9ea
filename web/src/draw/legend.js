// The colour-scale legend drawn under a heatmap: a gradient bar with its end values and a caption,
// so a figure says what its colours mean (and diff legends show the signed range).
import { cssColour, diverging } from './colormap.js';

export function renderLegend(host, { scale, vmax, caption }) {
  host.replaceChildren();
  host.classList.add('legend');
  const bar = document.createElement('canvas');
  const w = 160, h = 10, dpr = window.devicePixelRatio || 1;
  bar.width = w * dpr;
  bar.height = h * dpr;
  bar.style.width = w + 'px';
  bar.style.height = h + 'px';
  bar.setAttribute('aria-hidden', 'true');
  const ctx = bar.getContext('2d');
  ctx.scale(dpr, dpr);
  for (let x = 0; x < w; x++) {
    ctx.fillStyle = cssColour(scale, x / (w - 1));
    ctx.fillRect(x, 0, 1, h);
  }
  ctx.strokeStyle = '#999';
  ctx.strokeRect(0.5, 0.5, w - 1, h - 1);
  const lo = document.createElement('span');
  lo.textContent = scale === diverging ? '−' + fmt(vmax) : '0';
  const hi = document.createElement('span');
  hi.textContent = (scale === diverging ? '+' : '') + fmt(vmax);
  const cap = document.createElement('span');
  cap.className = 'legend-caption';
  cap.textContent = caption;
  host.append(lo, bar, hi, cap);
}

// Up to 4 decimals without trailing zeros (1, not 1.0000; 0.8471 stays).
export function fmt(v) {
  if (!Number.isFinite(v)) return '–';
  if (v !== 0 && Math.abs(v) < 1e-3) return v.toExponential(2);
  return String(Number(v.toFixed(Math.abs(v) >= 100 ? 1 : 4)));
}
