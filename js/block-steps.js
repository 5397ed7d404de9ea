// The block walk-through's self-check: each traced step that is arithmetic on the step before it
// (the residual additions and the LayerNorms) recomputed in JavaScript, in float64, from the
// engine's own numbers, with the largest difference from what the engine returned. The page shows
// these beside each step, as the formula view does for the softmax. Feed-forward and attention
// outputs need the weight matrices and are not recomputed here.

/** LayerNorm of one row (C values): (x − mean) / sqrt(var + eps) · γ + β, in float64. */
export function layerNormRow(x, gamma, beta, eps) {
  const C = x.length;
  let mean = 0;
  for (let c = 0; c < C; c++) mean += x[c];
  mean /= C;
  let variance = 0;
  for (let c = 0; c < C; c++) variance += (x[c] - mean) ** 2;
  variance /= C;
  const inv = 1 / Math.sqrt(variance + eps);
  return Float64Array.from(x, (v, c) => (v - mean) * inv * gamma[c] + beta[c]);
}

/**
 * @param {object} trace a RunResult's trace (run with { trace: true }), with its layerNorms
 * @param {{layerNormEps: number, isDecoder: boolean, hiddenSize: number}} config
 * @param {number} token the position to check (0-based)
 * @returns {{step: string, maxDiff: number}[]} in the order a token meets them; step names
 *   'embeddings.sum', 'embeddings.output', 'layers.<l>.<name>', 'finalNorm'
 */
export function blockSelfChecks(trace, { layerNormEps: eps, isDecoder, hiddenSize: C }, token) {
  const row = (array) => array.subarray(token * C, (token + 1) * C);
  const diff = (got, want) => got.reduce((m, v, c) => Math.max(m, Math.abs(v - want[c])), 0);
  const add = (a, b) => Float64Array.from(a, (v, c) => v + b[c]);
  const norm = (x, { gamma, beta }) => layerNormRow(x, gamma, beta, eps);
  const e = trace.embeddings;
  const checks = [];
  let sum = add(row(e.word), row(e.position));
  if (e.tokenType) sum = add(sum, row(e.tokenType));
  checks.push({ step: 'embeddings.sum', maxDiff: diff(row(e.sum), sum) });
  if (!isDecoder) checks.push({ step: 'embeddings.output', maxDiff: diff(row(e.output), norm(row(e.sum), trace.layerNorms.embeddings)) });
  let input = row(e.output);
  trace.layers.forEach((layer, l) => {
    const { attention: lnA, ffn: lnF } = trace.layerNorms.layers[l];
    const at = (name, got, want) => checks.push({ step: `layers.${l}.${name}`, maxDiff: diff(row(got), want) });
    if (isDecoder) {
      at('attentionInputNorm', layer.attentionInputNorm, norm(input, lnA));
      at('attentionResidual', layer.attentionResidual, add(input, row(layer.attentionOutput)));
      at('ffnInputNorm', layer.ffnInputNorm, norm(row(layer.attentionResidual), lnF));
      at('ffnResidual', layer.ffnResidual, add(row(layer.attentionResidual), row(layer.ffnOutput)));
    } else {
      at('attentionResidual', layer.attentionResidual, add(input, row(layer.attentionOutput)));
      at('attentionNorm', layer.attentionNorm, norm(row(layer.attentionResidual), lnA));
      at('ffnResidual', layer.ffnResidual, add(row(layer.attentionNorm), row(layer.ffnOutput)));
      at('output', layer.output, norm(row(layer.ffnResidual), lnF));
    }
    input = row(layer.output);
  });
  if (isDecoder) checks.push({ step: 'finalNorm', maxDiff: diff(row(trace.finalNorm), norm(input, trace.layerNorms.final)) });
  return checks;
}
