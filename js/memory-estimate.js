// How much WebAssembly memory a model needs, from its config alone, so loadModel can refuse a
// model that cannot fit (E_TOO_LARGE) before its weights are downloaded, and choose f16 weights
// for weightPrecision 'auto'; with the weight precisions themselves and their default, which the
// API, the CLI and the page import from here. The figures are the engine's own: every tensor it keeps (the
// pooler and a tied decoder are not kept), the weight matrices as f16 under 'f16', and the
// buffers one run at the model's longest input fills.
import { AttnScopeError } from './errors.js';

/** What the module's memory may grow to: wasm32 addresses 4 GiB, and with MAXIMUM_MEMORY=4GB
 *  (CMakeLists.txt) Emscripten stops one 64 KiB page short of it (the wasm module's
 *  buildInfo().maxMemoryBytes, checked equal by tests/js/shared-facts.test.js). */
export const WASM32_MAX_BYTES = 4 * 1024 ** 3 - 64 * 1024;
/** What the engine keeps weight matrices as (bindings' WeightUpload takes exactly these): 'q8'
 *  quantizes every linear layer's weight to int8 (one scale per output channel) and runs them on
 *  the int8 GEMM; its word embeddings stay f16. */
export const WEIGHT_PRECISIONS = Object.freeze(['f32', 'f16', 'q8']);
/** What loadModel's weightPrecision accepts: a precision, or 'auto' (resolveWeightPrecision). */
export const WEIGHT_PRECISION_CHOICES = Object.freeze([...WEIGHT_PRECISIONS, 'auto']);
/** loadModel's weightPrecision when none is given. */
export const DEFAULT_WEIGHT_PRECISION = 'f32';

/** Kept free beyond the estimate: the runtime, the tokenizer's tables, the brief second copy of
 *  one layer while it is packed, allocator fragmentation. */
const HEADROOM_BYTES = 64 * 1024 ** 2;
/** weightPrecision 'auto' keeps the matrices as f16 when f32 weights would take more than this
 *  (bert-base's 418 MB would; distilbert-base's 253 MB would not). */
export const AUTO_F16_ABOVE_BYTES = 300 * 1024 ** 2;

/**
 * Parameters the engine keeps, split by how 'f16' stores them: `matrices` (every linear layer's
 * weight and the word embeddings, f16 under 'f16') and `other` (biases, LayerNorms, position and
 * token-type embeddings, the masked-LM head's transform: always f32).
 * @param {{family: string, vocabSize: number, hiddenSize: number, numLayers: number,
 *   intermediateSize: number, maxPositionEmbeddings: number, typeVocabSize?: number}} config
 *   the engine's parsed config (model.config / parseConfig)
 */
export function parameterCounts(config) {
  const { matrices, other } = parameterCountsAll(config);
  return { matrices, other };
}

// parameterCounts with `embedding` (V·C, the f16 part of the matrices under 'q8') and `channels`
// (the linear layers' output channels: a q8 layer keeps a scale and a column sum for each).
function parameterCountsAll(config) {
  checkParsedSizes(config);
  const { vocabSize: V, hiddenSize: C, numLayers: L, intermediateSize: F, maxPositionEmbeddings: P } = config;
  const T = config.typeVocabSize ?? 0;
  const layerMatrices = 4 * C * C + 2 * C * F;   // Q, K, V (GPT-2: one fused c_attn), O, FFN in and out
  const layerOther = 4 * C + F + C + 4 * C;       // their biases, two LayerNorms
  if (config.family === 'llama') {  // q, o (H·dh wide), k, v (KV·dh), gate, up, down; RMSNorms
    const Q = config.numHeads * config.headDim, KV = config.numKeyValueHeads * config.headDim;
    // Optional vectors counted as if present (an upper bound: most checkpoints have none): every
    // projection's bias, Qwen3's q/k norms.
    const optional = Q + 2 * KV + C + 2 * F + C + 2 * config.headDim;
    return { matrices: V * C + L * (2 * C * Q + 2 * C * KV + 3 * C * F), other: L * (2 * C + optional) + C,
      embedding: V * C, channels: L * (Q + 2 * KV + C + 2 * F + C) };
  }
  const channels = L * (4 * C + F + C);
  if (config.family === 'gpt2') {  // + ln_f
    return { matrices: V * C + L * layerMatrices, other: P * C + L * layerOther + 2 * C, embedding: V * C, channels };
  }
  // Encoders: embeddings LayerNorm, and a masked-LM head (dense, LayerNorm, output bias; the
  // decoder is the word embeddings) counted whether or not the checkpoint has one: it is small.
  const mlmHead = C * C + C + 2 * C + V;
  return { matrices: V * C + L * layerMatrices, other: P * C + T * C + 2 * C + L * layerOther + mlmHead,
    embedding: V * C, channels };
}

