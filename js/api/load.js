// loadModel(): reads a Hugging Face model folder from any provider (sources.js) into a Model.
// Order: config.json (validated before anything big is downloaded), tokenizer files, then
// model.safetensors streamed through the engine, which converts each tensor as its bytes arrive,
// so the file never exists whole anywhere. Sizes are checked against the 4 GB wasm32 limit three
// times: from config.json (memory-estimate.js) before anything else is downloaded, from the
// file's announced size before its bytes, and by the engine from its header before the weights
// are allocated.
import { AttnScopeError, callerCallback, checkSignal, throwIfAborted, toAttnScopeError } from '../formats/errors.js';
import { resolveSource } from './sources.js';
import { callWasm, coreBuildRuns, encoderBuildRuns, getWasmModule, notInThisBuild, resolveThreads } from './wasm.js';
import { Model } from './model.js';
import { LOAD_OPTIONS, checkOptionNames } from './options.js';
import { unusedWeightWarnings } from './unused-weights.js';
import {
  DEFAULT_WEIGHT_PRECISION, WASM32_MAX_BYTES, checkFitsWasm32, checkWeightPrecision, resolveWeightPrecision,
  checkSeq2SeqFitsWasm32, resolveSeq2SeqPrecision,
} from './memory-estimate.js';

const MAX_TEXT_FILE = 256 * 1024 ** 2;     // config / vocab / tokenizer.json
const PIECE = 1024 ** 2;                   // bytes copied into wasm memory per call

/**
 * @param {unknown} [source] see index.d.ts ModelSource
 * @param {{onProgress?: Function, signal?: AbortSignal, hubUrl?: string, revision?: string, cache?: boolean,
 *          weightPrecision?: 'f32' | 'f16' | 'q8' | 'auto', threads?: number}} [options]
 * @returns {Promise<Model>}
 */
