// Types for 'attnscope' (hand-written; the runtime is js/index.js).

/** Every code an AttnScopeError can carry, as js/formats/errors.js lists them (the loader's, then the
 *  engine's; tests/js/shared-facts.test.js checks that this list is that one). */
export const ERROR_CODES: readonly [
  'E_NETWORK', 'E_NOT_FOUND', 'E_ABORTED', 'E_DISPOSED',
  'E_CONFIG', 'E_TOO_LARGE', 'E_TOKENIZER', 'E_SAFETENSORS', 'E_WEIGHTS', 'E_INPUT', 'E_INTERNAL',
];

export type ErrorCode = typeof ERROR_CODES[number];

/** Every error AttnScope throws or rejects with. Branch on `code`. */
export class AttnScopeError extends Error {
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown });
  readonly name: 'AttnScopeError';
  readonly code: ErrorCode;
}

/** One file of a model: JSON text or object, bytes, a Blob/File, or a URL to fetch. */
export type FileValue = string | object | ArrayBuffer | ArrayBufferView | Blob | URL;

export interface ModelFiles {
  /** config.json (text or parsed object). Required. */
  config: FileValue;
  /** model.safetensors (F32, F16 or BF16). Required. */
  weights: ArrayBuffer | ArrayBufferView | Blob | URL;
  /** vocab.txt (WordPiece); one of vocab, tokenizer or vocabJson + merges is needed. */
  vocab?: FileValue;
  /** tokenizer.json (WordPiece or byte-level BPE); wins over the others when given. */
  tokenizer?: FileValue;
  /** vocab.json of a byte-level BPE tokenizer (GPT-2, RoBERTa), with merges. */
  vocabJson?: FileValue;
  /** merges.txt of a byte-level BPE tokenizer, with vocabJson. */
  merges?: FileValue;
  /** Marian: source.spm (a SentencePiece model, bytes), with targetSpm and vocabJson. */
  sourceSpm?: FileValue;
  /** Marian: target.spm, the target side's SentencePiece model. */
  targetSpm?: FileValue;
  /** tokenizer_config.json (do_lower_case, strip_accents, special tokens). */
  tokenizerConfig?: FileValue;
}

/**
 * - omitted or 'bundled': the small BERT shipped in the package (model/)
 * - 'bundled-causal': the small GPT-2 shipped in the package (model-causal/)
 * - 'bundled-seq2seq': the small T5 shipped in the package (model-seq2seq/), an encoder–decoder
 *   that rewrites English into subject–object–verb order
 * - 'owner/name': a Hugging Face hub id (files from <hubUrl>/<id>/resolve/<revision>/)
 * - 'https://host/path/': a folder URL (URL objects too)
 * - Node: a local folder path ('/dir', './dir', 'file:///dir', or any existing directory)
 * - an object of files, or the Files of a picked folder (FileList / File[])
 */
export type ModelSource = undefined | 'bundled' | 'bundled-causal' | 'bundled-seq2seq' | string | URL | ModelFiles | FileList | File[];

export interface LoadProgress {
  /** Hub file name: 'config.json', 'model.safetensors', ... */
  file: string;
  loaded: number;
  /** Undefined when the server sends no (or a compressed) Content-Length. */
  total?: number;
}

export interface LoadOptions {
  onProgress?: (progress: LoadProgress) => void;
  /** Aborting rejects with E_ABORTED. */
  signal?: AbortSignal;
  /** Default 'https://huggingface.co' (Node: env ATTNSCOPE_HUB_URL). */
  hubUrl?: string;
  /** Hub branch, tag or commit; default 'main'. */
  revision?: string;
  /** Browsers: keep downloads in Cache Storage (default true). */
  cache?: boolean;
  /** How the weight matrices (linear layers, word embeddings) are kept in memory: 'f32' (default)
   *  or 'f16', half the RAM, widened to f32 as they are read (all arithmetic stays f32; results
   *  differ from 'f32' by the rounding of an f32 checkpoint's weights to f16, not at all for an
   *  f16 checkpoint). 'q8': every linear layer's weight quantized to int8 (one symmetric scale
   *  per output channel) and run on the int8 GEMM with the activations quantized per token
   *  (bias, activations, norms, attention stay f32; word embeddings f16): about a quarter of the
   *  f32 memory and faster, results close to 'f32' but not equal (README: accuracy). 'auto':
   *  'f16' when the f32 weights would exceed 300 MB (decided from config.json before the
   *  download), 'q8' only where f16 would not fit wasm32 and q8 would, else 'f32';
   *  info.weightPrecision says which. A model that
   *  cannot fit wasm32's 4 GB at the chosen precision (weights + a run at its longest input) is
   *  refused with E_TOO_LARGE after config.json, before anything else is downloaded. */
  weightPrecision?: 'f32' | 'f16' | 'q8' | 'auto';
  /** Threads the model's runs use (GEMMs split by output columns, attention by heads; results
   *  are bit-identical to one thread). Default: Node, os.availableParallelism() (at most 16); a
   *  cross-origin isolated page, navigator.hardwareConcurrency (at most 8); elsewhere 1 (no
   *  SharedArrayBuffer). More than one thread loads the threaded wasm build, whose pool of
   *  workers is sized by the first such load in the realm (a later, larger request gets at most
   *  that many); info.threads says how many are used. */
  threads?: number;
  /** The model will run the logit lens, attribution, flow or patching: a page loads it at once on
   *  a wasm build that has them, not on the lighter encoder build a BERT otherwise gets (which
   *  loads the model again there before the first such call). Default false. */
  analyses?: boolean;
}

export interface ModelConfig {
  family: 'bert' | 'distilbert' | 'roberta' | 'gpt2' | 'llama';
  /** Tokens a run can take (RoBERTa: max_position_embeddings − pad_token_id − 1). */
  maxTokens: number;
  modelType: string;
  vocabSize: number;
  hiddenSize: number;
  numLayers: number;
  numHeads: number;
  headDim: number;
  /** Key/value heads (grouped-query attention: fewer than numHeads; otherwise numHeads). */
  numKeyValueHeads: number;
  /** numHeads entries: the key/value head each query head reads (h / (numHeads / numKeyValueHeads)). */
  kvHeads: number[];
  /** Rotary models (the Llama family): the engine's inverse frequencies, headDim / 2 of them
   *  (rope_theta and rope_scaling applied); the pair (i, i + headDim/2) turns by position × [i].
   *  Empty for models with learned position embeddings. */
  rotaryInverseFrequencies: number[];
  intermediateSize: number;
  maxPositionEmbeddings: number;
  typeVocabSize: number;
  layerNormEps: number;
  hiddenAct: string;
  padTokenId: number;
  /** A decoder (GPT-2 or Llama family): causal attention, next-token predictions, generate(). */
  isDecoder: boolean;
  /** -1 when config.json has none. */
  bosTokenId: number;
  eosTokenId: number;
}