/** Bytes of the weights kept at `precision` ('f32' | 'f16' | 'q8'). */
export function weightBytes(config, precision) {
  const { matrices, other, embedding, channels } = parameterCountsAll(config);
  if (precision === 'q8') return (matrices - embedding) + embedding * 2 + channels * 8 + other * 4;
  return matrices * (precision === 'f16' ? 2 : 4) + other * 4;
}

/** The most the weights take while loading: a 'q8' load streams the matrices in as f16 and
 *  quantizes them layer by layer once the file is in (engine/weights.h), so it peaks at 'f16'. */
export function loadPeakBytes(config, precision) {
  return weightBytes(config, precision === 'q8' ? 'f16' : precision);
}

/** The longest run the estimate budgets for: a model's positions, up to this many (Llama-family
 *  models have 8192 and more; a 30-layer, 9-head run keeps 4.5 GB of attention maps at 2048 tokens,
 *  so loading is judged on what a run can use, and a longer run fails on its own). */
export const RUN_ESTIMATE_MAX_TOKENS = 1024;

/** Above this many bytes of maps a run keeps them on demand when that holds less: the engine's
 *  kEagerMapsBytes (engine/attention_sources.h, maps_on_demand; buildInfo().eagerMapsMaxBytes,
 *  checked equal by tests/js/shared-facts.test.js). */
export const EAGER_MAPS_MAX_BYTES = 256 * 1024 ** 2;

/**
 * Bytes a run's attention maps hold in wasm memory by the engine's rule (maps 'auto'): the maps
 * themselves, L·H·T·keys floats, up to EAGER_MAPS_MAX_BYTES; above it what they are made of when
 * that is smaller — per layer the queries (T·H·dh) and keys (keys·KV·dh) and each query row's
 * softmax max and factor (2·H·T), and the key mask (keys).
 */
export function attentionMapsBytes({ layers: L, heads: H, kvHeads: KV, headDim: dh, queries: T, keys }) {
  const eager = L * H * T * keys * 4;
  const sources = (L * (T * H * dh + keys * KV * dh + 2 * H * T) + keys) * 4;
  return eager > EAGER_MAPS_MAX_BYTES && sources < eager ? sources : eager;
}

/**
 * Bytes one run at the model's longest input (config.maxTokens, at most RUN_ESTIMATE_MAX_TOKENS) keeps in wasm memory: the
 * attention maps (on demand where they are large: attentionMapsBytes), per-head q/k/v and every layer's hidden state (what the page asks for), the
 * feed-forward and residual activations, the logits of every position (a decoder's nextAll, or
 * an encoder's text of [MASK]s) and a decoder's KV cache. A traced run (the block view) needs
 * more: ~(8·C + F)·T floats per layer.
 */
export function runBytes(config) {
  checkParsedSizes(config);
  const { hiddenSize: C, numLayers: L, numHeads: H, intermediateSize: F, vocabSize: V } = config;
  const T = Math.min(config.maxTokens ?? config.maxPositionEmbeddings, RUN_ESTIMATE_MAX_TOKENS);
  const KV = config.numKeyValueHeads ?? H, dh = config.headDim ?? C / H;
  const kvWidth = KV * dh;  // one K/V per key/value head
  const maps = attentionMapsBytes({ layers: L, heads: H, kvHeads: KV, headDim: dh, queries: T, keys: T });
  const floats = maps / 4                // attentions
    + 3 * L * T * C                     // q, k, v
    + (L + 1) * T * C                   // hidden states
    + T * F + 4 * T * C                 // one layer's activations
    + T * V                             // logits
    + (config.isDecoder ? 2 * L * T * kvWidth : 0);   // KV cache
  return floats * 4;
}