export async function loadModel(source, options = {}) {
  if (options === null || typeof options !== 'object') throw new AttnScopeError('E_INPUT', 'options must be an object');
  checkOptionNames(options, LOAD_OPTIONS, 'loadModel');   // e.g. weightPrecison would load f32 silently
  const { signal, weightPrecision: requestedPrecision = DEFAULT_WEIGHT_PRECISION } = options;
  if (options.onProgress !== undefined && typeof options.onProgress !== 'function') {
    throw new AttnScopeError('E_INPUT', 'onProgress must be a function');
  }
  const onProgress = callerCallback(options.onProgress, 'loadModel: onProgress');
  checkWeightPrecision(requestedPrecision);
  if (options.analyses !== undefined && typeof options.analyses !== 'boolean') {
    throw new AttnScopeError('E_INPUT', `analyses must be true or false, got ${JSON.stringify(options.analyses)}`);
  }
  checkSignal(signal, 'loadModel');
  throwIfAborted(signal);
  const started = Date.now();
  try {
    const threads = resolveThreads(options.threads);
    const provider = await resolveSource(source, options);
    await provider.check();
    const files = {};
    const read = (name, required) => readText(provider, name, { required, signal, onProgress, files });
    const readBinary = (name, required) => readBytes(provider, name, { required, signal, onProgress, files });

    // Everything small is read and validated before the weights, so a wrong model or broken
    // tokenizer files fail before a download of hundreds of megabytes. config.json comes first:
    // it says which wasm build the model needs (the encoder or the core one where it does).
    const configText = await read('config.json', true);
    // (The encoder build leaves out the analyses: a model that will run them loads on the core one.)
    const encoder = !options.analyses && encoderBuildRuns(configText, requestedPrecision);
    let wasm = await getWasmModule({ threads, core: coreBuildRuns(configText, requestedPrecision), encoder });
    let heapBefore = wasm.heapStats().inUse;
    if (typeof wasm.isSeq2SeqConfig === 'function' && callWasm(() => wasm.isSeq2SeqConfig(configText))) {
      return await loadSeq2Seq(wasm, provider, configText, { read, readBinary, signal, onProgress, files, requestedPrecision, threads, started, heapBefore });
    }
    const config = callWasm(() => wasm.parseConfig(configText));
    // The model's size is known from its config: one that cannot fit wasm32 at this precision
    // fails now, before its tokenizer files and weights are downloaded.
    const weightPrecision = resolveWeightPrecision(config, requestedPrecision, wasm.heapStats().inUse);
    checkFitsWasm32(config, weightPrecision, wasm.heapStats().inUse);
    const tok = await readTokenizerFiles(read, provider.location);
    let tokenizerVocabSize;
    try {
      tokenizerVocabSize = callWasm(() => wasm.checkTokenizer(...tokenizerArgs(tok)));
    } catch (error) {
      // A BERT whose tokenizer files need what the encoder build left out (a BPE tokenizer.json,
      // say) loads on the core build, which has every tokenizer.
      if (!encoder || !notInThisBuild(error)) throw error;
      wasm = await getWasmModule({ threads, core: true });
      heapBefore = wasm.heapStats().inUse;
      tokenizerVocabSize = callWasm(() => wasm.checkTokenizer(...tokenizerArgs(tok)));
    }
    if (tokenizerVocabSize > config.vocabSize) {
      throw new AttnScopeError('E_TOKENIZER', `the vocabulary has ${tokenizerVocabSize} tokens but config.json ` +
        `says vocab_size = ${config.vocabSize}: tokenizer and model do not match`);
    }

    const weights = await readWeights(wasm, provider, configText, { signal, onProgress, files, weightPrecision });
    let native, warnings;
    try {
      throwIfAborted(signal);
      native = callWasm(() => new wasm.Model(configText, weights, ...tokenizerArgs(tok)));
      warnings = unusedWeightWarnings(weights.untakenTensors(), { '': config.numLayers });
    } finally {
      weights.delete(); // the Model took the tensors; this frees what is left
    }
    const heap = wasm.heapStats();
    const info = {
      source: provider.kind,
      location: provider.location,
      ...(provider.id ? { id: provider.id } : {}),
      files,
      config: callWasm(() => native.config()),
      hasMlmHead: !config.isDecoder && native.hasLmHead(),
      kind: config.isDecoder ? 'decoder' : 'encoder',
      tokenizerVocabSize: native.tokenizerVocabSize(),
      tokenizer: tok.kind,
      weightPrecision,
      // Threads its runs use: what was asked (or the default), within the module's pool; 1 where
      // the platform has no shared memory (a page that is not cross-origin isolated).
      threads: native.setThreads(threads),
      // What the model holds in wasm memory (weights, tokenizer), measured as the heap's growth
      // over the load, and the WebAssembly memory of this thread (worker) after it.
      memoryBytes: Math.max(0, heap.inUse - heapBefore),
      wasmMemoryBytes: heap.memoryBytes,
      loadMs: Date.now() - started,
      warnings,
    };
    // The same source and options (not this load's signal and progress) where the analyses are.
    const loadWithAnalyses = wasm.buildInfo().analyses === false
      ? () => loadModel(source, { ...options, signal: undefined, onProgress: undefined, analyses: true })
      : null;
    return new Model(wasm, native, info, loadWithAnalyses);
  } catch (error) {
    throw toAttnScopeError(error);
  }
}

/** loadModel() for an encoder-decoder checkpoint: E_CONFIG for any other (index.d.ts types it). */
export async function loadSeq2SeqModel(source, options = {}) {
  const model = await loadModel(source, options);
  if (model.kind === 'encoder-decoder') return model;
  model.dispose();
  throw new AttnScopeError('E_CONFIG', `config.json: "model_type": "${model.config.modelType}" is not an encoder-decoder model (bart, marian, t5)`);
}

