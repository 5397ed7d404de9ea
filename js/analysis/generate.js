// Text generation, streamed step by step, one loop for every family (a decoder's prompt, or an
// encoder–decoder's source, runs once; each step then picks a token from the last position's
// logits — in wasm, beside them: engine/sampling.h, which follows js/analysis/sampling.js decision for
// decision — and runs only that token over the engine's KV cache, so a step costs one position's
// work). Every step carries the attention rows of the position it ran, in every layer and head.
import { AttnScopeError, abortedError } from '../formats/errors.js';
import { seededRandom } from './sampling.js';

export const GENERATE_DEFAULTS = Object.freeze({
  maxNewTokens: 20,
  // Hugging Face generate()'s sampling defaults; temperature 0 is greedy.
  temperature: 1,
  topK: 50,
  topP: 1,
  seed: 0,
  stopAtEos: true,
  candidates: 5,  // the model's top tokens reported with each step
});

/** Validates generate() options, filling defaults; E_INPUT names the bad one. */
export function generateOptions(options) {
  const o = { ...GENERATE_DEFAULTS, ...options };
  const integer = (name, min) => {
    if (!Number.isInteger(o[name]) || o[name] < min) throw new AttnScopeError('E_INPUT', `${name} must be an integer >= ${min}, got ${o[name]}`);
  };
  integer('maxNewTokens', 0);
  integer('topK', 0);
  integer('candidates', 0);
  if (!Number.isInteger(o.seed) || o.seed < 0 || o.seed > 0xFFFFFFFF) {
    throw new AttnScopeError('E_INPUT', `seed must be an integer in [0, 2^32), got ${o.seed}`);
  }
  if (typeof o.temperature !== 'number' || !(o.temperature >= 0) || !Number.isFinite(o.temperature)) {
    throw new AttnScopeError('E_INPUT', `temperature must be a finite number >= 0, got ${o.temperature}`);
  }
  if (typeof o.topP !== 'number' || !(o.topP > 0 && o.topP <= 1)) {
    throw new AttnScopeError('E_INPUT', `topP must be in (0, 1], got ${o.topP}`);
  }
  if (typeof o.stopAtEos !== 'boolean') throw new AttnScopeError('E_INPUT', `stopAtEos must be true or false, got ${o.stopAtEos}`);
  if (o.onToken !== undefined && typeof o.onToken !== 'function') throw new AttnScopeError('E_INPUT', 'onToken must be a function');
  o.steer = steerOption(o.steer);
  return o;
}

/**
 * Checks a steer option (steering.h): {layer, strength} and either vector (hidden_size numbers) or
 * from and to (texts or token ids, whose mean residual streams entering the layer differ by v).
 * Returns it with the vector as a Float32Array, or null without one. The engine checks the layer
 * and the vector's length against the model.
 */
export function steerOption(steer) {
  if (steer === undefined || steer === null) return null;
  const bad = (why) => new AttnScopeError('E_INPUT', `steer: ${why}`);
  if (typeof steer !== 'object') throw bad('must be {layer, strength, vector} or {layer, strength, from, to}');
  const unknown = Object.keys(steer).filter((k) => steer[k] !== undefined && !['layer', 'strength', 'vector', 'from', 'to'].includes(k));
  if (unknown.length) throw bad(`unknown key ${unknown.map((k) => JSON.stringify(k)).join(', ')} (accepted: layer, strength, vector, from, to)`);
  if (!Number.isInteger(steer.layer) || steer.layer < 0) throw bad(`layer must be an integer >= 0, got ${steer.layer}`);
  if (typeof steer.strength !== 'number' || !Number.isFinite(steer.strength)) throw bad(`strength must be a finite number, got ${steer.strength}`);
  const texts = steer.from !== undefined || steer.to !== undefined;
  if (texts === (steer.vector !== undefined)) throw bad('give either vector or from and to');
  if (!texts) {
    if (!Array.isArray(steer.vector) && !ArrayBuffer.isView(steer.vector)) throw bad('vector must be an array of numbers');
    const vector = Float32Array.from(steer.vector);
    if (!vector.every(Number.isFinite)) throw bad('vector must hold finite numbers');
    return { layer: steer.layer, strength: steer.strength, vector };
  }
  for (const name of ['from', 'to']) {
    const v = steer[name];
    const ids = (Array.isArray(v) || ArrayBuffer.isView(v)) && v.length > 0 && Array.prototype.every.call(v, Number.isInteger);
    if (!(typeof v === 'string' && v.length > 0) && !ids) throw bad(`${name} must be a non-empty text or token ids`);
  }
  return { layer: steer.layer, strength: steer.strength, from: steer.from, to: steer.to };
}