/** The largest size the engine's config readers accept for any dimension (engine/config.cpp,
 *  engine/seq2seq_config.cpp: kMaxSize); above it a key is refused there, so here too. */
const MAX_DIMENSION = 2 ** 30;

// Every size the estimate reads from a parsed config (camelCase, as parseConfig and model.config
// give them) is a positive integer, so no estimate and no message ever holds NaN; E_CONFIG names
// the first that is not. loadModel passes configs the engine has parsed, which always pass; this
// guards the exported functions' other callers.
function checkParsedSizes(config) {
  if (config === null || typeof config !== 'object') {
    throw new AttnScopeError('E_CONFIG', `the memory estimate needs a model config object, got ${config === null ? 'null' : typeof config}`);
  }
  const required = ['vocabSize', 'hiddenSize', 'numLayers', 'numHeads', 'intermediateSize', 'maxPositionEmbeddings',
    ...(config.family === 'llama' ? ['headDim', 'numKeyValueHeads'] : [])];
  for (const key of required) checkSize(config[key], key, 'config', 1);
  if (config.typeVocabSize != null) checkSize(config.typeVocabSize, 'typeVocabSize', 'config', 0);
  if (config.maxTokens != null) checkSize(config.maxTokens, 'maxTokens', 'config', 1);
}

// E_CONFIG unless `value` is an integer in [min, MAX_DIMENSION]; `where` says whose key it is.
function checkSize(value, key, where, min) {
  if (value === undefined || value === null) {
    throw new AttnScopeError('E_CONFIG', `${where} has no "${key}": the model's size cannot be known without it`);
  }
  if (!Number.isInteger(value) || value < min || value > MAX_DIMENSION) {
    throw new AttnScopeError('E_CONFIG', `${where}: "${key}" must be an integer from ${min} to ${MAX_DIMENSION}, ` +
      `got ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`);
  }
}

/** {weights, run, total} bytes for `config` at `precision` (total: the larger of weights + run
 *  and the load's peak). */
export function estimateMemory(config, precision) {
  const weights = weightBytes(config, precision);
  const run = runBytes(config);
  return { weights, run, total: Math.max(weights + run, loadPeakBytes(config, precision)) };
}

/** Throws E_INPUT unless `requested` is one of WEIGHT_PRECISION_CHOICES. */
export function checkWeightPrecision(requested) {
  if (!WEIGHT_PRECISION_CHOICES.includes(requested)) {
    throw new AttnScopeError('E_INPUT', `weightPrecision must be ${WEIGHT_PRECISION_CHOICES.map((p) => `'${p}'`).join(', ')}, ` +
      `got ${JSON.stringify(requested)}`);
  }
}

/** The precision for a requested 'f32' | 'f16' | 'q8' | 'auto': 'auto' is 'f32', 'f16' when f32
 *  weights would take more than AUTO_F16_ABOVE_BYTES, and 'q8' only where f16 would not fit in
 *  wasm32 (next to `inUse` bytes already allocated) and q8 would. */
export function resolveWeightPrecision(config, requested, inUse = 0) {
  if (requested !== 'auto') return requested;
  if (weightBytes(config, 'f32') <= AUTO_F16_ABOVE_BYTES) return 'f32';
  const room = Math.max(0, WASM32_MAX_BYTES - HEADROOM_BYTES - inUse);
  const fits = (precision) => estimateMemory(config, precision).total <= room;
  return !fits('f16') && fits('q8') ? 'q8' : 'f16';
}

/**
 * Throws E_TOO_LARGE when the model at `precision` cannot fit next to the `inUse` bytes already
 * allocated in wasm memory; the message gives the estimate, the room and what to do.
 */
