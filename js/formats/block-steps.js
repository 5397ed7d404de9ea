// The block walk-through's self-check: each traced step that is arithmetic on the step before it
// (the residual additions, the norms and the feed-forward's activation) recomputed in JavaScript,
// in float64, from the engine's own numbers, with the largest difference from what the engine
// returned. The page shows these beside each step, as the formula view does for the softmax.
// Which steps a family checks, and how each is recomputed, is its walk's data (js/formats/block-walks.js);
// this file holds the arithmetic (LayerNorm, RMSNorm, activations, rotation, the heads' context)
// and the walker. Feed-forward and attention outputs need the weight matrices and are not
// recomputed here.
import { blockWalk, seq2seqBlockWalk } from './block-walks.js';

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

/** Whether a walk entry or item applies at layer l of L (its `at`: js/formats/block-walks.js). */
export function appliesAt({ at }, l, L) {
  return at === 'first' ? l === 0 : at === 'last' ? l === L - 1 : at === 'later' ? l > 0 : true;
}

/** The traced array a walk reference names at layer l (js/formats/block-walks.js), or undefined. */
export function traced(trace, ref, l) {
  for (const name of ref.split('|')) {
    const array = name === 'x' ? (l === 0 ? embeddingsOutput(trace) : trace.layers[l - 1].output)
      : name === 'embeddings' ? embeddingsOutput(trace)
        : name.startsWith('embeddings.') ? trace.embeddings[name.slice('embeddings.'.length)]
          : name === 'finalNorm' ? trace.finalNorm
            : trace.layers[l][name];
    if (array) return array;
  }
  return undefined;
}

// A single-stack trace's embeddings are their parts and output; an encoder–decoder's, the output alone.
const embeddingsOutput = (trace) => trace.embeddings.output ?? trace.embeddings;

/** A walk's norm parameters ({gamma, beta?}) by name: a layer's, or the stack's embeddings / final. */
export function normParams(trace, name, l) {
  const norms = trace.layerNorms ?? trace.norms;
  return name === 'embeddings' || name === 'final' ? norms[name] : norms.layers[l][name];
}

/** The check name of a traced step: layers.<l>.<field>, or the stack's own name (embeddings.sum, finalNorm). */
export function stepName(ref, l) {
  return ref === 'finalNorm' || ref.startsWith('embeddings') ? ref : `layers.${l}.${ref}`;
}

/** The walk's checks of one item at layer l: [{ref, want, drawn}] (a norm item checks its output). */
export function itemChecks(item) {
  if (item.check) return [{ ref: item.check, want: item.want, drawn: item.drawn !== false }];
  if (item.norm) return [{ ref: item.out, want: ['norm', item.norm, item.params], drawn: true }];
  return [];
}

/** What a check's op computes for this token, in float64 (null where the run it needs is absent). */
function recompute([op, ...args], env) {
  const { row, eps } = env;
  const norm = (x, p) => (env.rms ? rmsNormRow(x, p.gamma, eps) : layerNormRow(x, p.gamma, p.beta, eps));
  switch (op) {
    case 'sum':
      return args.map(row).filter(Boolean).reduce((sum, r) => (sum ? Float64Array.from(sum, (v, c) => v + r[c]) : Float64Array.from(r)), null);
    case 'norm': return norm(row(args[0]), env.params(args[1]));
    case 'act': return Float64Array.from(row(args[0]), env.act);
    case 'times': {
      const b = row(args[1]);
      return Float64Array.from(row(args[0]), (a, c) => a * b[c]);
    }
    case 'headNorm': return perHead(row(args[0]), env.dh, (x) => rmsNormRow(x, env.params(args[1]).gamma, eps));
    case 'rotate': return perHead(row(args[0]), env.dh, (x) => rotateHead(x, env.token, env.invFreq));
    case 'context': {
      if (!env.run) return null;
      const v = env.trace.layers[env.l].vProjection;
      return headContexts(env.run, env.l, env.token, v, env.dh, v.length / env.T);
    }
    case 'same': return Float64Array.from(row(args[0]));
    default: throw new Error(`unknown block check ${op}`);
  }
}

