// What an encoder–decoder (BART, Marian, T5) does as a Model (js/api/model.js, kind
// 'encoder-decoder', which owns the native Seq2SeqModel and its lifecycle). run / runIds: the
// encoder over a source and the decoder over decoder_start_token_id followed by the target, with
// all three attention kinds, and the decoder side's logit lens, attribution and value norms;
// generation: the target token by token over the decoder's KV cache (the source encoded, and its
// cross keys and values computed, once), each step with its self- and cross-attention rows, run by
// the one loop of js/analysis/generate.js. Results name things as transformers does (encoder_attentions,
// decoder_attentions, cross_attentions) in camelCase.
import { AttnScopeError, callerCallback } from '../formats/errors.js';
import { checkGenerationFits, seq2seqGenerationBytes } from './generation-budget.js';
import { headMaskArray } from './head-mask.js';
import { callWasm } from './wasm.js';
import { topKSoftmax } from '../analysis/mlm.js';
import { generateOptions } from '../analysis/generate.js';
import { SEQ2SEQ_GENERATE_OPTIONS, SEQ2SEQ_RUN_OPTIONS, checkMapsOption, checkOptionNames } from './options.js';
import { PATCH_STACKS, SEQ2SEQ_PATCH_OPTIONS, answerTokenId, checkPatchOptions, patchGrid, targetPrefixIds } from '../analysis/patching.js';
import { checkAnalysisOptions, lensRows, attributionResult } from './analysis-results.js';

const DEFAULT_TOP_K = 5;

/**
 * The type name of an encoder–decoder Model: `model instanceof Seq2SeqModel` is true for a Model
 * of kind 'encoder-decoder' (there is one model class; loadModel() builds it).
 */
export class Seq2SeqModel {
  constructor() {
    throw new AttnScopeError('E_INPUT', 'Seq2SeqModel is not constructed: loadModel() resolves to a Model of kind encoder-decoder');
  }

  static [Symbol.hasInstance](value) {
    return value?.kind === 'encoder-decoder';
  }
}

export class EncoderDecoder {
  #alive;
  // The engine holds one generation's encoder output and decoder cache (start/step), and a
  // generation yields between its steps: a second generate() waits for the one in progress.
  #generating = Promise.resolve();

