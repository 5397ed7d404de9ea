// Types for 'attnscope/worker': a Model's surface, run in a Web Worker / Node worker_thread.
import type {
  Encoding, GenerateOptions, GenerationResult, LoadOptions, ModelInfo, ModelSource, RunIdsOptions, RunOptions, RunResult,
  TokenizeOptions,
} from './index.js';

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

/** Every option given is passed to the model in the worker; a name a call does not accept
 *  (e.g. a typo) rejects with E_INPUT naming it, before anything is sent. */
export interface WorkerClient {
  /** Loads (replacing any previous model in the worker); resolves to the model's info. */
  load(source?: ModelSource, options?: LoadOptions): Promise<ModelInfo>;
  run(text: string, options?: WorkerRunOptions): Promise<RunResult>;
  runIds(ids: ArrayLike<number>, options?: WorkerRunIdsOptions): Promise<RunResult>;
  tokenize(text: string, options?: TokenizeOptions & JobOptions): Promise<Encoding>;
  /** Decoders: generates in the worker, each step to options.onToken as it arrives; the signal
   *  (or cancel()) stops it between two steps with E_ABORTED. */
  generate(prompt: string | ArrayLike<number>, options?: GenerateOptions): Promise<GenerationResult>;
  /** Frees the model in the worker. */
  dispose(): Promise<null>;
  /** Rejects every queued job with E_ABORTED and interrupts a load or generation in progress. */
  cancel(): void;
  /** Stops the worker; pending and later calls reject with E_DISPOSED. */
  terminate(): Promise<void>;
}

export function createWorkerClient(): WorkerClient;
