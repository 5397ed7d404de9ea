// Alignment accuracy of cross-attention heads against a known alignment (a model folder's
// heldout.jsonl: one {"source", "target", "alignment"} a line; alignment[i] is the source token —
// as tokenize gives them, special tokens included — that target token i comes from, or null).
// Target token i is predicted at decoder position i (the decoder's input is
// decoder_start_token_id followed by the target), so row i of a cross-attention matrix is the
// one scored for it: tools/train/evaluate_seq2seq.py's rule, which the training's acceptance bar
// uses. A head is right on token i when its strongest source token (the first of equal maxima,
// as torch.argmax) is alignment[i].

/** The lines of a heldout.jsonl as [{source, target, alignment}]; lines that are not such an
 *  object are skipped (a folder's file is shown, not trusted). */
export function parseHeldout(text) {
  const pairs = [];
  for (const line of String(text).split('\n')) {
    if (!line.trim()) continue;
    let p;
    try { p = JSON.parse(line); } catch { continue; }
    if (p && typeof p.source === 'string' && typeof p.target === 'string' && Array.isArray(p.alignment) &&
        p.alignment.every((a) => a === null || (Number.isInteger(a) && a >= 0))) {
      pairs.push({ source: p.source, target: p.target, alignment: p.alignment });
    }
  }
  return pairs;
}

/** The pair whose source (and target, when one is given) is this text, or null. */
export function findHeldout(pairs, source, target) {
  const same = (a, b) => a.trim() === b.trim();
  return pairs.find((p) => same(p.source, source) && (target == null || same(p.target, target))) ?? null;
}

/** Index of the largest of `length` values from `offset` (the first of equal maxima). */
function argmax(values, offset, length) {
  let best = 0;
  for (let j = 1; j < length; j++) if (values[offset + j] > values[offset + best]) best = j;
  return best;
}

/**
 * Scores cross-attentions [L][H][T][S] (row-major, shape [L, H, T, S]) against `alignment`.
 * Returns null when the alignment does not fit the run (more target tokens than decoder rows, or
 * a source index ≥ S); otherwise
 *   { aligned: number of non-null entries,
 *     heads: Float64Array(L·H), the share right per head (layer-major),
 *     layerMean: Float64Array(L), the share right of each layer's head-averaged attention,
 *     allMean: the share right of the attention averaged over every layer and head,
 *     diagonal: the share right of "target i ↔ source min(i, S−1)" }
 * With no aligned token the shares are NaN.
 */
export function alignmentAccuracy(cross, shape, alignment) {
  const [L, H, T, S] = shape;
  if (alignment.length > T || alignment.some((a) => a !== null && a >= S)) return null;
  const heads = new Float64Array(L * H), layerMean = new Float64Array(L);
  const all = new Float64Array(S), layer = new Float64Array(S);
  let aligned = 0, diagonal = 0, allRight = 0;
  alignment.forEach((a, i) => {
    if (a === null) return;
    aligned++;
    if (Math.min(i, S - 1) === a) diagonal++;
    all.fill(0);
    for (let l = 0; l < L; l++) {
      layer.fill(0);
      for (let h = 0; h < H; h++) {
        const row = ((l * H + h) * T + i) * S;
        if (argmax(cross, row, S) === a) heads[l * H + h]++;
        for (let j = 0; j < S; j++) layer[j] += cross[row + j];
      }
      if (argmax(layer, 0, S) === a) layerMean[l]++;
      for (let j = 0; j < S; j++) all[j] += layer[j];
    }
    if (argmax(all, 0, S) === a) allRight++;
  });
  for (let k = 0; k < heads.length; k++) heads[k] /= aligned;
  for (let l = 0; l < L; l++) layerMean[l] /= aligned;
  return { aligned, heads, layerMean, allMean: allRight / aligned, diagonal: diagonal / aligned };
}
