// loadTokenizer(): a model folder's tokenizer alone — tokenizer.json, vocab.txt, vocab.json +
// merges.txt, or Marian's vocab.json + source.spm + target.spm, with tokenizer_config.json —
// without the weights. config.json is optional: when
// present it is validated and its position limit is the default maxLength, as Model.tokenize
// does. The CLI's tokenize uses it, so a folder holding only tokenizer files can be tokenized.
import { AttnScopeError, throwIfAborted, toAttnScopeError } from '../formats/errors.js';
import { readBytes, readText, readTokenizerFiles, tokenizerArgs } from './load.js';
import { resolveSource } from './sources.js';
import { callWasm, getWasmModule } from './wasm.js';

/**
 * @param {unknown} [source] as loadModel's
 * @param {{signal?: AbortSignal, hubUrl?: string, revision?: string, cache?: boolean}} [options]
 */
export async function loadTokenizer(source, options = {}) {
  const { signal } = options;
  throwIfAborted(signal);
  try {
    const wasm = await getWasmModule();
    const provider = await resolveSource(source, options);
    await provider.check();
    const files = {};
    const read = (name, required) => readText(provider, name, { required, signal, files });
    const readBinary = (name, required) => readBytes(provider, name, { required, signal, files });
    const configText = await read('config.json', false);
    const maxPositions = configText === null ? 0 : configPositions(wasm, configText);
    const tok = await readTokenizerFiles(read, provider.location, readBinary);
    const native = callWasm(() => new wasm.Tokenizer(...tokenizerArgs(tok)));
    return new TokenizerOnly(native, {
      source: provider.kind, location: provider.location, files, tokenizer: tok.kind, maxPositions,
    });
  } catch (error) {
    throw toAttnScopeError(error);
  }
}

class TokenizerOnly {
  #native;

  constructor(native, info) {
    this.#native = native;
    this.info = Object.freeze({ ...info, tokenizerVocabSize: native.vocabSize(), byteLevel: native.byteLevel(),
      separateTargetTokenizer: native.hasTarget() });
  }

  /** Same encoding as Model.tokenize; maxLength defaults to config.json's positions (0 = none). */
  tokenize(text, { textPair, maxLength = this.info.maxPositions } = {}) {
    if (!this.#native) throw new AttnScopeError('E_DISPOSED', 'this tokenizer was disposed');
    if (typeof text !== 'string') throw new AttnScopeError('E_INPUT', 'text must be a string');
    if (textPair != null && typeof textPair !== 'string') throw new AttnScopeError('E_INPUT', 'textPair must be a string');
    if (!Number.isInteger(maxLength) || maxLength < 0) {
      throw new AttnScopeError('E_INPUT', `maxLength must be a non-negative integer, got ${maxLength}`);
    }
    return callWasm(() => this.#native.encode(wellFormed(text), textPair == null ? null : wellFormed(textPair), maxLength));
  }

  /** Target text of an encoder-decoder (Marian: target.spm; otherwise as tokenize). */
  tokenizeTarget(text, { maxLength = this.info.maxPositions } = {}) {
    if (!this.#native) throw new AttnScopeError('E_DISPOSED', 'this tokenizer was disposed');
    if (typeof text !== 'string') throw new AttnScopeError('E_INPUT', 'text must be a string');
    if (!Number.isInteger(maxLength) || maxLength < 0) {
      throw new AttnScopeError('E_INPUT', `maxLength must be a non-negative integer, got ${maxLength}`);
    }
    return callWasm(() => this.#native.encodeTarget(wellFormed(text), maxLength));
  }

  /** The text of token ids, as Hugging Face's tokenizer.decode (special tokens kept; Marian: with target.spm). */
  decode(ids) {
    if (!this.#native) throw new AttnScopeError('E_DISPOSED', 'this tokenizer was disposed');
    if (!Array.isArray(ids) && !ArrayBuffer.isView(ids)) throw new AttnScopeError('E_INPUT', 'ids must be an array of integers');
    const bad = Array.prototype.findIndex.call(ids, (v) => !Number.isInteger(Number(v)) || Math.abs(Number(v)) > 2 ** 31 - 1);
    if (bad >= 0) throw new AttnScopeError('E_INPUT', `ids[${bad}] = ${ids[bad]} is not a 32-bit integer`);
    return callWasm(() => this.#native.decode(Int32Array.from(ids, Number)));
  }

  dispose() {
    this.#native?.delete();
    this.#native = null;
  }
}

// config.json's position limit: an encoder-decoder's (bart, marian, t5) from the seq2seq reader.
function configPositions(wasm, configText) {
  if (callWasm(() => wasm.isSeq2SeqConfig(configText))) return callWasm(() => wasm.seq2seqMaxTokens(configText));
  return callWasm(() => wasm.parseConfig(configText)).maxTokens;
}

// Lone surrogates become U+FFFD, as the engine's UTF-8 conversion would.
function wellFormed(text) {
  return typeof text.toWellFormed === 'function' ? text.toWellFormed()
    : text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}
