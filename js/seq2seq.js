// An encoder–decoder model (BART, Marian, T5) over one native Seq2SeqModel in wasm memory. run /
// runIds: the encoder over a source and the decoder over decoder_start_token_id followed by the
// target, with all three attention kinds; generate: the target token by token over the decoder's
// KV cache (the source encoded, and its cross keys and values computed, once), each step with its
// self- and cross-attention rows. Results name things as transformers does (encoder_attentions,
// decoder_attentions, cross_attentions) in camelCase.
import { AttnScopeError, callerCallback, throwIfAborted } from './errors.js';
import { checkGenerationFits, seq2seqGenerationBytes } from './generation-budget.js';
import { headMaskArray } from './head-mask.js';
import { callWasm, checkEngineAlive, currentEngineEpoch } from './wasm.js';
import { topKSoftmax } from './mlm.js';
import { seededRandom } from './sampling.js';
import { generateOptions, nextTask, nextTokenOptions } from './generate.js';
import { SEQ2SEQ_GENERATE_OPTIONS, SEQ2SEQ_RUN_OPTIONS, checkOptionNames } from './options.js';
import { PATCH_STACKS, SEQ2SEQ_PATCH_OPTIONS, answerTokenId, checkPatchOptions, patchGrid, targetPrefixIds } from './patching.js';

const DEFAULT_TOP_K = 5;

const finalizer = typeof FinalizationRegistry === 'function'
  ? new FinalizationRegistry((native) => { try { native.delete(); } catch { /* already freed */ } })
  : null;

export class Seq2SeqModel {
  #native;
  #engineEpoch = currentEngineEpoch();  // see checkEngineAlive
  // The engine holds one generation's encoder output and decoder cache (start/step), and a
  // generation yields between its steps: a second generate() waits for the one in progress.
  #generating = Promise.resolve();

  /** @internal built by loadModel() */
  constructor(native, info) {
    this.#native = native;
    this.config = Object.freeze(info.config);
    this.info = Object.freeze(info);
    finalizer?.register(this, native, this);
  }

  get disposed() {
    return this.#native === null;
  }