export function checkFitsWasm32(config, precision, inUse = 0) {
  const need = estimateMemory(config, precision);
  const room = Math.max(0, WASM32_MAX_BYTES - HEADROOM_BYTES - inUse);
  if (need.total <= room) return need;
  const tokens = Math.min(config.maxTokens ?? config.maxPositionEmbeddings, RUN_ESTIMATE_MAX_TOKENS);
  const f16 = estimateMemory(config, 'f16'), q8 = estimateMemory(config, 'q8');
  const remedy = precision === 'f32' && f16.total <= room
    ? `use weightPrecision 'f16' (about ${gigabytes(f16.total)} in all)`
    : precision !== 'q8' && q8.total <= room
      ? `use weightPrecision 'q8' (about ${gigabytes(q8.total)} in all)`
      : `the model is too large for WebAssembly (wasm32) even with ${precision === 'q8' ? 'q8' : 'f16'} weights ` +
        `(${gigabytes(precision === 'q8' ? q8.total : f16.total)}); pick a smaller model`;
  throw new AttnScopeError('E_TOO_LARGE', `this model needs about ${gigabytes(need.total)} of WebAssembly memory ` +
    `(${gigabytes(need.weights)} of ${precision} weights + ${gigabytes(need.run)} for a ${tokens}-token run), ` +
    `more than the ${gigabytes(room)} wasm32 (4 GB) can hold: ${remedy}`);
}

// One unit in a message: GB with two decimals from 0.1 GB up (so "1.86 GB + 0.98 GB").
function gigabytes(bytes) {
  return bytes >= 0.1 * 1024 ** 3 ? `${(bytes / 1024 ** 3).toFixed(2)} GB` : `${Math.round(bytes / 1024 ** 2)} MB`;
}

// ---- encoder–decoders (bart, marian, t5) --------------------------------------------------------

/** The T5 run budget's length: T5 has relative positions and no table, so no longest input of
 *  its own; transformers' t5 configs say n_positions 512. */
const T5_ESTIMATE_TOKENS = 512;

/**
 * An encoder–decoder's sizes from its config.json as transformers reads it (BartConfig,
 * MarianConfig, T5Config keys), before anything else is downloaded.
 */
export function seq2seqSizes(hf) {
  if (hf === null || typeof hf !== 'object' || Array.isArray(hf)) {
    throw new AttnScopeError('E_CONFIG', 'config.json must be a JSON object');
  }
  // Every size key the estimate reads must be there: guessing transformers' default for a missing
  // one could make the estimate (and so the E_TOO_LARGE decision) wrong by orders of magnitude.
  // Keys transformers' own configs leave out (num_decoder_layers, relative_attention_num_buckets,
  // n_positions) keep the defaults below.
  const size = (key, fallback) => {
    if (hf[key] == null && fallback !== undefined) return fallback;
    checkSize(hf[key], key, 'config.json', 1);
    return hf[key];
  };
  const t5 = hf.model_type === 't5';
  if (t5) {
    const layers = size('num_layers'), heads = size('num_heads'), ff = size('d_ff');
    const proj = typeof hf.feed_forward_proj === 'string' ? hf.feed_forward_proj : 'relu';
    return { family: 't5', V: size('vocab_size'), C: size('d_model'), Le: layers, Ld: size('num_decoder_layers', layers),
      He: heads, Hd: heads, dkv: size('d_kv'), Fe: ff, Fd: ff, gated: proj.startsWith('gated'),
      tied: hf.tie_word_embeddings ?? true, buckets: size('relative_attention_num_buckets', 32), positions: 0,
      tokens: Math.min(size('n_positions', T5_ESTIMATE_TOKENS), RUN_ESTIMATE_MAX_TOKENS) };
  }
  const C = size('d_model'), P = size('max_position_embeddings'), He = size('encoder_attention_heads');
  return { family: hf.model_type, V: size('vocab_size'), C, Le: size('encoder_layers'), Ld: size('decoder_layers'),
    He, Hd: size('decoder_attention_heads'), dkv: C / He,
    Fe: size('encoder_ffn_dim'), Fd: size('decoder_ffn_dim'), gated: false, tied: hf.tie_word_embeddings ?? true, buckets: 0,
    // BART's learned tables have 2 extra rows (its offset); Marian's sinusoidal table is stored too.
    positions: hf.model_type === 'bart' ? P + 2 : P, tokens: Math.min(P, RUN_ESTIMATE_MAX_TOKENS) };
}

/** Parameters of an encoder–decoder: `matrices` (linear layers, the word embeddings and an
 *  untied head: f16 under 'f16') and `other` (biases, norms, position tables, T5's bucket
 *  tables, BART/Marian's final_logits_bias: f32). */