export interface ModelInfo {
  source: 'bundled' | 'hub' | 'url' | 'dir' | 'object' | 'files';
  /** The folder path or base URL the files came from. */
  location: string;
  /** The hub id, for hub sources. */
  id?: string;
  /** Bytes read per file name. */
  files: Record<string, number>;
  config: ModelConfig;
  /** 'decoder' for the GPT-2 family (causal), 'encoder' for BERT-family models. */
  kind: 'encoder' | 'decoder';
  hasMlmHead: boolean;
  tokenizer: 'tokenizer.json' | 'vocab.txt' | 'vocab.json+merges.txt' | 'source.spm+target.spm+vocab.json';
  tokenizerVocabSize: number;
  weightPrecision: 'f32' | 'f16' | 'q8';
  /** Threads the model's runs use (see LoadOptions.threads). */
  threads: number;
  /** Bytes of wasm memory the model holds (weights, tokenizer): the heap's growth over the load
   *  (loads running at the same time in one thread share it). */
  memoryBytes: number;
  /** The WebAssembly memory of the thread (worker) that loaded it, just after the load. */
  wasmMemoryBytes: number;
  loadMs: number;
  /** What the load noticed but did not refuse: tensors of the checkpoint the model did not use
   *  (e.g. config.json's layer count below the checkpoint's). The CLI prints them on stderr. */
  warnings: string[];
}

export interface Encoding {
  /** Vocabulary strings as Hugging Face reports them ("Ġthe" for byte-level BPE). */
  tokens: string[];
  /** Readable form of each token for labels: byte-level BPE decoded, "␣" for a space, "↵"
   *  newline, "⇥" tab, <0xF0> for a byte of a character split across tokens; WordPiece as is. */
  tokenTexts: string[];
  ids: Int32Array;
  typeIds: Int32Array;
  /** 2T values: start0, end0, start1, ...; UTF-16 indices into the input; 0,0 for [CLS]/[SEP]. */
  offsets: Int32Array;
  /** 1 for the [CLS]/[SEP] the template added. */
  specialTokensMask: Uint8Array;
  /** Tokens dropped to fit maxLength. */
  numTruncated: number;
}

export interface TokenizeOptions {
  textPair?: string;
  /** Truncate to this many tokens (Hugging Face longest_first); default the model's position
   *  count, 0 = no truncation. Tokens past it are counted (numTruncated), not kept: a long text
   *  is tokenized in pieces, in bounded memory, where the tokenizer's stages allow it. */
  maxLength?: number;
}

export interface OutputOptions {
  /** Also return hiddenStates ((L+1)·T·C: embeddings, then each layer). */
  hiddenStates?: boolean;
  /** Also return per-head q, k, v (L·H·T·dh; q not scaled). */
  qkv?: boolean;
  /** Also return valueNorms (L·H·T): ‖f(x_j)‖ per key token (Kobayashi et al. 2020). */
  valueNorms?: boolean;
  /** Predictions per [MASK] (models with an MLM head) or after the last token (decoders);
   *  default 5, 0 = none. */
  topK?: number;
  /** Decoders: also the top-k after every position, with the rank of the token that follows
   *  (nextByPosition). */
  nextAll?: boolean;
  /** Encoders: the ids before masking; each maskPredictions entry then has `actual` (the original
   *  token's probability and rank). */
  originalIds?: ArrayLike<number>;
  /** Also return `trace`: every intermediate of every block (README, "The block, step by step"). */
  trace?: boolean;
  /** Also return `logitLens`, with this many tokens per cell: the model's own head applied to the
   *  embeddings and to every layer's output (decoders: final LayerNorm, then the LM head; encoders:
   *  the masked-LM head). Its own run of the same input. E_WEIGHTS for an encoder without an MLM head. */
  logitLens?: number;
  /** Decoders: also return `attribution`, the logit of `tokenId` (default: the top-1 token) at
   *  `position` (default: the last) split into direct contributions. Its own run of the same input. */
  attribution?: true | { tokenId?: number; position?: number };
  /** Also return `flow`: the information flow (Ferrando & Voita 2024, proportion rule), how much
   *  of each residual update came from each part, read from the same pass. */
  flow?: boolean;
  /** Hugging Face's head_mask, [L][H] arrays or L·H values: each head's attention is multiplied by
   *  its value before it weights the values (0 switches the head off). The result's attentions
   *  stay the heads' own; result.headMask says which were changed. */
  headMask?: ArrayLike<number>[] | ArrayLike<number>;
  /** A RunResult from an earlier run (any model) whose memory this run may write into instead of
   *  allocating: for repeated runs, e.g. a benchmark or a live view, where fresh memory for the
   *  maps (151 MB for bert-base at 512 tokens) costs as much as the arithmetic. That result is
   *  released: its arrays are emptied and attention() throws E_DISPOSED. Not available through
   *  the worker client. */
  reuse?: RunResult;
  /** How the attention maps are kept: 'eager' (every map written in full), 'on-demand' (what they
   *  are made of — the queries and keys as the scores use them and each row's softmax statistics —
   *  stays in wasm memory and attention(l, h) computes a head's map when asked, equal to the eager
   *  one bit for bit), or 'auto' (default: on demand only where the maps would exceed 256 MiB and
   *  their sources take less). A run with flow keeps them eagerly. */
  maps?: 'auto' | 'eager' | 'on-demand';
}

export interface RunOptions extends TokenizeOptions, OutputOptions {
  /** Also return `words` and `wordAttentions`: sub-word tokens merged into words (a maximal run of
   *  tokens whose spans touch with no whitespace between them; special tokens alone), attention
   *  to a word summed over its pieces, from a word averaged (Clark et al. 2019). Not with textPair. */
  words?: boolean;
}

/** A frozen figure (attnscope snapshot, <attn-scope src>): one view's matrices and tokens, or (version
 *  2) an encoder–decoder's cross-attention, the logit lens, a flow graph's shares or a patching grid,
 *  or (version 3) an encoder–decoder's patching grid (docs/figure.schema.json). */
