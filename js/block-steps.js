// The block walk-through's self-check: each traced step that is arithmetic on the step before it
// (the residual additions, the LayerNorms and the feed-forward's activation) recomputed in
// JavaScript, in float64, from the engine's own numbers, with the largest difference from what the
// engine returned. The page shows these beside each step, as the formula view does for the
// softmax. Feed-forward and attention outputs need the weight matrices and are not recomputed here.
// The Llama family's layer adds RMSNorms (no centring, no β), the rotation of q and k, Qwen3's
// per-head norms, the grouped heads' context and SwiGLU's act(gate) · up.

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

/** RMSNorm of one row (the Llama family's norms): x / sqrt(mean(x²) + eps) · γ, in float64. */
function rmsNormRow(x, gamma, eps) {
  let meanSquare = 0;
  for (const v of x) meanSquare += v * v;
  const inv = 1 / Math.sqrt(meanSquare / x.length + eps);
  return Float64Array.from(x, (v, c) => v * inv * gamma[c]);
}

/** Each head's dh values of a row (heads side by side) through fn(slice, head) → dh values. */
function perHead(row, headDim, fn) {
  const out = new Float64Array(row.length);
  for (let h = 0; h * headDim < row.length; h++) out.set(fn(row.subarray(h * headDim, (h + 1) * headDim), h), h * headDim);
  return out;
}

/** A head's dh values turned by `position` steps, transformers' rotate_half layout: pair (d, d + dh/2)
 *  by the angle position · invFreq[d] (the engine's inverse frequencies, scaling applied). */
