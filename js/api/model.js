// A loaded model of any kind — 'encoder', 'decoder' or 'encoder-decoder' (info.kind) — over one
// native object in wasm memory (the bindings' Model, or Seq2SeqModel for an encoder–decoder):
// tokenize, run (text → RunResult) and runIds (ids → RunResult), generate, patch. One lifecycle:
// dispose() frees it; a FinalizationRegistry frees models that were dropped without dispose() (a
// backstop only: GC timing is not something to rely on). An encoder–decoder's runs and its
// generation session are js/api/seq2seq.js's (its results are shaped as transformers names them);
// every family's generation is the one loop of js/analysis/generate.js.
import { AttnScopeError, callerCallback, checkSignal } from '../formats/errors.js';
import { checkGenerationFits, decoderCacheBytes } from './generation-budget.js';
import { RunResult } from './result.js';
import { probabilityOf, rankOf, topKSoftmax } from '../analysis/mlm.js';
import { callWasm, checkEngineAlive, currentEngineEpoch } from './wasm.js';
import { headMaskArray } from './head-mask.js';
import { wordAttentions } from '../analysis/words.js';
import { Generation, START_GENERATION, generateOptions } from '../analysis/generate.js';
import { EncoderDecoder } from './seq2seq.js';
import { attributionResult, checkAnalysisOptions, lensRows } from './analysis-results.js';
import { PATCH_OPTIONS, answerTokenId, checkPatchOptions, patchGrid } from '../analysis/patching.js';
import { GENERATE_OPTIONS, RUN_IDS_OPTIONS, RUN_OPTIONS, TOKENIZE_OPTIONS, checkMapsOption, checkOptionNames } from './options.js';

const DEFAULT_TOP_K = 5;
const OUTPUT_ARRAYS = ['attentions', 'hidden', 'hiddenStates', 'q', 'k', 'v', 'valueNorms'];

const finalizer = typeof FinalizationRegistry === 'function'
  ? new FinalizationRegistry((native) => { try { native.delete(); } catch { /* already freed */ } })
  : null;

export class Model {
  #wasm;
  #native;
  #engineEpoch = currentEngineEpoch();  // see checkEngineAlive
  #specialIds;
  #tokens = null;  // id → token, built on first use (#vocabulary)
  #texts = null;   // id → readable token text ("␣the" for "Ġthe"), built on first use (#tokenTexts)
  #generation = null;  // the Generation holding the engine's KV cache (decoders), if one runs
  #norms = null;  // the LayerNorms' γ, β, copied once (traces carry them)
  #encoderDecoder = null;  // js/api/seq2seq.js: an encoder–decoder's runs and generation session
  // Loaded on a build without the analyses (the encoder build, engine/build_features.h): how to load
  // this model again on one that has them (js/api/load.js), and that load once started.
  #loadWithAnalyses;
  #moving = null;

  /** @internal built by loadModel() */
  constructor(wasm, native, info, loadWithAnalyses = null) {
    this.#wasm = wasm;
    this.#native = native;
    this.#loadWithAnalyses = loadWithAnalyses;
    /** Hyper-parameters from config.json (camelCase). */
    this.config = Object.freeze(info.config);
    /** Where the model came from and what it holds. */
    this.info = Object.freeze(info);
    finalizer?.register(this, native, this);
    if (info.kind === 'encoder-decoder') {
      this.#encoderDecoder = new EncoderDecoder(() => this.#alive(), this.config);
      this.#specialIds = { cls: -1, sep: -1, pad: this.config.padTokenId, mask: -1 };
      return;
    }
    const names = native.specialTokens();
    const id = (token) => native.tokenToId(token);
    this.#specialIds = { cls: id(names.cls), sep: id(names.sep), pad: id(names.pad), mask: id(names.mask) };
  }

  /** 'encoder', 'decoder' or 'encoder-decoder' (info.kind). */
  get kind() {
    return this.info.kind;
  }

  /** The id of the masked-LM mask token ([MASK], <mask>), or -1. */
  get maskTokenId() {
    return this.#specialIds.mask;
  }

  get disposed() {
    return this.#native === null;
  }