export interface FigureData {
  format: 'attnscope-figure';
  /** The lowest version that has all it holds: 1 for head, lines and grid; 2 for cross-attention,
   *  the lens (layers), flow and patching; 3 for an encoder–decoder's patching. */
  version: 1 | 2 | 3;
  model: string;
  modelInfo: { kind: string; config: { numLayers: number; numHeads: number; hiddenSize: number; headDim: number;
    isDecoder: boolean; family: string } };
  /** An encoder–decoder's figure: which of its attentions it holds. */
  kind?: 'enc' | 'dec' | 'cross';
  text: string;
  view: 'head' | 'lines' | 'grid' | 'layers' | 'flow' | 'patching';
  layer: number;
  head: number;
  tokens: string[];
  tokenTexts: string[];
  specialTokensMask: number[];
  offsets: number[];
  /** [L, H, T]; a cross-attention figure's [L, H, T target, S source]. */
  shape: [number, number, number] | [number, number, number, number];
  /** A cross-attention figure's columns: the source's tokens. */
  source?: { tokens: string[]; tokenTexts: string[]; specialTokensMask: number[]; offsets: number[] };
  /** The [layer, head] of each matrix in `attentions` (not in flow and patching figures). */
  heads?: [number, number][];
  /** T·T (cross: T·S) values per head, row-major, rounded to 6 decimals. */
  attentions?: number[][];
  /** A lens figure (view 'layers'): L + 1 rows of T entries, as RunResult.logitLens. */
  lens?: { top: TopEntry[]; finalRank: number; finalProb: number; nextRank?: number | null; nextProb?: number | null }[][];
  /** A flow figure: the FlowShares entries of the graph into `position` at `tau`, each the run's
   *  float32 value ([layer, query, key, share]; heads: H shares per tokens entry; [layer, query, share]). */
  flow?: { position: number; tau: number; layers: number; headCount: number; queries: number; keys: number;
    tokens: [number, number, number, number][]; heads: number[][]; residual: [number, number, number][];
    mlp: [number, number, number][]; mlpResidual: [number, number, number][] };
  /** A patching figure: patch()'s grid (clean and corrupted: the two LDs) of `text` against
   *  corruptedText, with the corrupted prompt's tokens and both runs' top predictions at `position`. */
  patching?: { site: PatchSite; answer: string; wrong: string; corruptedText: string; corruptedTokens: string[];
    corruptedTokenTexts: string[]; position: number; clean: number; corrupted: number; scores: number[][];
    top: { clean: TopEntry[]; corrupted: TopEntry[] };
    /** An encoder–decoder's (version 3, kind 'enc': the sources' tokens): whose sites, the target so
     *  far ('' where the Patching view chose it) and the decoder's input, each stack's [layers, heads]. */
    seq2seq?: { stack: 'decoder' | 'encoder'; prefix: string; targetIds: number[]; targetTokens: string[];
      encoderShape: [number, number]; decoderShape: [number, number] } };
  /** Saved with words (snapshot --words): the word spans, and W·W values per entry of `heads`. */
  words?: Word[];
  wordAttentions?: number[][];
}
export const FIGURE_FORMAT: 'attnscope-figure';
/** The newest version written (an encoder–decoder's patching figure); figureResult reads 1, 2 and 3. */
export const FIGURE_VERSION: 3;
export const FIGURE_VIEWS: readonly ('head' | 'lines' | 'grid' | 'layers' | 'flow' | 'patching')[];
type TopEntry = { id: number; token: string; text: string; prob: number };
/** The figure of one view of a run (E_INPUT for a view a figure cannot draw). flow: a run with
 *  { flow: true }, the prediction's position (default the last) and tau (default 0.04); patching:
 *  a run with topK > 0 and `patching` (patch()'s result for it, the corrupted prompt's run with
 *  topK > 0, its text, answer and wrong; an encoder–decoder's: `result` its run seen as its
 *  encoder's, cleanRun and corruptedRun its runs over the target so far with topK > 0 — the
 *  corrupted one with the source's tokens and tokenTexts — and the prefix text). */
export function figureData(result: RunResult, what: { model: string; info: ModelInfo; text: string;
  view: string; layer: number; head: number; words?: boolean; position?: number; tau?: number;
  patching?: { grid: PatchResult; corruptedRun: RunResult | object; corruptedText: string; answer: string; wrong: string;
    cleanRun?: object; prefix?: string } }): FigureData;
/** A figure read back (E_INPUT for anything that is not one): RunResult fields (with words and
 *  wordAttentions when saved with words), the model info, and covers(view, layer, head, words):
 *  whether it holds every matrix that view draws (as words, when asked). */
export function figureResult(doc: unknown): { fields: RunResultData; info: object;
  /** state: the view state asked for (its `kind`: an encoder–decoder's attention kind; a flow or patching figure's own keys). */
  covers(view: string, layer: number, head: number, words?: boolean, state?: object): boolean; words: boolean; text: string;
  model: string; view: string; layer: number; head: number;
  /** The view state a flow or patching figure was saved at ({ query, flowTau } or the patch* keys); {} otherwise. */
  state: object;
  /** A patching figure's answers to the view's worker jobs (the corrupted run, the grid), or null. */
  jobs: object | null;
  /** A cross-attention figure's source tokens, or null. */
  source: { tokens: string[]; tokenTexts: string[]; specialTokensMask: Uint8Array; offsets: Int32Array } | null;
  /** An encoder–decoder figure's attention kind ('enc' | 'dec' | 'cross'), or null. */
  kind: string | null;
  /** An encoder–decoder's patching figure: the clean source's run over the target so far (as
   *  Seq2SeqModel.run gives it, no attention), or null. */
  seq2seq: object | null };

/** A word of the input: its text, UTF-16 span and the indices of its tokens. */
export interface Word {
  text: string;
  start: number;
  end: number;
  tokens: number[];
}

/** The words of an encoding (see RunOptions.words). */
export function findWords(encoding: { tokens: string[]; tokenTexts?: string[]; offsets: Int32Array;
  specialTokensMask: Uint8Array }, text: string): Word[];
/** One head's T×T probabilities merged into W×W (rows: mean of the pieces; columns: sum). */
export function mergeHead(attention: Float32Array, words: Word[], tokenCount: number, out?: Float32Array): Float32Array;
/** Every head merged: wordAttentions is L·H·W·W. */
export function wordAttentions(result: Pick<RunResultData, 'shape' | 'attentions' | 'tokens' | 'offsets' |
  'specialTokensMask'>, text: string): { words: Word[]; wordAttentions: Float32Array };

export interface RunIdsOptions extends OutputOptions {
  /** Segment ids (default all 0). */
  tokenTypes?: ArrayLike<number>;
  /** 1 = attend, 0 = masked key (default all 1). */
  attentionMask?: ArrayLike<number>;
}

export interface MaskPrediction {
  /** Token index of the [MASK]. */
  position: number;
  /** Most likely first; prob is the softmax over the whole vocabulary. */
  top: { token: string; text: string; id: number; prob: number }[];
  /** With originalIds: the token that was masked, its probability and rank (0 = first choice). */
  actual?: { token: string; text: string; id: number; prob: number; rank: number };
}