function rotateHead(x, position, invFreq) {
  const half = x.length / 2, out = new Float64Array(x.length);
  for (let d = 0; d < half; d++) {
    const a = position * invFreq[d], c = Math.cos(a), s = Math.sin(a);
    out[d] = x[d] * c - x[d + half] * s;
    out[d + half] = x[d + half] * c + x[d] * s;
  }
  return out;
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
 *   hiddenAct: string, family?: string, headDim?: number, rotaryInverseFrequencies?: number[]}} config
 * @param {number} token the position to check (0-based)
 * @param {{attentions: Float32Array, shape: number[], kvHeads: number[]}} [run] the run's attentions
 *   (the Llama family: also checks the heads' context Σ_j P_ij v_j against the traced one)
 * @returns {{step: string, maxDiff: number}[]} in the order a token meets them; step names
 *   'embeddings.sum', 'embeddings.output', 'layers.<l>.<name>', 'finalNorm'
 */
export function blockSelfChecks(trace, config, token, run) {
  if (config.family === 'llama') return llamaSelfChecks(trace, config, token, run);
  return layerNormSelfChecks(trace, config, token);
}

/** The Llama family's layer: RMSNorm → q/k/v → (Qwen3: each head's RMSNorm) → rotation →
 *  grouped-query attention → o_proj → Add → RMSNorm → SwiGLU (act(gate) · up) → down → Add. Steps
 *  recomputed: every RMSNorm, the rotation of q and k at this token's position, the heads' context
 *  (with the run's attentions), both residual sums, act(gate) and act(gate) · up, the final norm. */
function llamaSelfChecks(trace, { layerNormEps: eps, hiddenSize: C, intermediateSize: F, hiddenAct, headDim: dh,
  rotaryInverseFrequencies: invFreq }, token, run) {
  const act = activationFor(hiddenAct);
  const row = (array, width = C) => array.subarray(token * width, (token + 1) * width);
  const diff = (got, want) => got.reduce((m, v, c) => Math.max(m, Math.abs(v - want[c])), 0);
  const add = (a, b) => Float64Array.from(a, (v, c) => v + b[c]);
  const e = trace.embeddings, T = e.word.length / C;
  const checks = [{ step: 'embeddings.sum', maxDiff: diff(row(e.sum), row(e.word)) }];  // no position table
  let input = row(e.output);
  trace.layers.forEach((layer, l) => {
    const norms = trace.layerNorms.layers[l];
    const at = (name, want) => checks.push({ step: `layers.${l}.${name}`, maxDiff: diff(row(layer[name], want.length), want) });
    const Q = layer.qProjection.length / T, KV = layer.kProjection.length / T;  // H·dh, KV·dh
    at('attentionInputNorm', rmsNormRow(input, norms.attention.gamma, eps));
    let q = row(layer.qProjection, Q), k = row(layer.kProjection, KV);
    if (layer.qHeadNorm) {
      at('qHeadNorm', perHead(q, dh, (x) => rmsNormRow(x, norms.qNorm.gamma, eps)));
      at('kHeadNorm', perHead(k, dh, (x) => rmsNormRow(x, norms.kNorm.gamma, eps)));
      q = row(layer.qHeadNorm, Q);
      k = row(layer.kHeadNorm, KV);
    }
    at('qRotated', perHead(q, dh, (x) => rotateHead(x, token, invFreq)));
    at('kRotated', perHead(k, dh, (x) => rotateHead(x, token, invFreq)));
    if (run) at('attentionContext', headContexts(run, l, token, layer.vProjection, dh, KV));
    at('attentionResidual', add(input, row(layer.attentionOutput)));
    at('ffnInputNorm', rmsNormRow(row(layer.attentionResidual), norms.ffn.gamma, eps));
    at('ffnGateActivated', Float64Array.from(row(layer.ffnGate, F), act));
    at('ffnIntermediate', Float64Array.from(row(layer.ffnGateActivated, F), (g, c) => g * row(layer.ffnUp, F)[c]));
    at('ffnResidual', add(row(layer.attentionResidual), row(layer.ffnOutput)));
    input = row(layer.output);
  });
  checks.push({ step: 'finalNorm', maxDiff: diff(row(trace.finalNorm), rmsNormRow(input, trace.layerNorms.final.gamma, eps)) });
  return checks;
}

/** Query head h's context at `token`: m_h Σ_j P_h[token, j] · v_j of the key/value head it reads
 *  (kvHeads[h]; m_h the run's head mask, L·H, or 1), heads side by side (H·dh), from the run's
 *  attentions and the traced v projection (T rows of kvWidth). */
export function headContexts({ attentions, shape: [, H, T, keys = T], kvHeads, headMask }, layer, token, vProjection, dh, kvWidth) {
  const out = new Float64Array(H * dh);
  for (let h = 0; h < H; h++) {
    const m = headMask ? headMask[layer * H + h] : 1;
    if (m === 0) continue;
    const p = attentions.subarray(((layer * H + h) * T + token) * keys, ((layer * H + h) * T + token + 1) * keys);
    for (let j = 0; j < keys; j++) {
      const v = vProjection.subarray(j * kvWidth + kvHeads[h] * dh, j * kvWidth + (kvHeads[h] + 1) * dh);
      for (let d = 0; d < dh; d++) out[h * dh + d] += m * p[j] * v[d];
    }
  }
  return out;
}

/** Post-LN encoders and pre-LN decoders (BERT, GPT-2): LayerNorms, residual sums, the activation. */
function layerNormSelfChecks(trace, { layerNormEps: eps, isDecoder, hiddenSize: C, intermediateSize: F, hiddenAct }, token) {
  const row = (array, width = C) => array.subarray(token * width, (token + 1) * width);
  const act = activationFor(hiddenAct);
  const diff = (got, want) => got.reduce((m, v, c) => Math.max(m, Math.abs(v - want[c])), 0);
  const add = (a, b) => Float64Array.from(a, (v, c) => v + b[c]);
  const norm = (x, { gamma, beta }) => layerNormRow(x, gamma, beta, eps);
  const e = trace.embeddings;
  const checks = [];
  let sum = add(row(e.word), row(e.position));  // learned positions (the Llama family has none)
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

/**
 * The decoder layer of an encoder–decoder (js/seq2seq.js's decoderTrace): masked self-attention,
 * cross-attention over the source, feed-forward, each with its Add & Norm — T5 normalising before
 * each sublayer (RMSNorm, then decoder.final_layer_norm after the last layer), BART and Marian
 * after each Add (LayerNorm). Steps recomputed: every norm, every residual sum, the activation
 * (not T5's gated act(x W_gate) · x W_in, whose second factor the trace does not keep), and that
 * each layer reads the one before it (its first norm or sum is recomputed from that output).
 * @param {object} trace a Seq2SeqRunResult's decoderTrace
 * @param {{layerNormEps: number, hiddenSize: number, decoderFfnDim: number, activation: string,
 *   gatedFfn?: boolean}} config a Seq2SeqConfig
 * @param {number} token the target position to check (0-based)
 * @returns {{step: string, maxDiff: number}[]} step names 'layers.<l>.<name>', 'finalNorm'
 */
export function seq2seqSelfChecks(trace, { layerNormEps: eps, hiddenSize: C, decoderFfnDim: F, activation, gatedFfn }, token) {
  const row = (array, width = C) => array.subarray(token * width, (token + 1) * width);
  const act = activationFor(activation);
  const diff = (got, want) => got.reduce((m, v, c) => Math.max(m, Math.abs(v - want[c])), 0);
  const add = (a, b) => Float64Array.from(a, (v, c) => v + b[c]);
  // LayerNorm where the norm has a β (BART, Marian), T5's RMSNorm where it has none.
  const norm = (x, { gamma, beta }) => (beta ? layerNormRow(x, gamma, beta, eps) : rmsNormRow(x, gamma, eps));
  const checks = [];
  let input = row(trace.embeddings);
  trace.layers.forEach((layer, l) => {
    const n = trace.norms.layers[l];
    const at = (name, want) => checks.push({ step: `layers.${l}.${name}`, maxDiff: diff(row(layer[name], want.length), want) });
    const preNorm = Boolean(layer.selfAttentionInputNorm);
    let x = input;
    for (const [sub, p] of [['selfAttention', n.selfAttention], ['crossAttention', n.crossAttention]]) {
      if (preNorm) at(`${sub}InputNorm`, norm(x, p));
      at(`${sub}Residual`, add(x, row(layer[`${sub}Output`])));
      x = row(layer[`${sub}Residual`]);
      if (!preNorm) {
        at(`${sub}Norm`, norm(x, p));
        x = row(layer[`${sub}Norm`]);
      }
    }
    if (preNorm) at('ffnInputNorm', norm(x, n.ffn));
    if (!gatedFfn) at('ffnIntermediate', Float64Array.from(row(layer.ffnPreActivation, F), act));
    at('ffnResidual', add(x, row(layer.ffnOutput)));
    at('output', preNorm ? row(layer.ffnResidual) : norm(row(layer.ffnResidual), n.ffn));
    input = row(layer.output);
  });
  if (trace.finalNorm) checks.push({ step: 'finalNorm', maxDiff: diff(row(trace.finalNorm), norm(input, trace.norms.final)) });
  return checks;
}
