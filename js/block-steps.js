// The block walk-through's self-check: each traced step that is arithmetic on the step before it
// (the residual additions, the LayerNorms and the feed-forward's activation) recomputed in
// JavaScript, in float64, from the engine's own numbers, with the largest difference from what the
// engine returned. The page shows these beside each step, as the formula view does for the
// softmax. Feed-forward and attention outputs need the weight matrices and are not recomputed here.

/** LayerNorm of one row (C values): (x − mean) / sqrt(var + eps) · γ + β, in float64. */
function layerNormRow(x, gamma, beta, eps) {
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

/** erf(x) in float64 to a few ulp: Kummer's series erf(x) = 2/√π · e^(−x²) · Σ 2ⁿ x^(2n+1) / (1·3·…·(2n+1)),
 *  whose terms are all positive (no cancellation, unlike the alternating Taylor series); beyond
 *  |x| = 6 erf is ±1 in float64 (erfc(6) ≈ 2e-17). JavaScript's Math has no erf. */
export function erf(x) {
  const a = Math.abs(x);
  if (!(a < 6)) return Number.isNaN(x) ? NaN : Math.sign(x);
  let term = a, sum = a;
  for (let n = 1; term > sum * 1e-17; n++) {
    term *= (2 * a * a) / (2 * n + 1);
    sum += term;
  }
  return Math.sign(x) * (2 / Math.sqrt(Math.PI)) * Math.exp(-a * a) * sum;
}

/** Which feed-forward activation a config's hidden_act names, as the engine reads the names
 *  (engine/blocks.cpp activation_for; tests/js/shared-facts.test.js checks they agree): 'relu';
 *  'silu' (x·σ(x), the Llama family's gate) for silu and swish; 'geluTanh' (the tanh
 *  approximation) for gelu_new, gelu_pytorch_tanh and gelu_fast; 'geluErf' (exact GELU, x·Φ(x))
 *  for gelu and gelu_python. */
export function activationKind(hiddenAct) {
  if (hiddenAct === 'relu') return 'relu';
  if (hiddenAct === 'silu' || hiddenAct === 'swish') return 'silu';
  if (['gelu_new', 'gelu_pytorch_tanh', 'gelu_fast'].includes(hiddenAct)) return 'geluTanh';
  return 'geluErf';
}

const ACTIVATIONS = {
  relu: (x) => (x > 0 ? x : 0),
  silu: (x) => x / (1 + Math.exp(-x)),
  geluTanh: (x) => 0.5 * x * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (x + 0.044715 * x * x * x))),
  geluErf: (x) => 0.5 * x * (1 + erf(x / Math.SQRT2)),
};

/** The activation a config's hidden_act names, in float64. */
export function activationFor(hiddenAct) {
  return ACTIVATIONS[activationKind(hiddenAct)];
}

/**
 * @param {object} trace a RunResult's trace (run with { trace: true }), with its layerNorms
 * @param {{layerNormEps: number, isDecoder: boolean, hiddenSize: number, intermediateSize: number,
 *   hiddenAct: string}} config
 * @param {number} token the position to check (0-based)
 * @returns {{step: string, maxDiff: number}[]} in the order a token meets them; step names
 *   'embeddings.sum', 'embeddings.output', 'layers.<l>.<name>', 'finalNorm'
 */
export function blockSelfChecks(trace, { layerNormEps: eps, isDecoder, hiddenSize: C, intermediateSize: F, hiddenAct }, token) {
  const row = (array, width = C) => array.subarray(token * width, (token + 1) * width);
  const act = activationFor(hiddenAct);
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
    const at = (name, got, want) => checks.push({ step: `layers.${l}.${name}`, maxDiff: diff(row(got, want.length), want) });
    const activated = () => Float64Array.from(row(layer.ffnPreActivation, F), act);
    if (isDecoder) {
      at('attentionInputNorm', layer.attentionInputNorm, norm(input, lnA));
      at('attentionResidual', layer.attentionResidual, add(input, row(layer.attentionOutput)));
      at('ffnInputNorm', layer.ffnInputNorm, norm(row(layer.attentionResidual), lnF));
      at('ffnIntermediate', layer.ffnIntermediate, activated());
      at('ffnResidual', layer.ffnResidual, add(row(layer.attentionResidual), row(layer.ffnOutput)));
    } else {
      at('attentionResidual', layer.attentionResidual, add(input, row(layer.attentionOutput)));
      at('attentionNorm', layer.attentionNorm, norm(row(layer.attentionResidual), lnA));
      at('ffnIntermediate', layer.ffnIntermediate, activated());
      at('ffnResidual', layer.ffnResidual, add(row(layer.attentionNorm), row(layer.ffnOutput)));
      at('output', layer.output, norm(row(layer.ffnResidual), lnF));
    }
    input = row(layer.output);
  });
  if (isDecoder) checks.push({ step: 'finalNorm', maxDiff: diff(row(trace.finalNorm), norm(input, trace.layerNorms.final)) });
  return checks;
}
