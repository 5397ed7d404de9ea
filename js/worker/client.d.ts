// Types for 'attnscope/worker': a Model's surface, run in a Web Worker / Node worker_thread.
import type {
  Encoding, GenerateOptions, GenerationResult, PatchOptions, PatchResult, LoadOptions, ModelInfo, ModelSource, RunIdsOptions, RunOptions, RunResult,
  Seq2SeqRunOptions, Seq2SeqRunResult, TokenizeOptions,
} from '../index.js';

export interface JobOptions {
  /** Aborting rejects a queued job with E_ABORTED (and interrupts a load in progress). */
  signal?: AbortSignal;
}

export interface RunJobOptions extends JobOptions {
  /** Cancel every queued, not yet started run first (the newest input wins). */
  replacePending?: boolean;
}

/** A run's options through the worker: all of a Model's except `reuse` (results are transferred
 *  to the caller, so the worker never holds a previous result's memory; passing it rejects with
 *  E_INPUT). */
export type WorkerRunOptions = Omit<RunOptions, 'reuse'> & RunJobOptions;
export type WorkerRunIdsOptions = Omit<RunIdsOptions, 'reuse'> & RunJobOptions;

export interface CorpusJobOptions extends JobOptions {
  /** Called after each time slice with { done, total } (sentences, or runs of an ablation). */
  onProgress?: (progress: { done: number; total: number; [more: string]: unknown }) => void;
  /** How long the worker works before answering (ms, default 50): jobs queued meanwhile, such
   *  as a typed character's run, go between two slices. */
  sliceMs?: number;
}

/** A sentence of corpus(): its text, or [text, words] with words [start, end, class] (UTF-16
 *  character spans, class an index into your POS class list). */
export type CorpusSentence = string | [string, [number, number, number][]];

export interface CorpusOptions extends CorpusJobOptions {
  /** How many POS classes the words use (required when sentences carry words). */
  classes?: number;
  /** Bytes of q/k vectors the worker keeps, whole layers (default 128 MiB); a map of a layer
   *  not kept runs the sentences again. */
  qkBudgetBytes?: number;
}

export interface CorpusSummary {
  sentences: number;
  tokens: number;
  /** [layers, heads] */
  shape: [number, number];
  headDim: number;
  /** Time the worker spent (ms). */
  ms: number;
  /** headStatistics() over every sentence. */
  headStats: ({ layer: number; head: number; rows: number } & Record<string, number>)[];
  /** posAttention() over the tagged sentences, or null. */
  pos: { mass: Float64Array; queries: Float64Array } | null;
  /** Per sentence: readable token texts, UTF-16 offsets, each token's POS class (−1: none). */
  runs: { tokens: string[]; offsets: Int32Array; classes: Int32Array }[];
  /** Layers whose q/k the worker keeps, and their memory. */
  qk: { layers: number[]; bytesPerLayer: number; bytes: number; budgetBytes: number };
}

/** queryKeyMap() of one head over the corpus, plus where it was computed from. */
export interface CorpusMap {
  points: Float32Array;
  kinds: Uint8Array;
  runs: Int32Array;
  positions: Int32Array;
  components: Float64Array;
  variance: [number, number];
  layer: number;
  head: number;
  /** The projection's time in the worker (ms). */
  projectionMs: number;
  /** When the layer's q/k were not kept: the time to run the sentences again (ms), else null. */
  rerunMs: number | null;
  qk: CorpusSummary['qk'];
}

/** Every option given is passed to the model in the worker; a name a call does not accept
 *  (e.g. a typo) rejects with E_INPUT naming it, before anything is sent. */
export interface WorkerClient {
  /** Loads (replacing any previous model in the worker); resolves to the model's info. */
  load(source?: ModelSource, options?: LoadOptions): Promise<ModelInfo>;
  run(text: string, options?: WorkerRunOptions): Promise<RunResult>;
  runIds(ids: ArrayLike<number>, options?: WorkerRunIdsOptions): Promise<RunResult>;
  /** Encoder-decoder models (bart, marian, t5): as Seq2SeqModel.runIds / run. */
  runSeq2SeqIds(sourceIds: ArrayLike<number>, options?: Omit<Seq2SeqRunOptions, 'target' | 'maxLength'> & JobOptions): Promise<Seq2SeqRunResult>;
  runSeq2Seq(source: string, options?: Seq2SeqRunOptions & JobOptions): Promise<Seq2SeqRunResult>;
  tokenize(text: string, options?: TokenizeOptions & JobOptions): Promise<Encoding>;
  /** Encoder-decoders: target text through the model's target tokenizer (Marian: target.spm). */
  tokenizeTarget(text: string, options?: { maxLength?: number } & JobOptions): Promise<Encoding>;
  /** Decoders: generates in the worker, each step to options.onToken as it arrives (before the
   *  first, options.onPrompt gets the prompt's own attention rows, steered when steer is given);
   *  the signal (or cancel()) stops it between two steps with E_ABORTED. */
  generate(prompt: string | ArrayLike<number>, options?: GenerateOptions &
    { onPrompt?: (prompt: { attentions: Float32Array; shape: [number, number, number, number] }) => void }): Promise<GenerationResult>;
  /** Activation patching in the worker: one job, each row to options.onProgress as it is done;
   *  the signal (or cancel()) stops it between two rows with E_ABORTED. */
  patch(options: PatchOptions): Promise<PatchResult>;
  /** Runs the sentences in the worker, keeping there the head statistics, POS sums and q/k
   *  (time slices: other jobs run in between). A later load() drops it. */
  corpus(sentences: CorpusSentence[], options?: CorpusOptions): Promise<CorpusSummary>;
  /** One head's query/key map over the last corpus() (E_INPUT if none), in the worker. */
  corpusMap(layer: number, head: number, options?: CorpusJobOptions): Promise<CorpusMap>;
  /** ablationEffects(model, texts) in the worker, as one job in time slices. */
  ablationEffects(texts: string[], options?: CorpusJobOptions & { maskEvery?: number }):
    Promise<{ baseline: number; heads: { layer: number; head: number; delta: number }[]; ms: number }>;
  /** Frees the model in the worker. */
  dispose(): Promise<null>;
  /** Rejects every queued job with E_ABORTED and interrupts a load or generation in progress. */
  cancel(): void;
  /** Stops the worker; pending and later calls reject with E_DISPOSED. */
  terminate(): Promise<void>;
}

export function createWorkerClient(): WorkerClient;