  /** @param {() => object} alive the native Seq2SeqModel (E_DISPOSED once disposed) */
  constructor(alive, config) {
    this.#alive = alive;
    this.config = config;
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

  #run(sourceIds, targetIds, options) {
    const { topK = DEFAULT_TOP_K, trace = false, logits = false, qkv = false, flow = false, valueNorms = false,
      headMask, decoderHeadMask, crossAttnHeadMask } = options;
    const native = this.#alive();
    for (const [name, value] of Object.entries({ trace, qkv, flow, valueNorms })) {
      if (typeof value !== 'boolean') throw new AttnScopeError('E_INPUT', `${name} must be true or false`);
    }
    checkAnalysisOptions(options);
    // The same option as the other models' runs, so code written for any model runs here; the
    // engine keeps an encoder–decoder's three attentions whole, which 'auto' and 'eager' both mean.
    checkMapsOption(options.maps);
    if (options.maps === 'on-demand') {
      throw new AttnScopeError('E_CONFIG', "maps: 'on-demand' is not implemented for encoder–decoders: their attention maps " +
        "are kept whole (use 'auto' or 'eager')");
    }
    const c = this.config;
    // Hugging Face's three masks: the encoder's heads, the decoder's self-attention heads and its
    // cross-attention heads.
    const masks = {
      headMask: headMaskArray(headMask, { layers: c.encoderLayers, heads: c.encoderHeads, name: 'headMask' }),
      decoderHeadMask: headMaskArray(decoderHeadMask, { layers: c.decoderLayers, heads: c.decoderHeads, name: 'decoderHeadMask' }),
      crossAttnHeadMask: headMaskArray(crossAttnHeadMask, { layers: c.decoderLayers, heads: c.decoderHeads, name: 'crossAttnHeadMask' }),
    };
    const decoderIds = Int32Array.from([c.decoderStartTokenId, ...targetIds]);
    const source = Int32Array.from(sourceIds);
    const raw = callWasm(() => native.run(source, decoderIds, { trace, qkv, flow, valueNorms, ...masks }));
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
      // valueNorms: ‖v_j W_O,h‖ per key of each attention (Kobayashi et al. 2020), as the other
      // families' valueNorms: [Le][He][S], [Ld][Hd][T] and, over the source, [Ld][Hd][S].
      ...(raw.encoderValueNorms ? { encoderValueNorms: raw.encoderValueNorms, decoderValueNorms: raw.decoderValueNorms,
        crossValueNorms: raw.crossValueNorms } : {}),
      // The decoder side's logit lens and direct logit attribution (engine/seq2seq_analysis.h),
      // each its own pass with the same masks, as the other families' logitLens and attribution.
      ...(options.logitLens ? { logitLens: lensRows(callWasm(() => native.logitLens(source, decoderIds, masks, options.logitLens)),
        (id) => this.#namedToken(id), true) } : {}),
      ...(options.attribution ? { attribution: this.#attribution(source, decoderIds, masks, options.attribution) } : {}),
    };
  }

  #attribution(source, decoderIds, masks, request) {
    const { position = -1, tokenId = -1 } = request === true ? {} : request;
    const raw = callWasm(() => this.#alive().attribution(source, decoderIds, masks, position, tokenId));
    return attributionResult(raw, (id) => this.#namedToken(id));
  }

  // id → {id, token, text} (the readable text is the token here: the bindings give no other).
  #namedToken(id) {
    const token = this.#token(id);
    return { id, token, text: token };
  }

  /**
   * Generates the target for a source (text or ids): ids start with decoder_start_token_id (text
   * is the generated ids' text without the special tokens of the config's roles); each
   * step carries the new token's decoder self-attention row (Ld, Hd, keys) and cross-attention row
   * (Ld, Hd, S). temperature 0 is greedy. `start(options)` starts the model's Generation
   * (js/analysis/generate.js) of this source; a second generate() waits for the one in progress.
   */
  async generate(source, options, start) {
    checkOptionNames(options, SEQ2SEQ_GENERATE_OPTIONS, 'generate');
    const previous = this.#generating;
    let done;
    this.#generating = new Promise((resolve) => { done = resolve; });
    try {
      await previous;
      return await start(options).result;
    } finally {
      done();
    }
  }

  /**
   * The session of the one generation loop (generate.js's Generation) for a source, and its
   * checked options: the source is encoded (its cross K/V computed) once, then each step runs the
   * last token over the decoder's cache and picks the next from its logits.
   */
  generation(source, options) {
    checkOptionNames(options, SEQ2SEQ_GENERATE_OPTIONS, 'generate');
    const { maxLength, ...rest } = options;
    const o = generateOptions({ ...rest, onToken: callerCallback(rest.onToken, 'generate: onToken') });
    const native = this.#alive();
    const sourceIds = typeof source === 'string' ? this.tokenize(source, { maxLength }).ids : integerArray(source, 'ids');
    // Steering the decoder (every generate sets or clears it: only generation steps apply it).
    if (o.steer) callWasm(() => native.setSteering(o.steer.layer, this.#steeringVector(o.steer, sourceIds), o.steer.strength));
    else native.clearSteering();
    const c = this.config;
    const shape = { layers: c.decoderLayers, heads: c.decoderHeads, headDim: c.decoderHeadDim, sourceLength: sourceIds.length };
    checkGenerationFits({ maxNewTokens: o.maxNewTokens, positionsLeft: c.maxTokens - 1,
      bytesFor: (n) => seq2seqGenerationBytes(shape, n) });
    const ids = [c.decoderStartTokenId];
    let encoderAttentions = null;
    const session = {
      maxPositions: c.maxTokens,
      eosId: c.eosTokenId,
      begin: () => {
        encoderAttentions = callWasm(() => this.#alive().start(Int32Array.from(sourceIds)));
        return null;
      },
      length: () => ids.length,
      step: (index, pickOptions) => {
        const out = callWasm(() => this.#alive().step(Int32Array.of(ids[ids.length - 1])));
        // The pick and its softmax in wasm, beside the logits (engine/sampling.h).
        const { id, prob, candidates } = callWasm(() => this.#alive().nextToken(pickOptions));
        ids.push(id);
        const step = {
          id,
          token: this.#token(id),
          prob,
          candidates: this.#named(candidates),
          // The step's query is the position that predicted `id` (its input: the previous token).
          decoderAttentions: out.decoderAttentions,
          crossAttentions: out.crossAttentions,
          keys: out.keys,
        };
        return { record: step, streamed: step };
      },
      result: (steps, stopReason) => ({
        sourceIds: Int32Array.from(sourceIds),
        sourceTokens: Array.from(sourceIds, (id) => this.#token(id)),
        ids: Int32Array.from(ids),
        tokens: ids.map((id) => this.#token(id)),
        text: callWasm(() => this.#alive().decode(Int32Array.from(ids.filter((id) => !this.#specialIds.has(id))))),
        encoderAttentions,
        encoderShape: [c.encoderLayers, c.encoderHeads, sourceIds.length, sourceIds.length],
        steps,
        stopReason,
      }),
      finish: () => {},
    };
    return [session, o];
  }

  /**
   * Activation patching (js/analysis/patching.js, engine/seq2seq_patching.h): the sources `clean` and
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
      endPatch: () => { try { this.#alive().endPatch(); } catch { /* disposed: nothing to end */ } },
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
    const native = this.#alive();
    return id >= 0 && id < native.tokenizerVocabSize() ? native.idToToken(id) : '[?]';
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