// An encoder-decoder checkpoint (bart, marian, t5): config.json checked by the engine's seq2seq
// reader and against wasm32's memory (memory-estimate.js: 'auto' is f16 above its threshold, as
// for other models; 'q8' as for every model: int8 linear layers, embeddings f16), the tokenizer
// files, then the weights streamed as for every model.
async function loadSeq2Seq(wasm, provider, configText, { read, readBinary, signal, onProgress, files, requestedPrecision, threads, started, heapBefore }) {
  // The engine's reader first (E_CONFIG naming a key of the wrong type or range), so the size
  // estimate only sees values it accepts; the estimate itself refuses a missing size key.
  callWasm(() => wasm.seq2seqMaxTokens(configText));
  const hf = JSON.parse(configText);
  const weightPrecision = resolveSeq2SeqPrecision(hf, requestedPrecision);
  checkSeq2SeqFitsWasm32(hf, weightPrecision, wasm.heapStats().inUse);
  const tok = await readTokenizerFiles(read, provider.location, readBinary);
  callWasm(() => wasm.checkTokenizer(...tokenizerArgs(tok)));
  const weights = await readWeights(wasm, provider, configText, { signal, onProgress, files, weightPrecision });
  let native, warnings;
  try {
    throwIfAborted(signal);
    native = callWasm(() => wasm.createSeq2SeqModel(configText, weights, ...tokenizerArgs(tok)));
    const config = callWasm(() => native.config());
    warnings = unusedWeightWarnings(weights.untakenTensors(),
      { encoder: config.encoderLayers, decoder: config.decoderLayers });
  } finally {
    weights.delete();
  }
  const heap = wasm.heapStats();
  // gatedFfn (T5's "gated-*" feed_forward_proj) as the engine's reader decided it: the Block view
  // names the feed-forward by it, and a trace's ffnIntermediate is act(ffnPreActivation) only without it.
  const config = callWasm(() => native.config());
  if (native.tokenizerVocabSize() > config.vocabSize) {
    native.delete();
    throw new AttnScopeError('E_TOKENIZER', `the vocabulary has ${native.tokenizerVocabSize()} tokens but config.json ` +
      `says vocab_size = ${config.vocabSize}: tokenizer and model do not match`);
  }
  return new Model(wasm, native, {
    source: provider.kind, location: provider.location, ...(provider.id ? { id: provider.id } : {}), files, config,
    kind: 'encoder-decoder', tokenizerVocabSize: native.tokenizerVocabSize(), tokenizer: tok.kind,
    separateTargetTokenizer: native.hasTargetTokenizer(), weightPrecision,
    threads: native.setThreads(threads), memoryBytes: Math.max(0, heap.inUse - heapBefore), wasmMemoryBytes: heap.memoryBytes,
    loadMs: Date.now() - started, warnings,
  });
}

/**
 * The tokenizer files of a folder, in the order the engine prefers them: tokenizer.json, else
 * vocab.txt (WordPiece), else vocab.json + merges.txt (byte-level BPE), else vocab.json with
 * Marian's source.spm + target.spm (SentencePiece models, binary: read with `readBinary`);
 * tokenizer_config.json with any of them. `read(name, required)` resolves to the text or null,
 * `readBinary(name, required)` to the bytes or null.
 */
export async function readTokenizerFiles(read, location, readBinary) {
  const tokenizerJson = await read('tokenizer.json', false);
  const vocab = tokenizerJson === null ? await read('vocab.txt', false) : null;
  const vocabJson = tokenizerJson === null && vocab === null ? await read('vocab.json', false) : null;
  const merges = vocabJson !== null ? await read('merges.txt', false) : null;
  // Marian: vocab.json without merges.txt, and the two SentencePiece models.
  const sourceSpm = vocabJson !== null && merges === null && readBinary ? await readBinary('source.spm', false) : null;
  const targetSpm = sourceSpm !== null ? await readBinary('target.spm', false) : null;
  if (sourceSpm !== null && targetSpm === null) {
    throw new AttnScopeError('E_TOKENIZER', `source.spm without target.spm at ${location}: a Marian tokenizer needs both`);
  }
  if (tokenizerJson === null && vocab === null && (vocabJson === null || (merges === null && sourceSpm === null))) {
    throw new AttnScopeError('E_TOKENIZER', `no tokenizer.json or vocab.txt (nor vocab.json + merges.txt, nor Marian's ` +
      `vocab.json + source.spm + target.spm) at ${location}`);
  }
  const tokenizerConfig = await read('tokenizer_config.json', false);
  const kind = tokenizerJson !== null ? 'tokenizer.json' : vocab !== null ? 'vocab.txt'
    : merges !== null ? 'vocab.json+merges.txt' : 'source.spm+target.spm+vocab.json';
  return { tokenizerJson, vocab, vocabJson, merges, sourceSpm, targetSpm, tokenizerConfig, kind };
}

/** The engine's tokenizer arguments: vocab.txt, tokenizer.json, tokenizer_config.json, vocab.json,
 *  merges.txt ('' for a file the folder does not have), source.spm and target.spm (bytes). */
export function tokenizerArgs(t) {
  return [t.vocab ?? '', t.tokenizerJson ?? '', t.tokenizerConfig ?? '', t.vocabJson ?? '', t.merges ?? '',
    t.sourceSpm ?? '', t.targetSpm ?? ''];
}

function megabytes(bytes) {
  return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
}