export interface TokenProbability {
  token: string;
  /** The token's readable form ("␣river" for "Ġriver"), in next-token predictions and candidates. */
  text?: string;
  id: number;
  /** softmax over the whole vocabulary */
  prob: number;
}

export interface NextTokenPrediction {
  /** The position whose output predicts the token after it. */
  position: number;
  /** Most likely first. */
  top: TokenProbability[];
  /** The token that actually follows, its probability and rank (0 = the model's first choice);
   *  null at the last position. */
  actual: (TokenProbability & { rank: number }) | null;
}

/** One cell of the logit lens: what the residual stream after one layer predicts at one position. */
export interface LogitLensEntry {
  /** Most likely first; prob is the softmax over the whole vocabulary. */
  top: { id: number; token: string; text: string; prob: number }[];
  /** Where the last layer's top-1 token at this position stands here (1 = first). */
  finalRank: number;
  finalProb: number;
  /** Decoders: the rank (1 = first) and probability of the token that actually follows; null at
   *  the last position. Absent for encoders. */
  nextRank?: number | null;
  nextProb?: number | null;
}

/** One part of a direct logit attribution. */
export interface AttributionPart {
  /** Encoder–decoders' decoder side adds cross_head, cross_attention_bias, norm_bias (a post-norm
   *  layer's norms' β, carried through the later norms) and logits_bias (final_logits_bias). */
  kind: 'embeddings' | 'head' | 'attention_bias' | 'mlp' | 'final_norm_bias' | 'cross_head' | 'cross_attention_bias'
    | 'norm_bias' | 'logits_bias';
  /** The layer (head, attention_bias, mlp, their cross and norm_bias kinds), else null. */
  layer: number | null;
  /** The head (kind 'head', 'cross_head'), else null. */
  head: number | null;
  /** What the part adds to the logit: ((p − mean p) / σ ⊙ γ) · W_U[token], σ that position's
   *  final-norm scale; the final norm's bias contributes β · W_U[token]. */
  value: number;
}

export interface Attribution {
  position: number;
  tokenId: number;
  token: string;
  text: string;
  /** The model's own logit for tokenId at position. */
  logit: number;
  /** embeddings; per layer its heads, attention_bias, mlp; final_norm_bias. */
  parts: AttributionPart[];
  /** Σ parts (equals logit up to float rounding). */
  sum: number;
}

/** Each T·C (ffnPreActivation and ffnIntermediate T·F), row-major. Steps a family does not have are absent. */
export interface LayerTrace {
  /** Decoders (pre-LN): the LayerNorm before attention. */
  attentionInputNorm?: Float32Array;
  /** Heads concatenated × W_O + b, before the residual. */
  attentionOutput: Float32Array;
  /** The layer's input + attentionOutput. */
  attentionResidual: Float32Array;
  /** Encoders (post-LN): LayerNorm(attentionResidual). */
  attentionNorm?: Float32Array;
  /** Decoders: LayerNorm(attentionResidual), the feed-forward's input. */
  ffnInputNorm?: Float32Array;
  /** The first linear layer + bias, before the activation: the feed-forward's input · W₁ + b₁
   *  (not for the Llama family, whose gate and up projections are ffnGate and ffnUp). */
  ffnPreActivation?: Float32Array;
  /** After the activation (config.hiddenAct): act(ffnPreActivation). */
  ffnIntermediate: Float32Array;
  /** The second linear layer + bias. */
  ffnOutput: Float32Array;
  /** The feed-forward's input (encoders: attentionNorm; decoders: attentionResidual) + ffnOutput. */
  ffnResidual: Float32Array;
  /** The layer's output (encoders: LayerNorm(ffnResidual); decoders: ffnResidual). */
  output: Float32Array;
  // The Llama family (RMSNorm, rotary, grouped-query attention, SwiGLU) only; attentionInputNorm
  // and ffnInputNorm are its RMSNorms (input_layernorm, post_attention_layernorm).
  /** T·H·dh: x·W_Q + b (q_proj), query heads side by side, before any rotation. */
  qProjection?: Float32Array;
  /** T·KV·dh: x·W_K + b, x·W_V + b (k_proj, v_proj), key/value heads side by side. */
  kProjection?: Float32Array;
  vProjection?: Float32Array;
  /** Qwen3: each head's RMSNorm of qProjection / kProjection (q_norm, k_norm). */
  qHeadNorm?: Float32Array;
  kHeadNorm?: Float32Array;
  /** q and k rotated by their position (what the scores use). */
  qRotated?: Float32Array;
  kRotated?: Float32Array;
  /** T·H·dh: each query head's Σ_j P_ij v_j (over its key/value head), before o_proj. */
  attentionContext?: Float32Array;
  /** T·F: x·W_gate + b, act(that), x·W_up + b; ffnIntermediate = ffnGateActivated · ffnUp. */
  ffnGate?: Float32Array;
  ffnGateActivated?: Float32Array;
  ffnUp?: Float32Array;
}

export interface LayerNormParameters { gamma: Float32Array; beta: Float32Array }

export interface ForwardTrace {
  /** Each T·C: the rows looked up, their sum, and layer 0's input (encoders: LayerNorm(sum)).
   *  Rotary models (the Llama family) have no position table: no position, sum = word. */
  embeddings: { word: Float32Array; position?: Float32Array; tokenType?: Float32Array; sum: Float32Array; output: Float32Array };
  layers: LayerTrace[];
  /** Decoders: the final LayerNorm (GPT-2's ln_f), T·C. */
  finalNorm?: Float32Array;
  /** Every norm's γ and β (C each), to recompute the steps: embeddings (encoders), per layer
   *  the attention and feed-forward sublayers' norms (Qwen3 also each head's qNorm, kNorm: dh),
   *  final (decoders). RMSNorms (the Llama family) have an empty β. */
  layerNorms: { embeddings?: LayerNormParameters; layers: { attention: LayerNormParameters; ffn: LayerNormParameters; qNorm?: LayerNormParameters; kNorm?: LayerNormParameters }[]; final?: LayerNormParameters };
}

/** Information flow of one stack (README, "Information flow"), flat row-major Float32Arrays of
 *  shares in [0, 1]; T = queries, K = keys, H = headCount. Each attention sum's shares (residual +
 *  bias + Σ_j tokens; headsResidual + headsBias + Σ_h,j heads) and each feed-forward's (mlp +
 *  mlpResidual) add to 1 (0 everywhere when the update is zero). */
