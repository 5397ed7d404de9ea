// loadModel(): reads a Hugging Face model folder from any provider (sources.js) into a Model.
// Order: config.json (validated before anything big is downloaded), tokenizer files, then
// model.safetensors streamed straight into wasm memory, so the weights never exist as a second
// JavaScript-side copy; sizes are checked against the 4 GB wasm32 limit before allocating.
import { AttnScopeError, throwIfAborted, toAttnScopeError } from './errors.js';
import { resolveSource } from './sources.js';
import { callWasm, getWasmModule } from './wasm.js';
import { Model } from './model.js';

const WASM32_LIMIT = 4 * 1024 ** 3;
const HEADROOM = 64 * 1024 ** 2;           // activations of one run, the tokenizer, fragmentation
const MAX_TEXT_FILE = 256 * 1024 ** 2;     // config / vocab / tokenizer.json
const SAFETENSORS_BYTES = { F32: 4, F16: 2, BF16: 2, F64: 8, I64: 8, I32: 4, I16: 2, I8: 1, U8: 1, BOOL: 1 };

/**
 * @param {unknown} [source] see index.d.ts ModelSource
 * @param {{onProgress?: Function, signal?: AbortSignal, hubUrl?: string, revision?: string, cache?: boolean}} [options]
 * @returns {Promise<Model>}
 */
export async function loadModel(source, options = {}) {
  if (options === null || typeof options !== 'object') throw new AttnScopeError('E_INPUT', 'options must be an object');
  const { signal, onProgress } = options;
  if (onProgress !== undefined && typeof onProgress !== 'function') {
    throw new AttnScopeError('E_INPUT', 'onProgress must be a function');
  }
  throwIfAborted(signal);
  const started = Date.now();
  try {
    const wasm = await getWasmModule();
    const provider = await resolveSource(source, options);
    await provider.check();
    const files = {};
    const read = (name, required) => readText(provider, name, { required, signal, onProgress, files });

    // Everything small is read and validated before the weights, so a wrong model or broken
    // tokenizer files fail before a download of hundreds of megabytes.
    const configText = await read('config.json', true);
    const config = callWasm(() => wasm.parseConfig(configText));
    const tokenizerJson = await read('tokenizer.json', false);
    const vocab = tokenizerJson === null ? await read('vocab.txt', false) : null;
    if (tokenizerJson === null && vocab === null) {
      throw new AttnScopeError('E_TOKENIZER', `no tokenizer.json or vocab.txt at ${provider.location}`);
    }
    const tokenizerConfig = await read('tokenizer_config.json', false);
    const tokenizerVocabSize = callWasm(() => wasm.checkTokenizer(vocab ?? '', tokenizerJson ?? '', tokenizerConfig ?? ''));
    if (tokenizerVocabSize > config.vocabSize) {
      throw new AttnScopeError('E_TOKENIZER', `the vocabulary has ${tokenizerVocabSize} tokens but config.json ` +
        `says vocab_size = ${config.vocabSize}: tokenizer and model do not match`);
    }

    const weights = await readWeights(wasm, provider, { signal, onProgress, files });
    let native;
    try {
      throwIfAborted(signal);
      checkConvertedSizeFits(wasm, weights);
      native = callWasm(() => new wasm.Model(configText, weights, vocab ?? '', tokenizerJson ?? '', tokenizerConfig ?? ''));
    } finally {
      weights.delete(); // frees the bytes if the Model did not already
    }
    const info = {
      source: provider.kind,
      location: provider.location,
      ...(provider.id ? { id: provider.id } : {}),
      files,
      config: callWasm(() => native.config()),
      hasMlmHead: native.hasMlmHead(),
      tokenizerVocabSize: native.tokenizerVocabSize(),
      tokenizer: tokenizerJson !== null ? 'tokenizer.json' : 'vocab.txt',
      loadMs: Date.now() - started,
    };
    return new Model(wasm, native, info);
  } catch (error) {
    throw toAttnScopeError(error);
  }
}

/** Memory the wasm heap can still grow into. */
function availableBytes(wasm) {
  return WASM32_LIMIT - wasm.heapStats().inUse - HEADROOM;
}

function megabytes(bytes) {
  return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
}