export function seq2seqParameterCounts(hf) {
  const s = seq2seqSizes(hf);
  const { V, C } = s, HDe = s.He * s.dkv, HDd = s.Hd * s.dkv;
  const bias = s.family !== 't5';                    // BART and Marian linear layers have biases
  const norm = bias ? 2 * C : C;                     // LayerNorm (weight, bias) or RMSNorm (weight)
  const ffn = (F) => (s.gated ? 3 : 2) * C * F;
  const ffnBias = (F) => (bias ? F + C : 0);
  const attention = (HD) => 4 * C * HD;
  const attentionBias = (HD) => (bias ? 3 * HD + C : 0);
  const embedding = V * C * (s.tied ? 1 : 2);         // the shared embeddings (and an untied head)
  const linear = s.Le * (attention(HDe) + ffn(s.Fe)) + s.Ld * (2 * attention(HDd) + ffn(s.Fd));
  const matrices = embedding + linear;
  // Output channels of the linear layers (a q8 layer keeps a scale and a column sum for each).
  const channels = s.Le * (4 * C + F_out(s.Fe, s.gated, C)) + s.Ld * (8 * C + F_out(s.Fd, s.gated, C));
  const other = s.Le * (attentionBias(HDe) + ffnBias(s.Fe) + 2 * norm)
    + s.Ld * (2 * attentionBias(HDd) + ffnBias(s.Fd) + 3 * norm)
    + 2 * norm                                        // each stack's final norm (T5) or embedding norm (BART)
    + 2 * s.positions * C + s.buckets * (s.He + s.Hd) + (bias ? V : 0);
  return { matrices, other, embedding, channels };
}

// The output channels of one feed-forward: wi (and the gate) F each, wo C.
const F_out = (F, gated, C) => (gated ? 2 : 1) * F + C;

/** {weights, run, total} bytes of an encoder–decoder at 'f32' | 'f16' | 'q8': a run of a source and a
 *  target of the longest length keeps the three attention kinds, the decoder's logits, the cross
 *  keys and values of every decoder layer and the activations of one layer. */
export function estimateSeq2SeqMemory(hf, precision) {
  const s = seq2seqSizes(hf);
  const { matrices, other, embedding, channels } = seq2seqParameterCounts(hf);
  const weights = precision === 'q8'
    ? (matrices - embedding) + embedding * 2 + channels * 8 + other * 4   // int8 layers, f16 embeddings
    : matrices * (precision === 'f16' ? 2 : 4) + other * 4;
  const T = s.tokens, F = Math.max(s.Fe, s.Fd);
  const floats = (s.Le * s.He + 2 * s.Ld * s.Hd) * T * T   // encoder self, decoder self, cross
    + T * s.V                                                // logits
    + 4 * s.Ld * T * s.Hd * s.dkv                            // cross K/V and the decoder's self K/V cache
    + 2 * T * s.C + T * F + 4 * T * s.C;                     // encoder output, one layer's activations
  const run = floats * 4;
  return { weights, run, total: weights + run };
}

/** An encoder–decoder's weight precision: a requested one as is; for 'auto', f16 above
 *  AUTO_F16_ABOVE_BYTES of f32 weights, as for other models. */
export function resolveSeq2SeqPrecision(hf, requested) {
  if (WEIGHT_PRECISIONS.includes(requested)) return requested;
  return estimateSeq2SeqMemory(hf, 'f32').weights > AUTO_F16_ABOVE_BYTES ? 'f16' : 'f32';
}

/** Throws E_TOO_LARGE when an encoder–decoder at `precision` cannot fit next to `inUse` bytes. */
export function checkSeq2SeqFitsWasm32(hf, precision, inUse = 0) {
  const need = estimateSeq2SeqMemory(hf, precision);
  const room = Math.max(0, WASM32_MAX_BYTES - HEADROOM_BYTES - inUse);
  if (need.total <= room) return need;
  throw new AttnScopeError('E_TOO_LARGE', `this encoder-decoder needs about ${gigabytes(need.total)} of WebAssembly memory ` +
    `(${gigabytes(need.weights)} of ${precision} weights + ${gigabytes(need.run)} for a ${seq2seqSizes(hf).tokens}-token source and target), ` +
    `more than the ${gigabytes(room)} wasm32 (4 GB) can hold` + (precision === 'f32' ? ": try weightPrecision 'f16'" : ': pick a smaller model'));
}
