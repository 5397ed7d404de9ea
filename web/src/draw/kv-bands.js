// Grouped-query attention drawn over a row of heads: above each group of query heads that read
// the same key/value head, a bracket spanning them labelled "K/V 0", so the grid shows which
// heads share keys and values (their patterns often look alike for that reason).
import { kvGroups } from '../model/model-family.js';

export const KV_BAND = 18;   // CSS px above the head labels

/** Draws the groups' brackets in the band from y to y + KV_BAND; x(h) is head h's left edge and
 *  s a head's width. Returns the groups drawn ([] for a model without shared heads). */
export function drawKvBands(ctx, config, { x, s, y, label }) {
  const groups = kvGroups(config);
  ctx.save();
  ctx.strokeStyle = '#7a8699';
  ctx.lineWidth = 1;
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  for (const g of groups) {
    const left = x(g.first) + 1, right = x(g.last) + s - 1, mid = y + KV_BAND - 4;
    ctx.beginPath();
    ctx.moveTo(left + 0.5, y + KV_BAND - 1);
    ctx.lineTo(left + 0.5, mid + 0.5);
    ctx.lineTo(right - 0.5, mid + 0.5);
    ctx.lineTo(right - 0.5, y + KV_BAND - 1);
    ctx.stroke();
    const text = label(g);
    const w = ctx.measureText(text).width + 6;
    ctx.clearRect((left + right) / 2 - w / 2, y, w, KV_BAND - 2);
    ctx.fillText(text, (left + right) / 2, y + (KV_BAND - 4) / 2 + 1);
  }
  ctx.restore();
  return groups;
}
