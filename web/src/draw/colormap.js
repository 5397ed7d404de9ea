// Colour scales for the heatmaps as 256-entry lookup tables of packed RGBA (Uint32, the byte order
// of ImageData on little-endian machines, which is every browser target), so drawing a cell is
// one table read. Sequential: white → deep blue (monotone lightness, readable in print and by
// colour-blind readers). Diverging (diffs): red (less) ← white → blue (more).

const SEQUENTIAL = ['#ffffff', '#deebf7', '#9ecae1', '#4292c6', '#08519c', '#08306b'];
const DIVERGING = ['#b2182b', '#ef8a62', '#fddbc7', '#f7f7f7', '#d1e5f0', '#67a9cf', '#2166ac'];
export const NAN_COLOUR = '#d9d9d9';

function parseHex(hex) {
  const n = parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

function buildLut(anchors) {
  const stops = anchors.map(parseHex);
  const lut = new Uint32Array(256);
  const rgb = [];
  for (let i = 0; i < 256; i++) {
    const t = (i / 255) * (stops.length - 1);
    const k = Math.min(stops.length - 2, Math.floor(t));
    const f = t - k;
    const c = [0, 1, 2].map((ch) => Math.round(stops[k][ch] + (stops[k + 1][ch] - stops[k][ch]) * f));
    rgb.push(c);
    lut[i] = (255 << 24) | (c[2] << 16) | (c[1] << 8) | c[0];
  }
  return { lut, rgb };
}

export const sequential = buildLut(SEQUENTIAL);
export const diverging = buildLut(DIVERGING);
const nanPacked = (() => {
  const [r, g, b] = parseHex(NAN_COLOUR);
  return (255 << 24) | (b << 16) | (g << 8) | r;
})();

// Packed colour for value v on [0, vmax] (sequential) or [−vmax, vmax] (diverging). Values
// below `threshold` (sequential only) draw as 0 so weak links fade out.
export function packedColour(scale, v, vmax, threshold = 0) {
  if (Number.isNaN(v)) return nanPacked;
  if (scale === diverging) {
    const t = vmax > 0 ? (v / vmax + 1) / 2 : 0.5;
    return scale.lut[Math.max(0, Math.min(255, Math.round(t * 255)))];
  }
  if (v < threshold || vmax <= 0) return scale.lut[0];
  return scale.lut[Math.max(0, Math.min(255, Math.round((v / vmax) * 255)))];
}

export function cssColour(scale, t) {
  const [r, g, b] = scale.rgb[Math.max(0, Math.min(255, Math.round(t * 255)))];
  return `rgb(${r},${g},${b})`;
}

// Distinct, colour-blind-friendlier hues for heads in the head (lines) view (Okabe–Ito first,
// then Tableau-like fill-ins for models with up to 16 heads; beyond that they repeat).
export const HEAD_COLOURS = ['#0072b2', '#e69f00', '#009e73', '#cc79a7', '#d55e00', '#56b4e9',
  '#8c6d31', '#6a3d9a', '#f0c000', '#1b9e77', '#e7298a', '#666666', '#a6761d', '#7570b3',
  '#b15928', '#17becf'];