export interface FlowShares {
  layers: number;
  headCount: number;
  queries: number;
  keys: number;
  /** L·T·K: each key token's Σ_h P v W_O share of query i's attention update; 0 for unseen keys. */
  tokens: Float32Array;
  /** L·T: the residual stream's and W_O's bias's shares of the attention update. */
  residual: Float32Array;
  bias: Float32Array;
  /** L·H·T·K: the same update split per head and key token. */
  heads: Float32Array;
  headsResidual: Float32Array;
  headsBias: Float32Array;
  /** L·T: the feed-forward update's shares: the MLP's output and the residual. */
  mlp: Float32Array;
  mlpResidual: Float32Array;
}

/** An encoder–decoder's decoder adds its cross-attention (K = crossKeys, the source tokens) and
 *  carries the encoder's flow. */
export interface Seq2SeqFlowShares extends FlowShares {
  crossKeys: number;
  crossTokens: Float32Array;
  crossResidual: Float32Array;
  crossBias: Float32Array;
  crossHeads: Float32Array;
  crossHeadsResidual: Float32Array;
  crossHeadsBias: Float32Array;
  encoder: FlowShares;
}

/** A node of the flow graph: the residual stream ('resid') of a position at a level (0: the
 *  embeddings; 2l + 1 after layer l's attention, 2l + 2 after its feed-forward), or layer l's
 *  feed-forward ('ffn', at level 2l + 1, the stream it reads). layer −1: the embeddings. */
export interface FlowNode { id: string; kind: 'resid' | 'ffn'; level: number; layer: number; position: number }
/** An edge: its share of the update it enters; 'token' edges carry key → query and each head's share. */
export interface FlowEdge {
  from: string; to: string; kind: 'token' | 'residual' | 'ffn'; layer: number; query: number; share: number;
  key?: number; heads?: Float32Array;
}
export interface FlowGraph { levels: number; position: number; tau: number; nodes: FlowNode[]; edges: FlowEdge[] }
/** 0.04, the LLM Transparency Tool's threshold. */
export const FLOW_DEFAULT_TAU: number;
/** The routes that reach `position`'s prediction (default: the last) through edges of share ≥ tau
 *  (default 0.04), down to the embeddings (Ferrando & Voita 2024). E_INPUT for a result without
 *  flow, a position out of range or tau outside [0, 1]. */
export function flowGraph(flow: FlowShares, options?: { position?: number; tau?: number }): FlowGraph;
/** The strongest route: from the prediction down, the largest-share incoming edge at each node. */
export function topFlowRoute(graph: FlowGraph): FlowEdge[];

export interface RunResultData extends Encoding {
  /** [layers, heads, tokens, tokens] */
  shape: [number, number, number, number];
  /** L·H·T·T (H query heads); row i of a head = query token i, sums to 1. */
  attentions: Float32Array;
  /** H entries: the key/value head query head h reads (grouped-query attention shares one among
   *  several query heads; q/k/v give each query head its key/value head's k and v). */
  kvHeads: number[];
  /** Last layer output, T·C. */
  hidden: Float32Array;
  hiddenStates?: Float32Array;
  q?: Float32Array;
  k?: Float32Array;
  v?: Float32Array;
  valueNorms?: Float32Array;
  maskPredictions?: MaskPrediction[];
  /** Decoders: the next token after the last position, most likely first. */
  next?: TokenProbability[];
  /** Decoders with nextAll: what the model expected after every position. */
  nextByPosition?: NextTokenPrediction[];
  /** With the trace option. */
  trace?: ForwardTrace;
  /** With the headMask option: the L·H values used. */
  headMask?: Float32Array;
  /** With the logitLens option: [L+1][T], row 0 the embeddings. */
  logitLens?: LogitLensEntry[][];
  /** With the attribution option (decoders). */
  attribution?: Attribution;
  /** With the flow option. */
  flow?: FlowShares;
}

export class RunResult implements RunResultData {
  /** Without kvHeads, every query head has its own key/value head. */
  constructor(fields: Omit<RunResultData, 'kvHeads'> & { kvHeads?: number[] });
  tokens: string[];
  tokenTexts: string[];
  ids: Int32Array;
  typeIds: Int32Array;
  offsets: Int32Array;
  specialTokensMask: Uint8Array;
  numTruncated: number;
  shape: [number, number, number, number];
  attentions: Float32Array;
  kvHeads: number[];
  hidden: Float32Array;
  hiddenStates?: Float32Array;
  q?: Float32Array;
  k?: Float32Array;
  v?: Float32Array;
  valueNorms?: Float32Array;
  maskPredictions?: MaskPrediction[];
  next?: TokenProbability[];
  nextByPosition?: NextTokenPrediction[];
  trace?: ForwardTrace;
  headMask?: Float32Array;
  logitLens?: LogitLensEntry[][];
  attribution?: Attribution;
  flow?: FlowShares;
  /** Set (to the reason) once a later run took this result's memory via options.reuse. */
  readonly released?: string;
  /** One head's T×T matrix (a view into `attentions`; maps on demand: computed on first use). */
  attention(layer: number, head: number): Float32Array;
  /** Bytes this result holds in wasm memory: its maps' sources when kept on demand, else 0. */
  readonly memoryBytes: number;
  /** Whether attention(l, h) computes maps when asked (reading `attentions` computes them all). */
  readonly mapsOnDemand: boolean;
  /** Through the worker client, maps on demand stay in the worker: attention(l, h) then reads only
   *  the last few heads fetched by attentionAsync / attentionsOf (else E_INPUT), and `attentions`
   *  throws E_TOO_LARGE. memoryBytes is then what the run holds in the worker's wasm memory. */
  readonly mapsInWorker: boolean;
  /** One head's map, fetched from the worker first when it is there. */
  attentionAsync(layer: number, head: number): Promise<Float32Array>;
  /** Several heads' maps ([layer, head] pairs), from the worker in one job. */
  attentionsOf(heads: Array<[number, number]>): Promise<Float32Array[]>;
  /** Run with words: true: the words and their attentions (L·H·W·W). */
  words?: Word[];
  wordAttentions?: Float32Array;
  /** One head's W×W word-level matrix (a view into `wordAttentions`; E_INPUT without words). */
  wordAttention(layer: number, head: number): Float32Array;
  /** The typed arrays' buffers, for postMessage transfer lists. */
  transferables(): ArrayBuffer[];
}

export interface GenerateOptions {
  /** Default 20. */
  maxNewTokens?: number;
  /** 0 = greedy; default 1 (Hugging Face's defaults: temperature 1, topK 50, topP 1). */
  temperature?: number;
  /** Sample among the k most likely only; 0 = no limit; default 50. */
  topK?: number;
  /** Nucleus: the smallest set of tokens whose probability reaches topP; default 1. */
  topP?: number;
  /** The sampler's seed (an integer in [0, 2^32)); the same seed gives the same text. Default 0. */
  seed?: number;
  /** Stop after the end-of-text token (config eos_token_id); default true. */
  stopAtEos?: boolean;
  /** How many of the model's top tokens each step reports; default 5. */
  candidates?: number;
  onToken?: (step: GenerationStep) => void;
  /** Aborting stops between two steps; the result rejects with E_ABORTED. */
  signal?: AbortSignal;
  /** Decoders: steering (ActAdd). strength · v is added to the residual stream entering `layer` at
   *  every position of the prompt and of every generated token. */
  steer?: SteerOptions;
}

