// The embed's engine: one Web Worker per page, started from a Blob URL, holding one wasm module
// and every model the page's <attn-scope> elements asked for (one load per model id). Unlike
// js/worker.js (one model per worker) it keys models by id, so two elements with different
// models still share one worker and one wasm instance.
import { loadModel } from '../../js/load.js';
import { toAttnScopeError } from '../../js/errors.js';
import { setWasmSource } from './worker-platform.js';

const models = new Map();   // model id → Promise<Model>
let loadsStarted = 0;
let useCache = true;         // Cache Storage is off for file:// pages (an opaque origin has none)

self.addEventListener('message', async (event) => {
  const message = event.data;
  const { id, type } = message;
  try {
    if (type === 'init') {
      setWasmSource(message.wasm?.base64 ? decodeBase64(message.wasm.base64).buffer : message.wasm);
      useCache = message.cache !== false;
      self.postMessage({ id, type: 'result', value: null });
      return;
    }
    if (type === 'load') {
      const model = await modelFor(message.modelId, message.source);
      self.postMessage({ id, type: 'result', value: { ...model.info, loadsStarted } });
      return;
    }
    if (type === 'run') {
      const model = await modelFor(message.modelId, null);
      const result = await model.run(message.text, message.options);
      self.postMessage({ id, type: 'result', value: { ...result } }, result.transferables());
      return;
    }
    throw toAttnScopeError({ code: 'E_INPUT', message: `unknown message type ${type}` });
  } catch (error) {
    const { code, message: text } = toAttnScopeError(error);
    self.postMessage({ id, type: 'error', error: { code, message: text } });
  }
});

// A failed load is forgotten, so a later element can retry the same id.
function modelFor(modelId, source) {
  let pending = models.get(modelId);
  if (!pending) {
    if (source === null) throw toAttnScopeError({ code: 'E_DISPOSED', message: `model ${modelId} is not loaded` });
    loadsStarted++;
    pending = loadModel(reviveSource(source), { cache: useCache });
    pending.catch(() => models.delete(modelId));
    models.set(modelId, pending);
  }
  return pending;
}

// The single-file build sends the bundled model as base64 text (it lives inside the .html).
function reviveSource(source) {
  if (!source || typeof source !== 'object' || !source.base64) return source;
  const text = (b64) => new TextDecoder().decode(decodeBase64(b64));
  const { config, weights, vocab, tokenizerConfig } = source.base64;
  return {
    config: text(config),
    weights: decodeBase64(weights),
    vocab: text(vocab),
    ...(tokenizerConfig ? { tokenizerConfig: text(tokenizerConfig) } : {}),
  };
}

function decodeBase64(b64) {
  const binary = atob(b64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