/**
 * A generation in progress, the one loop every family's generate() runs: iterate it (`for await
 * (const step of generation)`) for the steps as they come, and/or await `generation.result` for the
 * whole sequence. Runs whether or not anyone iterates; cancel() or the signal stops it (result
 * rejects with E_ABORTED). Between two steps it yields to the event loop: in a worker that is when
 * an 'abort' message is handled, so a stop lands within one step whatever the family.
 */
export class Generation {
  #steps = [];
  #waiting = null;
  #finished = false;
  #error = null;
  #cancelled = false;

  /**
   * @param {object} session what the model provides (js/api/model.js, js/api/seq2seq.js make one):
   *   begin() → what `prompt` holds once the input has run (decoders: the prompt's ids, tokens and
   *   attention; encoder–decoders: null, the source is encoded), length() → positions so far,
   *   maxPositions, eosId, step(index, nextTokenOptions(options, random)) → {record (kept in the
   *   result's steps), streamed (to onToken and the iterator)} for one new token,
   *   result(steps, stopReason) → the family's summary, finish() (called once at the end, whatever
   *   happened)
   * @param {object} options from generateOptions(), plus signal
   */
  constructor(session, options) {
    this.prompt = null;  // decoders: {ids, tokens, numTruncated, attentions (null: kept on demand), shape, kvHeads} once the prompt has run
    this.result = this.#run(session, options);
    this.result.catch(() => {});  // rejections surface through the iterator or `result`
  }

  /** Stops after the step in progress; `result` rejects with E_ABORTED. */
  cancel() {
    this.#cancelled = true;
  }

  async* [Symbol.asyncIterator]() {
    for (let next = 0; ; next++) {
      while (next >= this.#steps.length && !this.#finished) await new Promise((resolve) => { this.#waiting = resolve; });
      if (next < this.#steps.length) yield this.#steps[next];
      else if (this.#error) throw this.#error;
      else return;
    }
  }

  #publish(step) {
    if (step) this.#steps.push(step);
    const wake = this.#waiting;
    this.#waiting = null;
    wake?.();
  }

  async #run(session, o) {
    const { signal } = o;
    const stopped = () => this.#cancelled || signal?.aborted;
    try {
      await nextTask();  // let the caller attach (and an abort arrive) before the first, possibly long, pass
      if (stopped()) throw abortedError(signal?.aborted ? signal.reason : undefined);
      this.prompt = session.begin();
      const random = seededRandom(o.seed);
      const steps = [];
      let stopReason = 'max-new-tokens';
      for (let index = 0; index < o.maxNewTokens; index++) {
        if (session.length() >= session.maxPositions) { stopReason = 'max-positions'; break; }
        const { record, streamed } = session.step(index, nextTokenOptions(o, random));
        steps.push(record);
        this.#publish(streamed);
        o.onToken?.(streamed);
        if (o.stopAtEos && record.id === session.eosId) { stopReason = 'eos'; break; }
        await nextTask();  // a cancel (or an abort message to a worker) gets its turn
        if (stopped()) throw abortedError(signal?.aborted ? signal.reason : undefined);
      }
      return session.result(steps, stopReason);
    } catch (error) {
      this.#error = error;
      throw error;
    } finally {
      session.finish();
      this.#finished = true;
      this.#publish(null);
    }
  }
}

/**
 * The model method (keyed by this symbol) that starts a Generation for every family: what the
 * worker runs. generate() returns it (decoders) or its result (encoder–decoders).
 */
export const START_GENERATION = Symbol('startGeneration');

/**
 * What a model's nextToken (bindings/sampling_js.h) takes for one step: the sampling options and
 * u, the seeded stream's next number — drawn only when sampling (temperature > 0), once per token,
 * as js/analysis/sampling.js's sampleToken draws it, so a seed gives the same ids as there.
 */
export function nextTokenOptions(o, random) {
  return { temperature: o.temperature, topK: o.topK, topP: o.topP, candidates: o.candidates, u: o.temperature > 0 ? random() : 0 };
}

// Yields to the event loop for one macrotask (MessageChannel: no 4 ms clamp as with nested
// setTimeout), so messages such as a worker's cancel are handled between steps: Generation awaits
// it after each step.
export function nextTask() {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}