/** v given (hiddenSize numbers), or the mean residual stream entering `layer` of `to` minus that
 *  of `from` (texts or token ids), each run alone. */
export type SteerOptions =
  | { layer: number; strength: number; vector: ArrayLike<number> }
  | { layer: number; strength: number; from: string | ArrayLike<number>; to: string | ArrayLike<number> };

/** The activation a patching cell replaces: resid_pre, attn_out, mlp_out at (layer, position);
 *  head (that query head's context before W_O) and pattern (its probabilities) at (layer, head). */
export type PatchSite = 'resid_pre' | 'attn_out' | 'mlp_out' | 'head' | 'pattern';

export interface PatchOptions {
  /** Two prompts of the same token length (texts or token ids). */
  clean: string | ArrayLike<number>;
  corrupted: string | ArrayLike<number>;
  /** A token id, a vocabulary token, or text of exactly one token (else E_INPUT naming its pieces). */
  answer: number | string;
  wrong: number | string;
  /** Default 'resid_pre'. */
  site?: PatchSite;
  /** Aborting stops between two rows; the promise rejects with E_ABORTED. */
  signal?: AbortSignal;
  /** Each row (layer) as it is done. */
  onProgress?: (row: PatchRow) => void;
}

export interface PatchRow {
  layer: number;
  scores: number[];
  /** Rows done and rows in all. */
  done: number;
  total: number;
}

export interface PatchResult {
  site: PatchSite;
  /** LD = logit[answer] − logit[wrong] at `position` of the clean and the corrupted run. */
  clean: number;
  corrupted: number;
  /** [L][T] by position or [L][H] by head: (LD_patched − corrupted) / (clean − corrupted). */
  scores: number[][];
  /** Where LD is read: the last position (encoders: the clean prompt's first mask token). */
  position: number;
  layers: number;
  columns: number;
}

export interface GeneratedToken {
  index: number;
  /** Its position in the sequence (prompt positions come first). */
  position: number;
  id: number;
  /** The vocabulary string ("Ġriver"). */
  token: string;
  /** Its readable form ("␣river"). */
  text: string;
  /** Its probability under the model (softmax of the logits, before temperature and filtering). */
  prob: number;
  candidates: TokenProbability[];
}

export interface GenerationStep extends GeneratedToken {
  /** Positions the new token attends over (position + 1). */
  keys: number;
  /** Its attention row in every layer and head: L·H·keys, [layer][head][key]. */
  attention: Float32Array;
}

export interface GenerationResult {
  /** The prompt's ids followed by the generated ones. */
  ids: Int32Array;
  tokens: string[];
  promptLength: number;
  /** Prompt tokens dropped to fit the model's positions. */
  numTruncated: number;
  steps: GeneratedToken[];
  stopReason: 'max-new-tokens' | 'eos' | 'max-positions';
  /** The generated tokens as text (Hugging Face's decode). */
  text: string;
}

/** A generation in progress: iterate it for the steps as they come, await `result` for the whole. */
export interface Generation extends AsyncIterable<GenerationStep> {
  readonly result: Promise<GenerationResult>;
  /** Stops after the step in progress; `result` rejects with E_ABORTED. */
  cancel(): void;
}

/** The one model class: every kind (info.kind) is a Model with one lifecycle and one generation
 *  loop; Seq2SeqModel below types a Model of kind 'encoder-decoder' (`instanceof` works for it). */
export class Model {
  private constructor();
  readonly config: Readonly<ModelConfig>;
  readonly info: Readonly<ModelInfo>;
  readonly kind: 'encoder' | 'decoder';
  readonly disposed: boolean;
  /** The id of the masked-LM mask token ([MASK], <mask>), or -1. */
  readonly maskTokenId: number;
  tokenize(text: string, options?: TokenizeOptions): Encoding;
  run(text: string, options?: RunOptions): Promise<RunResult>;
  runIds(ids: ArrayLike<number>, options?: RunIdsOptions): Promise<RunResult>;
  /** Decoders: writes up to maxNewTokens tokens after the prompt (text or token ids), one KV-cached
   *  step at a time. One generation per model at a time. */
  generate(prompt: string | ArrayLike<number>, options?: GenerateOptions): Generation;
  /** Activation patching: the corrupted prompt with one activation at a time from the clean one. */
  patch(options: PatchOptions): Promise<PatchResult>;
  /** Encoder–decoders only: E_INPUT for this kind. */
  tokenizeTarget(text: string, options?: { maxLength?: number }): Encoding;
  /** -1 when the token is not in the vocabulary. */
  tokenToId(token: string): number;
  idToToken(id: number): string;
  /** The text of token ids, as Hugging Face's tokenizer.decode (special tokens kept). */
  decode(ids: ArrayLike<number>): string;
  /** Frees the model's WebAssembly memory; later calls throw E_DISPOSED. */
  dispose(): void;
}

/** Resolves to a Model; for an encoder-decoder folder (model_type bart, marian, t5) to a
 *  Seq2SeqModel (info.kind 'encoder-decoder'): typed code uses loadSeq2SeqModel. */
export function loadModel(source?: ModelSource, options?: LoadOptions): Promise<Model>;
/** loadModel for an encoder-decoder checkpoint (bart, marian, t5); E_CONFIG for any other. */
export function loadSeq2SeqModel(source?: ModelSource, options?: LoadOptions): Promise<Seq2SeqModel>;

export interface Seq2SeqConfig {
  modelType: 'bart' | 'marian' | 't5';
  isEncoderDecoder: true;
  vocabSize: number;
  hiddenSize: number;
  encoderLayers: number;
  decoderLayers: number;
  encoderHeads: number;
  decoderHeads: number;
  /** T5: d_kv (heads × d_kv may differ from hiddenSize); BART, Marian: hiddenSize / heads. */
  encoderHeadDim: number;
  decoderHeadDim: number;
  encoderFfnDim: number;
  decoderFfnDim: number;
  /** Positions a source, or the decoder's input, may have. */
  maxTokens: number;
  padTokenId: number;
  eosTokenId: number;
  decoderStartTokenId: number;
  activation: string;
  /** T5 "gated-*" feed_forward_proj: the feed-forward is act(x W_gate) · x W_in. */
  gatedFfn: boolean;
  tieWordEmbeddings: boolean;
  /** The norms' epsilon (LayerNorm, or T5's RMSNorm): what a trace's norms are recomputed with. */
  layerNormEps: number;
}

