// The causal mask of a decoder (GPT-2 family): query i may only attend to keys j ≤ i, because the
// model adds −∞ to the scores of later keys before the softmax. Their weight is exactly 0, but it
// is not a weight the model chose: the views draw those cells as hidden (grey, hatched), never as
// a pale "0". Every view asks this module which cells are masked, so the test hook reads the same
// answer the views draw.

/** True when the attention on screen is causal: a decoder's, or an encoder–decoder's decoder
 *  self-attention (state.kind 'dec', seq2seq-run.js). */
export function isCausal(app) {
  const info = app?.info;
  if (info?.kind === 'encoder-decoder') return app.state?.kind === 'dec';
  return info?.kind === 'decoder' || info?.config?.isDecoder === true;
}

/** The model has an output head to read layers with (decoders always; encoders with an MLM head).
 *  Here, beside isCausal, so the Patching view's chunk needs no run controller. */
export const hasHead = (app) => isCausal(app) || Boolean(app.info?.hasMlmHead);

/** A decoder-only model (next-token panel, Generate): not an encoder–decoder's decoder side. */
export function isDecoderOnly(app) {
  const info = app?.info;
  return info?.kind === 'decoder' || (info?.kind !== 'encoder-decoder' && info?.config?.isDecoder === true);
}

/** Cell (i, j) of a shown matrix is hidden by the causal mask (the key comes after the query).
 *  Shown matrices keep positions in order (hiding or dropping tokens never reorders them), so
 *  j > i in the shown matrix is a later key in the run too. */
export function isMaskedCell(causal, i, j) {
  return causal && j > i;
}

export const MASK_FILL = '#eceef2';
export const MASK_HATCH = '#aab1bd';
// The same two greys packed as ImageData pixels (little-endian RGBA), for the thumbnails.
export const MASK_FILL_PACKED = packed(MASK_FILL);
export const MASK_HATCH_PACKED = packed(MASK_HATCH);

function packed(hex) {
  const n = parseInt(hex.slice(1), 16);
  return ((255 << 24) | ((n & 255) << 16) | (((n >> 8) & 255) << 8) | ((n >> 16) & 255)) >>> 0;
}

/** Pixel colour of a masked thumbnail pixel at (x, y): diagonal stripes every 4 px. */
export function maskPixel(x, y) {
  return (x + y) % 4 === 0 ? MASK_HATCH_PACKED : MASK_FILL_PACKED;
}

/**
 * Covers the upper triangle (j > i) of an n×n grid drawn at (x0, y0) with cells of `cell` px by a
 * grey, hatched staircase, so masked keys read as "not allowed", not as "weight 0".
 */
export function drawMaskTriangle(ctx, x0, y0, n, cell) {
  if (n < 2) return;
  const grid = n * cell;
  ctx.save();
  ctx.beginPath();
  ctx.moveTo(x0 + cell, y0);
  for (let i = 0; i < n - 1; i++) {
    ctx.lineTo(x0 + (i + 1) * cell, y0 + (i + 1) * cell);
    ctx.lineTo(x0 + (i + 2) * cell, y0 + (i + 1) * cell);
  }
  ctx.lineTo(x0 + grid, y0);
  ctx.closePath();
  ctx.fillStyle = MASK_FILL;
  ctx.fill();
  ctx.clip();
  ctx.strokeStyle = MASK_HATCH;
  ctx.lineWidth = 1;
  ctx.beginPath();
  const step = 6;
  for (let d = -grid; d < grid; d += step) {
    ctx.moveTo(x0 + d, y0 + grid);
    ctx.lineTo(x0 + d + grid, y0);
  }
  ctx.stroke();
  ctx.restore();
}

/** Keys query i may see in a causal run of T tokens, as an attention-mask-like array (1 = seen). */
export function causalKeyMask(T, query, keyMask) {
  return Array.from({ length: T }, (_, j) => (j > query || (keyMask && keyMask[j] === 0) ? 0 : 1));
}