  dispose() {
    if (!this.#native) return;
    finalizer?.unregister(this);
    // A discarded engine (checkEngineAlive) is not called again: its memory goes with it.
    if (this.#engineEpoch === currentEngineEpoch()) this.#native.delete();
    this.#native = null;
  }

  /** Tokenizes a source or target text as the checkpoint's tokenizer does (with its special tokens). */
  tokenize(text, { maxLength } = {}) {
    const native = this.#alive();
    if (typeof text !== 'string') throw new AttnScopeError('E_INPUT', 'text must be a string');
    return callWasm(() => native.encode(text, maxLength ?? this.config.maxTokens));
  }

  /** Tokenizes target text (the decoder's side): Marian's target.spm where the checkpoint has one. */
  tokenizeTarget(text, { maxLength } = {}) {
    const native = this.#alive();
    if (typeof text !== 'string') throw new AttnScopeError('E_INPUT', 'text must be a string');
    return callWasm(() => native.encodeTarget(text, maxLength ?? this.config.maxTokens));
  }

  /** Runs source text (and target text, options.target, tokenized as target text) through the model. */
  async run(source, options = {}) {
    checkOptionNames(options, SEQ2SEQ_RUN_OPTIONS, 'run');
    const sourceIds = this.tokenize(source, options).ids;
    let targetIds = options.targetIds == null ? [] : integerArray(options.targetIds, 'targetIds');
    if (options.target != null) {
      if (options.targetIds != null) throw new AttnScopeError('E_INPUT', 'give target or targetIds, not both');
      targetIds = this.tokenizeTarget(options.target, options).ids;
    }
    return this.#run(sourceIds, targetIds, options);
  }

  /** Runs source ids, and options.targetIds after decoder_start_token_id, through the model. */
  async runIds(sourceIds, options = {}) {
    checkOptionNames(options, SEQ2SEQ_RUN_OPTIONS, 'runIds');
    if (options.target != null) throw new AttnScopeError('E_INPUT', 'runIds takes targetIds, not target text');
    const targetIds = options.targetIds == null ? [] : integerArray(options.targetIds, 'targetIds');
    return this.#run(integerArray(sourceIds, 'ids'), targetIds, options);
  }

  #run(sourceIds, targetIds, { topK = DEFAULT_TOP_K, trace = false, logits = false, qkv = false, flow = false,
    headMask, decoderHeadMask, crossAttnHeadMask }) {
    const native = this.#alive();
    if (typeof trace !== 'boolean') throw new AttnScopeError('E_INPUT', 'trace must be true or false');
    if (typeof qkv !== 'boolean') throw new AttnScopeError('E_INPUT', 'qkv must be true or false');
    if (typeof flow !== 'boolean') throw new AttnScopeError('E_INPUT', 'flow must be true or false');
    const c = this.config;
    // Hugging Face's three masks: the encoder's heads, the decoder's self-attention heads and its
    // cross-attention heads.
    const masks = {
      headMask: headMaskArray(headMask, { layers: c.encoderLayers, heads: c.encoderHeads, name: 'headMask' }),
      decoderHeadMask: headMaskArray(decoderHeadMask, { layers: c.decoderLayers, heads: c.decoderHeads, name: 'decoderHeadMask' }),
      crossAttnHeadMask: headMaskArray(crossAttnHeadMask, { layers: c.decoderLayers, heads: c.decoderHeads, name: 'crossAttnHeadMask' }),
    };
    const decoderIds = Int32Array.from([c.decoderStartTokenId, ...targetIds]);
    const raw = callWasm(() => native.run(Int32Array.from(sourceIds), decoderIds, { trace, qkv, flow, ...masks }));
    const S = raw.sourceTokens;
    const T = raw.targetTokens;
    const V = c.vocabSize;
    const last = raw.logits.subarray((T - 1) * V, T * V);
    return {
      modelType: c.modelType,
      sourceIds: Int32Array.from(sourceIds),
      sourceTokens: Array.from(sourceIds, (id) => this.#token(id)),
      targetIds: decoderIds,
      targetTokens: Array.from(decoderIds, (id) => this.#token(id)),
      encoderAttentions: raw.encoderAttentions,
      decoderAttentions: raw.decoderAttentions,
      crossAttentions: raw.crossAttentions,
      encoderShape: [c.encoderLayers, c.encoderHeads, S, S],
      decoderShape: [c.decoderLayers, c.decoderHeads, T, T],
      crossShape: [c.decoderLayers, c.decoderHeads, T, S],
      hidden: raw.hidden,
      hiddenSize: c.hiddenSize,
      next: topK > 0 ? this.#named(topKSoftmax(last, Math.min(topK, V))) : [],
      // trace: every step of every decoder layer for each target position (what the Block view walks
      // through: self-attention, cross-attention, feed-forward, each with its Add & Norm).
      ...(raw.decoderTrace ? { decoderTrace: raw.decoderTrace } : {}),
      // trace: the encoder's layers likewise (self-attention and feed-forward).
      ...(raw.encoderTrace ? { encoderTrace: raw.encoderTrace } : {}),
      // qkv: each self-attention's per-head queries, keys and values, {q, k, v} of (L, H, T, dh),
      // T the stack's positions (q not scaled), as the other families' q, k, v.
      ...(raw.encoderQkv ? { encoderQkv: raw.encoderQkv, decoderQkv: raw.decoderQkv } : {}),
      // flow: the decoder's information flow (self- and cross-attention), the encoder's as flow.encoder.
      ...(raw.flow ? { flow: raw.flow } : {}),
      // Every position's logits only when asked: T × V floats would weigh on each worker message.
      ...(logits ? { logits: raw.logits } : {}),
    };
  }

  /**
   * Generates the target for a source (text or ids): ids start with decoder_start_token_id (text
   * is the generated ids' text without the special tokens of the config's roles); each
   * step carries the new token's decoder self-attention row (Ld, Hd, keys) and cross-attention row
   * (Ld, Hd, S). temperature 0 is greedy.
   */
  async generate(source, options = {}) {
    checkOptionNames(options, SEQ2SEQ_GENERATE_OPTIONS, 'generate');
    const previous = this.#generating;
    let done;
    this.#generating = new Promise((resolve) => { done = resolve; });
    try {
      await previous;
      return await this.#generate(source, options);
    } finally {
      done();
    }
  }

  async #generate(source, options) {
    const { maxLength, signal, ...rest } = options;
    const o = generateOptions(rest);
    const native = this.#alive();
    const sourceIds = typeof source === 'string' ? this.tokenize(source, { maxLength }).ids : integerArray(source, 'ids');
    // Steering the decoder (every generate sets or clears it: only generation steps apply it).
    if (o.steer) callWasm(() => native.setSteering(o.steer.layer, this.#steeringVector(o.steer, sourceIds), o.steer.strength));
    else native.clearSteering();
    const c = this.config;
    const shape = { layers: c.decoderLayers, heads: c.decoderHeads, headDim: c.decoderHeadDim, sourceLength: sourceIds.length };
    checkGenerationFits({ maxNewTokens: o.maxNewTokens, positionsLeft: c.maxTokens - 1,
      bytesFor: (n) => seq2seqGenerationBytes(shape, n) });
    await nextTask();  // let the caller attach (and an abort arrive) before the encoder pass
    throwIfAborted(signal);
    const encoderAttentions = callWasm(() => native.start(Int32Array.from(sourceIds)));
    const random = seededRandom(o.seed);
    const ids = [c.decoderStartTokenId];
    const steps = [];
    let stopReason = 'max-new-tokens';
    for (let n = 0; n < o.maxNewTokens; n++) {
      if (ids.length >= c.maxTokens) {
        stopReason = 'max-positions';
        break;
      }
      throwIfAborted(signal);
      const out = callWasm(() => native.step(Int32Array.of(ids[ids.length - 1])));
      // The pick and its softmax in wasm, beside the logits (engine/sampling.h).
      const { id, prob, candidates } = callWasm(() => native.nextToken(nextTokenOptions(o, random)));
      steps.push({
        id,
        token: this.#token(id),
        prob,
        candidates: this.#named(candidates),
        // The step's query is the position that predicted `id` (its input: the previous token).
        decoderAttentions: out.decoderAttentions,
        crossAttentions: out.crossAttentions,
        keys: out.keys,
      });
      ids.push(id);
      o.onToken?.(steps[steps.length - 1]);
      if (o.stopAtEos && id === c.eosTokenId) {
        stopReason = 'eos';
        break;
      }
      // Between two steps the event loop gets a turn: in a worker, that is when an 'abort'
      // message is handled, so Stop lands within one step instead of at the generation's end.
      await nextTask();
    }
    return {
      sourceIds: Int32Array.from(sourceIds),
      sourceTokens: Array.from(sourceIds, (id) => this.#token(id)),
      ids: Int32Array.from(ids),
      tokens: ids.map((id) => this.#token(id)),
      text: callWasm(() => native.decode(Int32Array.from(ids.filter((id) => !this.#specialIds.has(id))))),
      encoderAttentions,
      encoderShape: [c.encoderLayers, c.encoderHeads, sourceIds.length, sourceIds.length],
      steps,
      stopReason,
    };
  }

  /**
   * Activation patching (js/patching.js, engine/seq2seq_patching.h): the sources `clean` and
   * `corrupted` (texts or ids, the same token length) under the same decoder input
   * (decoder_start_token_id, then `target` text or `targetIds`); LD at its last position; the
   * decoder's sites or the encoder's (`stack`). Resolves as Model.patch.
   */
  async patch(options) {
    checkOptionNames(options, SEQ2SEQ_PATCH_OPTIONS, 'patch');
    const site = checkPatchOptions(options);
    const stack = options.stack ?? PATCH_STACKS[0];
    if (!PATCH_STACKS.includes(stack)) throw new AttnScopeError('E_INPUT', `patch: stack must be ${PATCH_STACKS.join(' or ')}, got ${JSON.stringify(stack)}`);
    if (options.target != null && options.targetIds != null) throw new AttnScopeError('E_INPUT', 'patch: give target or targetIds, not both');
    const ids = (value, name) => (typeof value === 'string' ? this.tokenize(value).ids : integerArray(value, name));
    // Target text is a prefix the decoder has written so far: its tokens without the special ones
    // the tokenizer adds (T5's </s>), so the LD is read after its last word, not after an end.
    const target = options.target != null ? targetPrefixIds(this.tokenizeTarget(options.target)) : integerArray(options.targetIds ?? [], 'targetIds');
    const decoderIds = Int32Array.from([this.config.decoderStartTokenId, ...target]);
    const native = this.#alive();
    // Answers are target tokens: looked up and tokenized on the decoder's side.
    const vocabulary = { tokenToId: (t) => native.tokenToId(t), tokenize: (t) => this.tokenizeTarget(t) };
    const answer = answerTokenId(vocabulary, options.answer, 'answer', this.config.vocabSize);
    const wrong = answerTokenId(vocabulary, options.wrong, 'wrong', this.config.vocabSize);
    const engine = {
      startPatch: (clean, corrupted, a, w, _position, s) =>
        callWasm(() => this.#alive().startPatch(clean, corrupted, decoderIds, a, w, s, stack)),
      patchRow: (layer) => callWasm(() => this.#alive().patchRow(layer)),
      endPatch: () => { if (!this.disposed) this.#native.endPatch(); },
    };
    const grid = await patchGrid(engine, { clean: ids(options.clean, 'clean'), corrupted: ids(options.corrupted, 'corrupted'),
      answer, wrong, position: -1, site, signal: options.signal, onProgress: callerCallback(options.onProgress, 'patch: onProgress') });
    return { ...grid, stack };
  }

  // The steer option's vector: given, or the decoder's mean residual stream entering the layer for
  // `to` minus that for `from` (target texts or ids after decoder_start_token_id) over the source.
  #steeringVector(steer, sourceIds) {
    if (steer.vector) return steer.vector;
    const decoderIds = (value) => Int32Array.from([this.config.decoderStartTokenId,
      ...(typeof value === 'string' ? this.tokenizeTarget(value).ids : value)]);
    return callWasm(() => this.#alive().steeringVector(steer.layer, Int32Array.from(sourceIds), decoderIds(steer.from), decoderIds(steer.to)));
  }

  // The ids of the config's special roles (padding, end of sequence, the decoder's start): a
  // generation's text leaves them out, as Hugging Face's decode(skip_special_tokens=True) does; its
  // ids keep them.
  get #specialIds() {
    const c = this.config;
    return new Set([c.padTokenId, c.eosTokenId, c.decoderStartTokenId].filter((id) => Number.isInteger(id) && id >= 0));
  }

  #named(entries) {
    return entries.map(({ id, prob }) => ({ id, token: this.#token(id), prob }));
  }

  #token(id) {
    const native = this.#native;
    return id >= 0 && id < native.tokenizerVocabSize() ? native.idToToken(id) : '[?]';
  }

  #alive() {
    if (!this.#native) throw new AttnScopeError('E_DISPOSED', 'this model was disposed');
    checkEngineAlive(this.#engineEpoch);
    return this.#native;
  }
}

function integerArray(values, name) {
  if (values == null || typeof values[Symbol.iterator] !== 'function') throw new AttnScopeError('E_INPUT', `${name} must be an array of token ids`);
  const out = Array.from(values);
  for (const v of out) {
    if (!Number.isInteger(v) || v < -(2 ** 31) || v >= 2 ** 31) throw new AttnScopeError('E_INPUT', `${name}: ${v} is not a token id`);
  }
  return Int32Array.from(out);
}