export interface Seq2SeqRunOptions {
  /** Also return encoderValueNorms [Le][He][S], decoderValueNorms [Ld][Hd][T] and crossValueNorms
   *  [Ld][Hd][S]: ‖v_j W_O,h‖ per key of each attention (as RunOptions.valueNorms). */
  valueNorms?: boolean;
  /** Also return logitLens: the decoder side's, [Ld+1][T] (as RunOptions.logitLens; T5 reads each
   *  layer through the decoder's final norm, BART and Marian as it is). */
  logitLens?: number;
  /** Also return attribution: the decoder side's (position: a decoder position, default the last). */
  attribution?: true | { tokenId?: number; position?: number };
  /** Hugging Face's head_mask (the encoder's), decoder_head_mask and cross_attn_head_mask. */
  headMask?: ArrayLike<number>[] | ArrayLike<number>;
  decoderHeadMask?: ArrayLike<number>[] | ArrayLike<number>;
  crossAttnHeadMask?: ArrayLike<number>[] | ArrayLike<number>;
  /** Also return encoderQkv and decoderQkv ({q, k, v} of the self-attentions, [L][H][T][dh]). */
  qkv?: boolean;
  /** run(): the target as text (tokenized with the checkpoint's tokenizer). */
  target?: string;
  /** The target's ids; the decoder runs over decoderStartTokenId followed by them. */
  targetIds?: ArrayLike<number>;
  /** How many next-token predictions after the last position; default 5. */
  topK?: number;
  maxLength?: number;
  /** Also return decoderTrace: every step of every decoder layer. */
  trace?: boolean;
  /** Also return every target position's logits (result.logits, [T][V]); default false. */
  logits?: boolean;
  /** Also return flow: the information flow of the decoder and (flow.encoder) the encoder. */
  flow?: boolean;
  /** As RunOptions.maps; an encoder–decoder keeps its maps whole: 'on-demand' is refused (E_CONFIG). */
  maps?: 'auto' | 'eager';
}

/** One decoder layer step by step, each [T][C] but ffnPreActivation and ffnIntermediate [T][F].
 *  BART, Marian (post-LN) have the *Norm steps after each residual; T5 (pre-RMSNorm) the *InputNorm
 *  steps before each sublayer; the steps a family does not have are absent. */
export interface Seq2SeqDecoderLayerTrace {
  selfAttentionInputNorm?: Float32Array;
  /** The sublayer's projection through W_O, before its residual. */
  selfAttentionOutput: Float32Array;
  selfAttentionResidual: Float32Array;
  selfAttentionNorm?: Float32Array;
  crossAttentionInputNorm?: Float32Array;
  crossAttentionOutput: Float32Array;
  crossAttentionResidual: Float32Array;
  crossAttentionNorm?: Float32Array;
  ffnInputNorm?: Float32Array;
  /** x W_in (+ b) before the activation; T5's gated feed-forward: x W_gate (wi_0). */
  ffnPreActivation: Float32Array;
  /** What W_out reads (gated: act(x W_gate) · x W_in). */
  ffnIntermediate: Float32Array;
  ffnOutput: Float32Array;
  ffnResidual: Float32Array;
  output: Float32Array;
  /** [T][Hd·dh]: the self-attention's values (each head's Σ α v reads its dh columns). */
  selfValues: Float32Array;
  /** [S][Hd·dh]: the cross-attention's values over the source. */
  crossValues: Float32Array;
}

export interface Seq2SeqNorm { gamma: Float32Array; beta?: Float32Array }

export interface Seq2SeqDecoderTrace {
  /** [T][C]: what decoder layer 0 reads. */
  embeddings: Float32Array;
  layers: Seq2SeqDecoderLayerTrace[];
  /** T5: the decoder's final norm of the last output (= hidden). */
  finalNorm?: Float32Array;
  norms: { layers: { selfAttention: Seq2SeqNorm; crossAttention: Seq2SeqNorm; ffn: Seq2SeqNorm }[]; final?: Seq2SeqNorm };
}

/** Attentions are flat, row-major, in transformers' layout and names. */
export interface Seq2SeqRunResult {
  modelType: string;
  sourceIds: Int32Array;
  sourceTokens: string[];
  /** The decoder's input: decoderStartTokenId, then the target. */
  targetIds: Int32Array;
  targetTokens: string[];
  /** [Le][He][S][S] */
  encoderAttentions: Float32Array;
  /** [Ld][Hd][T][T], causal: exact zeros above the diagonal. */
  decoderAttentions: Float32Array;
  /** [Ld][Hd][T][S]: each target position over the source. */
  crossAttentions: Float32Array;
  encoderShape: [number, number, number, number];
  decoderShape: [number, number, number, number];
  crossShape: [number, number, number, number];
  /** [T][C]: the decoder's last hidden state (T5: after its final norm). */
  hidden: Float32Array;
  hiddenSize: number;
  next: { id: number; token: string; prob: number }[];
  /** With { trace: true }. */
  decoderTrace?: Seq2SeqDecoderTrace;
  /** [T][V]: the next-token logits at every decoder position; only with options.logits. */
  logits?: Float32Array;
  /** With { flow: true }. */
  flow?: Seq2SeqFlowShares;
  /** With { valueNorms: true }. */
  encoderValueNorms?: Float32Array;
  decoderValueNorms?: Float32Array;
  crossValueNorms?: Float32Array;
  /** With the logitLens option: the decoder side's [Ld+1][T], row 0 its embeddings. */
  logitLens?: LogitLensEntry[][];
  /** With the attribution option: the decoder side's. */
  attribution?: Attribution;
}

export interface Seq2SeqGenerationStep {
  id: number;
  token: string;
  prob: number;
  candidates: { id: number; token: string; prob: number }[];
  /** Target positions the step's query attends over. */
  keys: number;
  /** [Ld][Hd][keys]: the step's self-attention row. */
  decoderAttentions: Float32Array;
  /** [Ld][Hd][S]: the step's cross-attention row over the source. */
  crossAttentions: Float32Array;
}

export interface Seq2SeqGenerationResult {
  sourceIds: Int32Array;
  sourceTokens: string[];
  /** decoderStartTokenId, then the generated ids. */
  ids: Int32Array;
  tokens: string[];
  text: string;
  encoderAttentions: Float32Array;
  encoderShape: [number, number, number, number];
  steps: Seq2SeqGenerationStep[];
  stopReason: 'max-new-tokens' | 'eos' | 'max-positions';
}