  /** Frees the model's wasm memory. Idempotent; any later call throws E_DISPOSED. */
  dispose() {
    if (!this.#native) return;
    finalizer?.unregister(this);
    // A discarded engine (checkEngineAlive) is not called again: its memory goes with it.
    if (this.#engineEpoch === currentEngineEpoch()) this.#native.delete();
    this.#native = null;
  }

  /**
   * Encoding exactly as Hugging Face's tokenizer (WordPiece: [CLS] text [SEP] (pair [SEP]);
   * byte-level BPE: GPT-2 adds nothing, RoBERTa <s> text </s>). tokens are vocabulary strings
   * ("Ġthe"); tokenTexts their readable form ("␣the").
   * @returns {{tokens: string[], tokenTexts: string[], ids: Int32Array, typeIds: Int32Array,
   *   offsets: Int32Array, specialTokensMask: Uint8Array, numTruncated: number}}
   */
  tokenize(text, options = {}) {
    if (this.#encoderDecoder) return this.#encoderDecoder.tokenize(text, options);
    const native = this.#alive();
    checkOptionNames(options, TOKENIZE_OPTIONS, 'tokenize');
    checkString(text, 'text');
    const { textPair, maxLength } = options;
    if (textPair !== undefined && textPair !== null) checkString(textPair, 'textPair');
    const limit = this.#maxLength(maxLength);
    return callWasm(() => native.encode(wellFormed(text), textPair == null ? null : wellFormed(textPair), limit));
  }

  /**
   * Encoder–decoders: target text (the decoder's side) as the checkpoint's target tokenizer reads
   * it (Marian: target.spm). E_INPUT for the other kinds.
   */
  tokenizeTarget(text, options = {}) {
    if (!this.#encoderDecoder) throw new AttnScopeError('E_INPUT', `tokenizeTarget is for encoder-decoder models; this one is ${this.kind === 'encoder' ? 'an encoder' : 'a decoder'}`);
    return this.#encoderDecoder.tokenizeTarget(text, options);
  }

  /** Tokenizes and runs the model; resolves to a RunResult (encoder–decoders: see js/api/seq2seq.js). */
  async run(text, options = {}) {
    if (this.#encoderDecoder) return this.#encoderDecoder.run(text, options);
    checkOptions(options, RUN_OPTIONS, 'run');
    if (options.words && options.textPair != null) throw new AttnScopeError('E_INPUT', 'run: words does not take a textPair yet');
    const encoding = this.tokenize(text, { textPair: options.textPair, maxLength: options.maxLength });
    if (asksForAnalyses(options)) await this.#withAnalyses();
    const result = this.#forward(encoding, null, options);
    if (options.words) Object.assign(result, wordAttentions(result, wellFormed(text)));
    return result;
  }

  /** Runs the encoder on token ids (e.g. [101, 2023, 102]); tokens come from the vocabulary. */
  async runIds(ids, options = {}) {
    if (this.#encoderDecoder) return this.#encoderDecoder.runIds(ids, options);
    const native = this.#alive();
    checkOptions(options, RUN_IDS_OPTIONS, 'runIds');
    const idArray = integerArray(ids, 'ids');
    const count = idArray.length;
    const typeIds = options.tokenTypes == null ? new Int32Array(count) : integerArray(options.tokenTypes, 'tokenTypes');
    const mask = options.attentionMask == null ? null : integerArray(options.attentionMask, 'attentionMask');
    const vocabulary = this.#vocabulary();
    const texts = this.#tokenTexts();
    const encoding = {
      tokens: Array.from(idArray, (id) => vocabulary(id) ?? '[?]'),
      tokenTexts: Array.from(idArray, (id) => texts(id) ?? '[?]'),
      ids: idArray,
      typeIds,
      offsets: new Int32Array(2 * count),
      specialTokensMask: Uint8Array.from(idArray, (id) => Number(id === this.#specialIds.cls || id === this.#specialIds.sep)),
      numTruncated: 0,
    };
    if (asksForAnalyses(options)) await this.#withAnalyses();
    return this.#forward(encoding, mask, options);
  }

  // id → token (undefined outside the vocabulary), from the vocabulary copied once into
  // JavaScript; per-id calls if a token contains a line break (not possible in vocab.txt).
  #vocabulary() {
    if (!this.#tokens) {
      const native = this.#native;
      const size = native.tokenizerVocabSize();
      const lines = native.vocabularyLines().split('\n');
      this.#tokens = lines.length === size
        ? (id) => lines[id]
        : (id) => (id >= 0 && id < size ? native.idToToken(id) : undefined);
    }
    return this.#tokens;
  }

  // id → readable token text (undefined outside the vocabulary), copied once like #vocabulary.
  #tokenTexts() {
    if (!this.#texts) {
      const native = this.#native;
      const size = native.tokenizerVocabSize();
      // A wasm build from before readable texts has no tokenTextLines: raw tokens then.
      const lines = typeof native.tokenTextLines === 'function' ? native.tokenTextLines().split('\n') : [];
      this.#texts = lines.length === size ? (id) => lines[id] : this.#vocabulary();
    }
    return this.#texts;
  }

  /** The id of a vocabulary token, or -1. */
  tokenToId(token) {
    checkString(token, 'token');
    return this.#alive().tokenToId(token);
  }

  /** The text of token ids, as Hugging Face's tokenizer.decode (special tokens kept; encoder–decoders:
   *  as target text, Marian's with target.spm). */
  decode(ids) {
    const native = this.#alive();
    return callWasm(() => native.decode(integerArray(ids, 'ids')));
  }

  /** The vocabulary token of an id (E_INPUT outside the vocabulary). */
  idToToken(id) {
    const native = this.#alive();
    if (!Number.isInteger(id)) throw new AttnScopeError('E_INPUT', `token id must be an integer, got ${id}`);
    return callWasm(() => native.idToToken(id));
  }

  #forward(encoding, attentionMask, options) {
    const native = this.#alive();
    const originals = this.#originalIds(options.originalIds, encoding.ids.length);
    const flags = {
      hiddenStates: Boolean(options.hiddenStates),
      qkv: Boolean(options.qkv),
      valueNorms: Boolean(options.valueNorms),
      trace: Boolean(options.trace),
      flow: Boolean(options.flow),
      headMask: this.#headMask(options.headMask),
      maps: options.maps ?? 'auto',
    };
    const recycled = options.reuse ?? null;
    const raw = callWasm(() => native.forward(encoding.ids, encoding.typeIds, attentionMask, flags));
    // raw's arrays are views of the engine's own buffers, valid until the next wasm call: copy
    // each out now, into the recycled result's memory when it has room (no fresh pages to fault
    // in: at 512 tokens that costs as much as the arithmetic on this kind of machine).
    const arrays = {};
    for (const name of OUTPUT_ARRAYS) if (raw[name]) arrays[name] = copyOut(raw[name], recycled?.[name]);
    // Maps kept on demand (engine/attention_sources.h) come after the copies (the call allocates).
    // (A wasm build from before maps on demand has no takeAttentionMaps: its maps are all eager.)
    const maps = typeof native.takeAttentionMaps === 'function' ? onDemandMaps(callWasm(() => native.takeAttentionMaps())) : null;
    if (maps) delete arrays.attentions;
    if (recycled) recycled.release('its buffers were reused by a later run (options.reuse)');
    const result = new RunResult({
      tokens: encoding.tokens,
      tokenTexts: encoding.tokenTexts,
      ids: encoding.ids,
      typeIds: encoding.typeIds,
      offsets: encoding.offsets,
      specialTokensMask: encoding.specialTokensMask,
      numTruncated: encoding.numTruncated,
      shape: [raw.layers, raw.heads, raw.tokens, raw.tokens],
      kvHeads: [...this.config.kvHeads],
      ...arrays,
      ...(raw.trace ? { trace: { ...copyTrace(raw.trace), layerNorms: this.#layerNorms() } } : {}),
      ...(flags.headMask ? { headMask: flags.headMask } : {}),
      // flow: the information flow's shares (engine/flow.h), fresh arrays of their own.
      ...(raw.flow ? { flow: raw.flow } : {}),
    }, maps);
    if (options.logitLens) result.logitLens = this.#logitLens(encoding, attentionMask, flags.headMask, options.logitLens);
    if (options.attribution) result.attribution = this.#attribution(encoding, attentionMask, flags.headMask, options.attribution);
    if (this.config.isDecoder) {
      Object.assign(result, this.#nextTokens(encoding.ids, arrays.hidden, raw.hiddenSize, options));
    } else {
      const predictions = this.#maskPredictions(encoding.ids, arrays.hidden, raw.hiddenSize, options, originals);
      if (predictions) result.maskPredictions = predictions;
    }
    return result;
  }

  // The logit lens (engine/logit_lens.h), its own run of the same input: [L+1][T] of {top: [{id,
  // token, text, prob}], finalRank, finalProb} (decoders also nextRank, nextProb: the token that
  // actually follows; null at the last position). Row 0 is the embeddings.
  #logitLens(encoding, attentionMask, headMask, topK) {
    const native = this.#native;
    const raw = callWasm(() => native.logitLens(encoding.ids, encoding.typeIds, attentionMask, headMask, topK));
    return lensRows(raw, this.#namedToken(), this.config.isDecoder);
  }

  // Direct logit attribution (engine/attribution.h), its own run of the same input.
  #attribution(encoding, attentionMask, headMask, request) {
    const native = this.#native;
    const { position = -1, tokenId = -1 } = request === true ? {} : request;
    const raw = callWasm(() => native.attribution(encoding.ids, attentionMask, headMask, position, tokenId));
    return attributionResult(raw, this.#namedToken());
  }

  // id → {id, token, text}, from the vocabulary copies.
  #namedToken() {
    const vocabulary = this.#vocabulary();
    const texts = this.#tokenTexts();
    return (id) => ({ id, token: vocabulary(id) ?? '[?]', text: texts(id) ?? '[?]' });
  }

  // Decoders: the top-k next tokens after the last position (`next`) and, with nextAll, after
  // every position together with the rank of the token that actually follows (`nextByPosition`).
  #nextTokens(ids, hidden, hiddenSize, { topK = DEFAULT_TOP_K, nextAll = false }) {
    if (topK === 0) return {};
    const native = this.#native;
    const T = ids.length;
    const first = nextAll ? 0 : T - 1;
    const logits = callWasm(() => native.lmLogits(hidden.subarray(first * hiddenSize), T - first));
    const vocab = logits.length / (T - first);
    const vocabulary = this.#vocabulary();
    const texts = this.#tokenTexts();
    const named = (entries) => entries.map(({ id, prob }) => ({ id, token: vocabulary(id) ?? '[?]', text: texts(id) ?? '[?]', prob }));
    // The prediction after the text is always its row run alone: the GEMM's summation order depends
    // on the row count, and `next` (and the logit lens's last row) must not change with nextAll.
    const last = nextAll && T > 1 ? callWasm(() => native.lmLogits(hidden.subarray((T - 1) * hiddenSize), 1)) : null;
    const row = (position) => (last && position === T - 1 ? last
      : logits.subarray((position - first) * vocab, (position - first + 1) * vocab));
    const out = { next: named(topKSoftmax(row(T - 1), Math.min(topK, vocab))) };
    if (nextAll) {
      out.nextByPosition = [];
      for (let position = 0; position < T; position++) {
        const r = row(position);
        const entry = { position, top: named(topKSoftmax(r, Math.min(topK, vocab))), actual: null };
        if (position + 1 < T) {
          const id = ids[position + 1];
          entry.actual = { id, token: vocabulary(id) ?? '[?]', text: texts(id) ?? '[?]', prob: probabilityOf(r, id), rank: rankOf(r, id) };
        }
        out.nextByPosition.push(entry);
      }
    }
    return out;
  }

  /**
   * Decoders: writes up to maxNewTokens tokens after `prompt` (a string, or token ids), one step
   * at a time over the engine's KV cache. Returns a Generation: `for await (const step of g)`
   * streams {index, position, id, token, prob, candidates, keys, attention (L·H·keys: the new
   * token's row in every head)}; `await g.result` gives {ids, tokens, promptLength, steps,
   * stopReason}. One generation per model at a time.
   * Encoder–decoders: the target for a source (text or ids), resolving to its summary (js/api/seq2seq.js);
   * a second generate() waits for the one in progress.
   */
  generate(prompt, options = {}) {
    if (this.#encoderDecoder) return this.#encoderDecoder.generate(prompt, options, (o) => this[START_GENERATION](prompt, o));
    return this[START_GENERATION](prompt, options);
  }

  /** @internal The Generation of generate() for every kind (the worker streams it). */
  [START_GENERATION](prompt, options = {}, { promptMaps = 'auto' } = {}) {
    if (this.#encoderDecoder) return new Generation(...this.#encoderDecoder.generation(prompt, options));
    const native = this.#alive();
    checkOptionNames(options, GENERATE_OPTIONS, 'generate');
    if (!this.config.isDecoder) {
      throw new AttnScopeError('E_INPUT', `generate() needs a decoder (GPT-2 or Llama family); ${this.config.modelType} is an encoder`);
    }
    if (this.#generation) throw new AttnScopeError('E_INPUT', 'a generation is already running on this model: cancel it or wait for its result');
    checkSignal(options.signal, 'generate');
    const o = generateOptions({ ...options, onToken: callerCallback(options.onToken, 'generate: onToken') });
    const maxPositions = this.config.maxTokens;
    let encoding;
    if (typeof prompt === 'string') {
      encoding = this.tokenize(prompt, { maxLength: maxPositions });
    } else {
      const ids = integerArray(prompt, 'prompt');
      const vocabulary = this.#vocabulary();
      encoding = { ids, tokens: Array.from(ids, (id) => vocabulary(id) ?? '[?]'), numTruncated: 0 };
    }
    if (encoding.ids.length === 0) {
      const bos = this.config.bosTokenId;
      if (bos < 0) throw new AttnScopeError('E_INPUT', 'the prompt is empty and the model has no bos_token_id to start from');
      encoding = { ids: Int32Array.of(bos), tokens: [this.idToToken(bos)], numTruncated: 0 };
    }
    const { numLayers: layers, numHeads: heads, headDim, numKeyValueHeads } = this.config;
    checkGenerationFits({ maxNewTokens: o.maxNewTokens, positionsLeft: maxPositions - encoding.ids.length,
      bytesFor: (n) => decoderCacheBytes({ layers, kvWidth: numKeyValueHeads * headDim, positions: encoding.ids.length + n }) });
    const vocabulary = this.#vocabulary();
    const texts = this.#tokenTexts();
    native.resetSequence();
    if (o.steer) {
      const vector = this.#steeringVector(o.steer);
      callWasm(() => native.setSteering(o.steer.layer, vector, o.steer.strength));
    } else native.clearSteering();
    // The prompt's maps: nothing in generate()'s result reads them, so a long prompt keeps only
    // what they are made of ('auto': on demand above the engine's eager limit, as run() does) and
    // drops even that at the first step; the worker asks for them 'eager' when it streams them.
    const extend = (newIds, maps = 'eager') => {
      const raw = callWasm(() => this.#alive().extend(Int32Array.from(newIds), maps));
      return { keys: raw.keys, attentions: raw.attentions.length ? raw.attentions.slice() : null };
    };
    const token = (id) => vocabulary(id) ?? '[?]';
    const tokenText = (id) => texts(id) ?? '[?]';
    const ids = Array.from(encoding.ids);
    const tokens = [...encoding.tokens];
    const promptLength = ids.length;
    // Generation's session (generate.js): the prompt runs once, then each step picks the next token
    // from the last position's logits and runs it, its attention row going out with the step.
    const session = {
      maxPositions,
      eosId: this.config.eosTokenId,
      begin: () => {
        const first = extend(encoding.ids, promptMaps);
        return { ids: encoding.ids, tokens: encoding.tokens, numTruncated: encoding.numTruncated, attentions: first.attentions,
          shape: [layers, heads, promptLength, promptLength], kvHeads: [...this.config.kvHeads] };
      },
      length: () => ids.length,
      step: (index, pickOptions) => {
        const pick = callWasm(() => this.#alive().nextToken(pickOptions));
        const { id } = pick;
        const row = extend([id]);
        ids.push(id);
        tokens.push(token(id));
        const record = {
          index, position: ids.length - 1, id, token: token(id), text: tokenText(id), prob: pick.prob,
          candidates: pick.candidates.map((c) => ({ ...c, token: token(c.id), text: tokenText(c.id) })),
        };
        return { record, streamed: { ...record, keys: row.keys, attention: row.attentions } };
      },
      result: (steps, stopReason) => ({
        ids: Int32Array.from(ids), tokens, promptLength, numTruncated: encoding.numTruncated, steps, stopReason,
        text: this.decode(ids.slice(promptLength)),
      }),
      finish: () => {
        this.#generation = null;
        if (!this.disposed) this.#native.clearSteering();
      },
    };
    this.#generation = new Generation(session, o);
    return this.#generation;
  }

  /**
   * Activation patching (js/analysis/patching.js, engine/patching.h): the corrupted prompt run with one
   * activation at a time replaced by the clean prompt's; resolves to {site, clean, corrupted (the two
   * logit differences), scores[L][T or H], position, layers, columns}. LD is read at the last
   * position (encoders: the clean prompt's first mask token).
   */
  async patch(options) {
    if (this.#encoderDecoder) return this.#encoderDecoder.patch(options);
    checkOptionNames(options, PATCH_OPTIONS, 'patch');
    const site = checkPatchOptions(options);
    const ids = (value, name) => (typeof value === 'string' ? this.tokenize(value).ids : integerArray(value, name));
    const clean = ids(options.clean, 'clean'), corrupted = ids(options.corrupted, 'corrupted');
    const vocabSize = this.config.vocabSize;
    const answer = answerTokenId(this, options.answer, 'answer', vocabSize);
    const wrong = answerTokenId(this, options.wrong, 'wrong', vocabSize);
    let position = -1;
    if (!this.config.isDecoder) {
      position = clean.indexOf(this.#specialIds.mask);
      if (position < 0) throw new AttnScopeError('E_INPUT', 'patch: an encoder reads the logit difference at the first mask token, and the clean prompt has none');
    }
    await this.#withAnalyses();
    const engine = {
      startPatch: (...args) => callWasm(() => this.#alive().startPatch(...args)),
      patchRow: (layer) => callWasm(() => this.#alive().patchRow(layer)),
      endPatch: () => { if (!this.disposed) this.#native.endPatch(); },
    };
    return patchGrid(engine, { clean, corrupted, answer, wrong, position, site, signal: options.signal,
      onProgress: callerCallback(options.onProgress, 'patch: onProgress') });
  }

  // The steer option's vector (steering.h): given, or from its from/to texts or ids.
  #steeringVector(steer) {
    if (steer.vector) return steer.vector;
    const ids = (value) => (typeof value === 'string' ? this.tokenize(value).ids : Int32Array.from(value));
    return callWasm(() => this.#alive().steeringVector(steer.layer, ids(steer.from), ids(steer.to)));
  }

  // Top-k tokens at each [MASK] position, when the checkpoint has an MLM head.
  // With originalIds (the ids before masking), each prediction also has the original token's
  // probability and rank (`actual`), as a decoder's nextByPosition has.
  #maskPredictions(ids, hidden, hiddenSize, { topK = DEFAULT_TOP_K }, originals) {
    const native = this.#native;
    if (topK === 0 || !native.hasLmHead() || this.#specialIds.mask < 0) return null;
    const positions = [];
    ids.forEach((id, position) => { if (id === this.#specialIds.mask) positions.push(position); });
    if (positions.length === 0) return null;
    // One row at a time: the GEMM's summation order depends on the row count, and a [MASK]'s
    // prediction (and the logit lens's last row there) must not change with how many there are.
    const vocab = this.config.vocabSize;
    const logits = new Float32Array(positions.length * vocab);
    positions.forEach((p, r) => logits.set(callWasm(() => native.lmLogits(hidden.subarray(p * hiddenSize, (p + 1) * hiddenSize), 1)), r * vocab));
    const k = Math.min(topK, vocab);
    // Names from the vocabulary copies: the model's rows may outnumber the tokenizer's vocabulary
    // (vocab_size padded), where the engine's idToToken would throw.
    const named = this.#namedToken();
    return positions.map((position, r) => {
      const row = logits.subarray(r * vocab, (r + 1) * vocab);
      const prediction = { position, top: topKSoftmax(row, k).map(({ id, prob }) => { const { token, text } = named(id); return { token, text, id, prob }; }) };
      if (originals) {
        const id = originals[position];
        prediction.actual = { ...named(id), prob: probabilityOf(row, id), rank: rankOf(row, id) };
      }
      return prediction;
    });
  }

  // options.originalIds checked before the run: one id per token, each a row of the model's
  // output (E_INPUT naming the first that is not); null when not given.
  #originalIds(originalIds, count) {
    if (originalIds === undefined || originalIds === null) return null;
    const originals = integerArray(originalIds, 'originalIds');
    if (originals.length !== count) throw new AttnScopeError('E_INPUT', `originalIds has ${originals.length} ids for ${count} tokens`);
    const V = this.config.vocabSize;
    const bad = originals.findIndex((id) => id < 0 || id >= V);
    if (bad >= 0) throw new AttnScopeError('E_INPUT', `originalIds[${bad}] = ${originals[bad]} is not a token id of this model (0 to ${V - 1})`);
    return originals;
  }

  // {embeddings?, layers: [{attention, ffn, qNorm?, kNorm?}], final?} of {gamma, beta}, as the engine
  // names them (RMSNorms: beta empty).
  #layerNorms() {
    if (!this.#norms) {
      const named = callWasm(() => this.#native.layerNorms());
      const layers = [];
      for (let l = 0; l < this.config.numLayers; l++) {
        const heads = named[`layers.${l}.q_norm`] ? { qNorm: named[`layers.${l}.q_norm`], kNorm: named[`layers.${l}.k_norm`] } : {};
        layers.push({ attention: named[`layers.${l}.attention`], ffn: named[`layers.${l}.ffn`], ...heads });  // Qwen3: head norms
      }
      this.#norms = { ...(named.embeddings ? { embeddings: named.embeddings } : {}), layers, ...(named.final ? { final: named.final } : {}) };
    }
    // Each trace gets its own arrays (a worker transfers them with the result).
    const copy = ({ gamma, beta }) => ({ gamma: gamma.slice(), beta: beta.slice() });
    const n = this.#norms;
    return {
      ...(n.embeddings ? { embeddings: copy(n.embeddings) } : {}),
      layers: n.layers.map((norms) => Object.fromEntries(Object.entries(norms).map(([name, ln]) => [name, copy(ln)]))),
      ...(n.final ? { final: copy(n.final) } : {}),
    };
  }

  #headMask(headMask) {
    return headMaskArray(headMask, { layers: this.config.numLayers, heads: this.config.numHeads, name: 'headMask' });
  }

  #maxLength(maxLength) {
    if (maxLength === undefined || maxLength === null) return this.config.maxTokens;
    if (!Number.isInteger(maxLength) || maxLength < 0) {
      throw new AttnScopeError('E_INPUT', `maxLength must be a non-negative integer, got ${maxLength}`);
    }
    return maxLength;
  }

  #alive() {
    if (!this.#native) throw new AttnScopeError('E_DISPOSED', 'the model was disposed');
    checkEngineAlive(this.#engineEpoch);
    return this.#native;
  }

  // A model loaded on the encoder build (what a page fetches for a BERT: no logit lens,
  // attribution, flow or patching) moves to a build that has them before the first call that
  // needs one: the same files loaded again there, whose native model this one takes over. The
  // numbers are the same; only the wait and the download are new. Runs made before keep their
  // maps (they are objects of their own in the first module, which stays).
  async #withAnalyses() {
    if (!this.#loadWithAnalyses) return;
    this.#moving ??= this.#loadWithAnalyses().catch((error) => {
      this.#moving = null;   // a failed load (the network, say) is tried again by the next call
      throw error;
    });
    const moved = await this.#moving;
    if (!this.#loadWithAnalyses) return;   // a concurrent call has taken it over
    this.#loadWithAnalyses = null;
    if (!this.#native) {
      moved.dispose();
      this.#alive();   // E_DISPOSED: disposed while the other build loaded
    }
    finalizer?.unregister(moved);
    finalizer?.unregister(this);
    if (this.#engineEpoch === currentEngineEpoch()) this.#native.delete();
    this.#wasm = moved.#wasm;
    this.#native = moved.#native;
    this.#engineEpoch = moved.#engineEpoch;
    moved.#native = null;
    this.#tokens = this.#texts = null;   // their fallback reads the native model
    finalizer?.register(this, this.#native, this);
  }
}

/** Whether run options ask for what the encoder build leaves out (engine/build_features.h). */
function asksForAnalyses(options) {
  return Boolean(options.logitLens || options.attribution || options.flow);
}

function checkString(value, name) {
  if (typeof value !== 'string') {
    throw new AttnScopeError('E_INPUT', `${name} must be a string, got ${value === null ? 'null' : typeof value}`);
  }
}

// The engine's maps on demand as js/api/result.js holds them (null: the run kept its maps whole).
function onDemandMaps(handle) {
  if (!handle) return null;
  return {
    map: (layer, head) => callWasm(() => handle.map(layer, head)),
    bytes: () => handle.bytes(),
    free: () => handle.delete(),
  };
}

function checkOptions(options, allowed, call) {
  if (options === null || typeof options !== 'object') throw new AttnScopeError('E_INPUT', 'options must be an object');
  checkOptionNames(options, allowed, call);   // a misspelt option is an error, not a default
  checkMapsOption(options.maps);
  const { topK, reuse } = options;
  if (reuse !== undefined && reuse !== null) {
    if (!(reuse instanceof RunResult)) throw new AttnScopeError('E_INPUT', 'reuse must be a RunResult from an earlier run');
    if (reuse.released) throw new AttnScopeError('E_INPUT', `reuse: that result is no longer usable: ${reuse.released}`);
  }
  if (topK !== undefined && (!Number.isInteger(topK) || topK < 0)) {
    throw new AttnScopeError('E_INPUT', `topK must be a non-negative integer, got ${topK}`);
  }
  checkAnalysisOptions(options);
}

// Lone surrogates have no UTF-8 encoding: replace them by U+FFFD (one UTF-16 unit each, so
// offsets into the caller's string stay valid), as TextEncoder would.
function wellFormed(text) {
  return typeof text.toWellFormed === 'function' ? text.toWellFormed()
    : text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

// A copy of `view` in `target`'s memory when that is a Float32Array whose buffer is large enough
// (a view of its first view.length floats), else in a fresh Float32Array.
function copyOut(view, target) {
  if (target instanceof Float32Array && target.buffer.byteLength >= view.byteLength) {
    const out = new Float32Array(target.buffer, 0, view.length);
    out.set(view);
    return out;
  }
  return view.slice();
}

// The engine's trace views copied out: {embeddings: {...}, layers: [{...}], finalNorm?}.
function copyTrace(trace) {
  const copy = (views) => Object.fromEntries(Object.entries(views).map(([name, view]) => [name, view.slice()]));
  return {
    embeddings: copy(trace.embeddings),
    layers: trace.layers.map(copy),
    ...(trace.finalNorm ? { finalNorm: trace.finalNorm.slice() } : {}),
  };
}

// One head-mask value: a number (finite or not: see #headMask), else E_INPUT naming it.

function integerArray(values, name) {
  if (values instanceof Int32Array) return values.slice(); // the result owns its arrays
  if (!Array.isArray(values) && !ArrayBuffer.isView(values)) {
    throw new AttnScopeError('E_INPUT', `${name} must be an array of integers`);
  }
  const out = new Int32Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = Number(values[i]);
    if (!Number.isInteger(v) || v < -2147483648 || v > 2147483647) {
      throw new AttnScopeError('E_INPUT', `${name}[${i}] = ${values[i]} is not a 32-bit integer`);
    }
    out[i] = v;
  }
  return out;
}