/**
 * Runs a walk's checks (js/formats/block-walks.js) on a trace at one token: each traced step that is
 * arithmetic on the steps before it recomputed in float64 from the engine's own numbers, with the
 * largest difference from what the engine returned — the 'first' steps once, then every layer's,
 * then the 'last' steps once.
 * @param {object} walk blockWalk() / seq2seqBlockWalk()
 * @param {object} trace the run's trace of that stack
 * @param {{hiddenSize: number, layerNormEps: number, hiddenAct?: string, activation?: string, headDim?: number,
 *   rotaryInverseFrequencies?: number[]}} config the model's config
 * @param {number} token the position to check (0-based)
 * @param {object} [run] the run's attentions, shape, kvHeads (the heads' context: Σ_j P_ij v_j)
 * @returns {{step: string, maxDiff: number, drawn: boolean}[]}
 */
export function walkChecks(walk, trace, config, token, run) {
  const L = trace.layers.length;
  const T = embeddingsOutput(trace).length / config.hiddenSize;
  const row = (array) => {
    if (!array) return undefined;
    const w = array.length / T;
    return array.subarray(token * w, (token + 1) * w);
  };
  const checks = [];
  const visit = (l, phase) => {
    const env = { row: (ref) => row(traced(trace, ref, l)), params: (name) => normParams(trace, name, l), eps: config.layerNormEps,
      rms: walk.norm === 'rms', act: activationFor(config.hiddenAct ?? config.activation), dh: config.headDim,
      invFreq: config.rotaryInverseFrequencies, token, run, trace, l, T };
    for (const entry of walk.entries) {
      for (const item of entry.items ?? []) {
        const at = item.at ?? entry.at;
        if ((at === 'first' || at === 'last' ? at : 'layer') !== phase || (at === 'later' && l === 0)) continue;
        if ((entry.when && !traced(trace, entry.when, l)) || (item.when && !traced(trace, item.when, l))) continue;
        for (const { ref, want, drawn } of itemChecks(item)) {
          const expected = recompute(want, env);
          if (!expected) continue;
          const got = env.row(ref);
          checks.push({ step: stepName(ref, l), maxDiff: got.reduce((m, v, c) => Math.max(m, Math.abs(v - expected[c])), 0), drawn });
        }
      }
    }
  };
  visit(0, 'first');
  for (let l = 0; l < L; l++) visit(l, 'layer');
  visit(L - 1, 'last');
  return checks;
}

const stepsOnly = (checks) => checks.map(({ step, maxDiff }) => ({ step, maxDiff }));

/**
 * The Block view's self-checks of a single-stack model (BERT, GPT-2, the Llama family): its walk's
 * (js/formats/block-walks.js blockWalk) residual sums, norms, activations; the Llama family's rotations, per-head
 * norms, SwiGLU product and (with `run`) the heads' context.
 * @param {object} trace a RunResult's trace (run with { trace: true }), with its layerNorms
 * @param {object} config the model's config (js/api/model.js)
 * @param {number} token the position to check (0-based)
 * @param {{attentions: Float32Array, shape: number[], kvHeads: number[]}} [run] the run's attentions
 * @returns {{step: string, maxDiff: number}[]} in the order a token meets them; step names
 *   'embeddings.sum', 'embeddings.output', 'layers.<l>.<name>', 'finalNorm'
 */
export function blockSelfChecks(trace, config, token, run) {
  return stepsOnly(walkChecks(blockWalk(config), trace, config, token, run));
}

/**
 * The same for one stack of an encoder–decoder (js/api/seq2seq.js's decoderTrace or encoderTrace;
 * js/formats/block-walks.js seq2seqBlockWalk): every norm, every residual sum, the activation (not T5's
 * gated act(x W_gate) · x W_in, whose second factor the trace does not keep), and that each layer
 * reads the one before it (its first norm or sum is recomputed from that output).
 * @param {object} trace a Seq2SeqRunResult's decoderTrace (or encoderTrace)
 * @param {object} config a Seq2SeqConfig (modelType, gatedFfn, hiddenSize, layerNormEps, activation)
 * @param {number} token the position to check (0-based)
 * @param {'decoder' | 'encoder'} [stack]
 * @returns {{step: string, maxDiff: number}[]} step names 'layers.<l>.<name>', 'finalNorm'
 */
export function seq2seqSelfChecks(trace, config, token, stack = 'decoder') {
  return stepsOnly(walkChecks(seq2seqBlockWalk(config, stack), trace, config, token));
}