/** An encoder-decoder model (BART, Marian, T5): encoder, decoder and the cross-attention between. */
export class Seq2SeqModel {
  private constructor();
  readonly config: Readonly<Seq2SeqConfig>;
  readonly kind: 'encoder-decoder';
  readonly info: Readonly<Omit<ModelInfo, 'config' | 'kind' | 'hasMlmHead'> & { kind: 'encoder-decoder'; config: Seq2SeqConfig;
    /** Target text has its own tokenizer (Marian's target.spm). */
    separateTargetTokenizer: boolean }>;
  readonly disposed: boolean;
  tokenize(text: string, options?: { maxLength?: number }): Encoding;
  /** Target text as the checkpoint's target tokenizer reads it (Marian: target.spm; else as tokenize). */
  tokenizeTarget(text: string, options?: { maxLength?: number }): Encoding;
  /** -1 when the token is not in the vocabulary. */
  tokenToId(token: string): number;
  idToToken(id: number): string;
  /** The text of token ids as target text (Marian: with target.spm), special tokens kept. */
  decode(ids: ArrayLike<number>): string;
  run(source: string, options?: Seq2SeqRunOptions): Promise<Seq2SeqRunResult>;
  runIds(sourceIds: ArrayLike<number>, options?: Omit<Seq2SeqRunOptions, 'target'>): Promise<Seq2SeqRunResult>;
  /** The target token by token over the decoder's KV cache; the source's cross keys and values
   *  are computed once. temperature 0 is greedy. */
  generate(source: string | ArrayLike<number>, options?: Omit<GenerateOptions, 'onToken'> &
    { maxLength?: number; onToken?: (step: Seq2SeqGenerationStep) => void }): Promise<Seq2SeqGenerationResult>;
  /** Activation patching: the sources differ (clean, corrupted), the decoder's input is the same
   *  (decoder_start_token_id, then target or targetIds); LD at its last position; the decoder's
   *  sites (default) or the encoder's. steer in generate(): the decoder's residual stream, from/to
   *  as target texts or ids run over the source. */
  patch(options: PatchOptions & { target?: string; targetIds?: ArrayLike<number>; stack?: 'decoder' | 'encoder' }):
    Promise<PatchResult & { stack: 'decoder' | 'encoder' }>;
  dispose(): void;
}

export type HeadStatistic = 'entropy' | 'meanDistance' | 'previousShare' | 'nextShare' | 'selfShare' | 'firstMass' | 'clsMass' | 'sepMass';
export const HEAD_STATISTICS: readonly HeadStatistic[];
/** Per head, the mean over every query row of the runs: attention entropy (nats), mean distance,
 *  share on the previous / next / same token, mass on the first token, on [CLS] (a special token
 *  at position 0) and on the other special tokens. */
export function headStatistics(runs: RunResultData | RunResultData[]): ({ layer: number; head: number; rows: number } & Record<HeadStatistic, number>)[];

/** The induction test input (Olsson et al. 2022): n distinct random ids (seeded; not bos, eos or
 *  pad) twice in a row, after the model's bos when it has one. `first`: position of the first copy. */
export const INDUCTION_DEFAULTS: Readonly<{ length: number; seed: number }>;
export interface InductionInput { ids: number[]; first: number; length: number; }
export function inductionInput(config: { vocabSize: number; bosTokenId?: number; eosTokenId?: number; padTokenId?: number },
  options?: { length?: number; seed?: number }): InductionInput;
/** Per head (layer-major): mean weight from each token of the second copy to the token after
 *  its earlier occurrence. */
export function inductionScores(run: RunResultData, input: InductionInput): Float64Array;
/** Runs inductionInput() through `runner` (a Model or a worker client) and scores every head. */
export function measureInduction(runner: { runIds(ids: number[], options?: object): Promise<RunResultData> },
  config: { vocabSize: number; bosTokenId?: number; eosTokenId?: number; padTokenId?: number },
  options?: { length?: number; seed?: number; signal?: AbortSignal }): Promise<{ scores: Float64Array; input: InductionInput }>;
/** Per head, the change in mean log-probability of what the model should predict (decoders: each
 *  next token; encoders: every maskEvery-th token masked in turn) when that head alone is switched
 *  off; negative = the head helps. */
export function ablationEffects(model: Model, texts: string[], options?: { maskEvery?: number; onProgress?: (p: { done: number; total: number }) => void; signal?: AbortSignal }):
  Promise<{ baseline: number; heads: { layer: number; head: number; delta: number }[] }>;

/** Deletes the browser Cache Storage entries of downloaded models (false where there is none). */
export function clearModelCache(): Promise<boolean>;

export const DEFAULT_HUB_URL: string;
/** The base URL hub files of `id` are fetched from. */
export function hubUrlFor(id: string, options?: { hubUrl?: string; revision?: string }): string;
/** Where the bundled model lives (a folder path in Node, a URL in browsers). */
export const bundledModelLocation: string;
/** Where each bundled model lives: the BERT ('bundled'), the small GPT-2 ('bundled-causal') and the
 *  small T5 ('bundled-seq2seq'). */
export const bundledModelLocations: Readonly<{ bundled: string; 'bundled-causal': string; 'bundled-seq2seq': string }>;
/** One file of a bundled model (a path in Node, a URL in browsers), or null for an unknown model
 *  or, in browsers, a file the package does not list: e.g. bundledModelFile('bundled-seq2seq',
 *  'heldout.jsonl'), the held-out pairs with their known source → target token alignment. */
export function bundledModelFile(name: 'bundled' | 'bundled-causal' | 'bundled-seq2seq', file: string): string | null;

/** WebAssembly heap diagnostics: malloc'd bytes in use, and the wasm memory size. */
export function heapStats(options?: { threads?: number }): Promise<{ inUse: number; memoryBytes: number }>;
/** relaxedSimd: this realm runs the relaxed-SIMD build (browsers with relaxed SIMD; GEMM on FMA).
 *  maxMemoryBytes: what the module's memory may grow to (wasm32: 4 GB).
 *  build: 'full' (buildInfo describes the full build; the core one pages load for most models,
 *  engine/build_features.h, is not asked here).
 *  analyses: the build runs the logit lens, attribution, flow, patching and steering (every build
 *  but the encoder one, which a model leaves for the core build before its first such call).
 *  q8Kernel: the int8 GEMM's dot-product instruction (the relaxed build's fused dot-add where the
 *  engine computes it exactly). */
export function buildInfo(options?: { threads?: number }): Promise<{ target: string; simd: boolean; relaxedSimd: boolean;
  threads: boolean; maxThreads: number; maxMemoryBytes: number; exceptions: string; q8Kernel: string; compiler: string;
  build: 'full'; analyses: boolean }>;