export async function readText(provider, name, options) {
  const bytes = await readBytes(provider, name, options);
  if (bytes === null) return null;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new AttnScopeError(name === 'config.json' ? 'E_CONFIG' : 'E_TOKENIZER', `${name} is not valid UTF-8 text`);
  }
}

/** A small file's bytes (Marian's .spm models), with readText's limits; null when absent and not required. */
export async function readBytes(provider, name, { required, signal, onProgress, files }) {
  throwIfAborted(signal);
  const entry = await provider.open(name, { signal, required });
  if (entry === null) {
    if (required) throw new AttnScopeError('E_NOT_FOUND', `${name} not found: ${provider.describe(name)}`);
    return null;
  }
  if (entry.size !== undefined && entry.size > MAX_TEXT_FILE) {
    throw new AttnScopeError('E_TOO_LARGE', `${name} is ${megabytes(entry.size)}; files above ${megabytes(MAX_TEXT_FILE)} are refused`);
  }
  const parts = [];
  let loaded = 0;
  for await (const chunk of entry.chunks) {
    loaded += chunk.byteLength;
    if (loaded > MAX_TEXT_FILE) throw new AttnScopeError('E_TOO_LARGE', `${name} is larger than ${megabytes(MAX_TEXT_FILE)}`);
    parts.push(chunk);
    onProgress?.({ file: name, loaded, total: entry.size });
  }
  if (entry.size !== undefined && loaded !== entry.size) {
    throw new AttnScopeError('E_NETWORK', `${provider.describe(name)}: got ${loaded} of ${entry.size} bytes`);
  }
  files[name] = loaded;
  return concat(parts, loaded);
}

// model.safetensors streamed through a wasm WeightUpload: every piece is passed on as it
// arrives and converted in place (to f32, or the weight matrices to f16 with weightPrecision
// 'f16' and 'q8', which quantizes them to int8 when the model is built), so neither JavaScript
// nor wasm memory ever holds the whole file. The engine checks the header (and that the weights
// fit in wasm32's 4 GB) as soon as it is complete, before the tensors are allocated.
async function readWeights(wasm, provider, configText, { signal, onProgress, files, weightPrecision }) {
  const name = 'model.safetensors';
  throwIfAborted(signal);
  let entry;
  try {
    entry = await provider.open(name, { signal, required: true });
    if (entry === null) throw new AttnScopeError('E_NOT_FOUND', `${name} not found: ${provider.describe(name)}`);
  } catch (error) {
    if (error.code === 'E_NOT_FOUND') error.message += ' (AttnScope loads safetensors checkpoints only)';
    throw error;
  }
  // A file bigger than what wasm32 can still address cannot be a model it runs: refuse it before
  // the download (the engine checks the exact f32 size once the header is in).
  const room = WASM32_MAX_BYTES - wasm.heapStats().inUse;
  if (entry.size !== undefined && entry.size > room) {
    throw new AttnScopeError('E_TOO_LARGE', `${name} is ${megabytes(entry.size)}, more than the ` +
      `${megabytes(Math.max(0, room))} WebAssembly (wasm32, 4 GB) can still hold`);
  }
  const upload = callWasm(() => new wasm.WeightUpload(configText, entry.size ?? -1, weightPrecision));
  try {
    let loaded = 0;
    for await (const chunk of entry.chunks) {
      if (entry.size !== undefined && loaded + chunk.byteLength > entry.size) {
        throw new AttnScopeError('E_NETWORK', `${provider.describe(name)}: more bytes than the announced ${entry.size}`);
      }
      for (let at = 0; at < chunk.byteLength; at += PIECE) {
        const piece = chunk.subarray(at, at + PIECE);
        // chunk() hands out a view of wasm memory, valid until the next call: fill and feed at once.
        callWasm(() => { upload.chunk(piece.byteLength).set(piece); upload.feed(piece.byteLength); });
      }
      loaded += chunk.byteLength;
      onProgress?.({ file: name, loaded, total: entry.size });
    }
    if (entry.size !== undefined && loaded !== entry.size) {
      throw new AttnScopeError('E_NETWORK', `${provider.describe(name)}: got ${loaded} of ${entry.size} bytes`);
    }
    callWasm(() => upload.finish());
    files[name] = loaded;
    return upload;
  } catch (error) {
    upload.delete();
    throw error;
  }
}

function concat(parts, length) {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}