async function readText(provider, name, { required, signal, onProgress, files }) {
  throwIfAborted(signal);
  const entry = await provider.open(name, { signal, required });
  if (entry === null) {
    if (required) throw new AttnScopeError('E_NOT_FOUND', `${name} not found: ${provider.describe(name)}`);
    return null;
  }
  if (entry.size !== undefined && entry.size > MAX_TEXT_FILE) {
    throw new AttnScopeError('E_TOO_LARGE', `${name} is ${megabytes(entry.size)}; text files above ${megabytes(MAX_TEXT_FILE)} are refused`);
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
  const bytes = concat(parts, loaded);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new AttnScopeError(name === 'config.json' ? 'E_CONFIG' : 'E_TOKENIZER', `${name} is not valid UTF-8 text`);
  }
}

// model.safetensors into a wasm ByteBuffer. With a known size (Content-Length, file size) each
// chunk is copied straight into wasm memory; otherwise the chunks are gathered first.
async function readWeights(wasm, provider, { signal, onProgress, files }) {
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
  const fitCheck = (size) => {
    if (size > availableBytes(wasm)) {
      throw new AttnScopeError('E_TOO_LARGE', `${name} is ${megabytes(size)}, more than the ` +
        `${megabytes(Math.max(0, availableBytes(wasm)))} WebAssembly (wasm32, 4 GB) can still hold`);
    }
  };
  if (entry.size !== undefined) fitCheck(entry.size);

  const report = (loaded) => onProgress?.({ file: name, loaded, total: entry.size });
  if (entry.size === undefined) {
    const parts = [];
    let loaded = 0;
    for await (const chunk of entry.chunks) {
      loaded += chunk.byteLength;
      fitCheck(loaded);
      parts.push(chunk);
      report(loaded);
    }
    const buffer = callWasm(() => new wasm.ByteBuffer(loaded));
    let offset = 0;
    for (const part of parts) {
      buffer.view(offset, part.byteLength).set(part);
      offset += part.byteLength;
    }
    files[name] = loaded;
    return buffer;
  }

  const buffer = callWasm(() => new wasm.ByteBuffer(entry.size));
  try {
    let loaded = 0;
    for await (const chunk of entry.chunks) {
      if (loaded + chunk.byteLength > entry.size) {
        throw new AttnScopeError('E_NETWORK', `${provider.describe(name)}: more bytes than the announced ${entry.size}`);
      }
      // A fresh view per chunk: a view taken before a heap growth would be detached.
      buffer.view(loaded, chunk.byteLength).set(chunk);
      loaded += chunk.byteLength;
      report(loaded);
    }
    if (loaded !== entry.size) {
      throw new AttnScopeError('E_NETWORK', `${provider.describe(name)}: got ${loaded} of ${entry.size} bytes`);
    }
    files[name] = loaded;
    return buffer;
  } catch (error) {
    buffer.delete();
    throw error;
  }
}

// The engine converts every tensor to f32 while the file is still in memory: estimate that from
// the safetensors header and refuse before trying. A header that cannot be read is left to the
// engine, which reports it precisely (E_SAFETENSORS).
function checkConvertedSizeFits(wasm, buffer) {
  const size = buffer.size();
  if (size < 8) return;
  const head = new DataView(buffer.view(0, 8).slice().buffer);
  const headerLength = Number(head.getBigUint64(0, true));
  if (headerLength > size - 8 || headerLength > MAX_TEXT_FILE) return;
  let header;
  try {
    header = JSON.parse(new TextDecoder().decode(buffer.view(8, headerLength).slice()));
  } catch {
    return;
  }
  // Count only tensors whose bytes really are in the file: a header that claims more is
  // malformed, and the engine's E_SAFETENSORS says so better than a size complaint would.
  const dataBytes = size - 8 - headerLength;
  let f32Bytes = 0;
  for (const [key, tensor] of Object.entries(header ?? {})) {
    if (key === '__metadata__') continue;
    const { dtype, shape, data_offsets: offsets } = tensor ?? {};
    if (!(dtype in SAFETENSORS_BYTES) || !Array.isArray(shape) || !Array.isArray(offsets)) return;
    const numel = shape.reduce((n, d) => n * Number(d), 1);
    if (!(offsets[1] - offsets[0] === numel * SAFETENSORS_BYTES[dtype] && offsets[1] <= dataBytes)) return;
    f32Bytes += numel * 4;
  }
  if (f32Bytes > availableBytes(wasm)) {
    throw new AttnScopeError('E_TOO_LARGE', `the weights take ${megabytes(f32Bytes)} as f32, more than the ` +
      `${megabytes(Math.max(0, availableBytes(wasm)))} WebAssembly (wasm32, 4 GB) can still hold`);
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
