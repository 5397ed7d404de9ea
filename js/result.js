// The RunResult object the API, the worker client and the page share (shape in docs/DESIGN.md):
// flat typed arrays plus attention(layer, head), a zero-copy T×T view of one head. A run whose
// maps are kept on demand (engine/attention_sources.h: what the maps are made of stays in wasm
// memory, memoryBytes of it) computes a head's map when attention(layer, head) asks; reading
// `attentions` whole (the worker's transfer, older readers) computes every map once and keeps them.
import { AttnScopeError } from './errors.js';

// Maps on demand kept computed, most recent last: a view drawing one head, or a few, repeatedly
// pays for each map once; a grid of every head holds at most this many at a time.
const CACHED_MAPS = 4;

const mapsFinalizer = typeof FinalizationRegistry === 'function'
  ? new FinalizationRegistry((free) => { try { free(); } catch { /* the engine is gone */ } })
  : null;

// Typed-array fields of a RunResult, in the order the worker transfers them.
const RUN_RESULT_ARRAYS = ['ids', 'typeIds', 'offsets', 'specialTokensMask', 'attentions', 'hidden',
  'hiddenStates', 'q', 'k', 'v', 'valueNorms', 'headMask', 'wordAttentions'];

const EMPTY = new Float32Array(0);

export class RunResult {
  #released;
  #maps = null;      // maps on demand: {map(layer, head) → Float32Array, bytes(), free()}
  #cached = [];      // [{layer, head, map}] computed on demand, most recent last
  #attentions;       // every map, once `attentions` was read (or given)

  /** @param {object} fields plain RunResult data (e.g. from a worker message); without kvHeads,
   *  every query head has its own key/value head (all but the Llama family's grouped heads).
   *  @param {object} [maps] @internal the engine's maps on demand (js/model.js), owned from now on */
  constructor(fields, maps = null) {
    if (maps) {
      this.#maps = maps;
      mapsFinalizer?.register(this, maps.free, this);
      // Own and enumerable, so a spread ({...result}: the worker's message) reads it too.
      Object.defineProperty(this, 'attentions', {
        enumerable: true,
        configurable: true,
        get: () => (this.#attentions ??= this.#everyMap()),
        set: (value) => { this.#attentions = value; },
      });
    }
    Object.assign(this, fields);
    this.kvHeads ??= Array.from({ length: this.shape[1] }, (_, h) => h);
  }

  /** Bytes this result holds in wasm memory: its maps' sources when they are kept on demand, else 0
   *  (every other array is JavaScript's own). */
  get memoryBytes() {
    return this.#maps && !this.#released ? this.#maps.bytes() : 0;
  }

  /** Whether attention(layer, head) computes its map when asked (the maps are not held whole). */
  get mapsOnDemand() {
    return this.#maps !== null && this.#attentions === undefined;
  }

  // Every map, (L, H, T, T), computed one by one.
  #everyMap() {
    const [layers, heads, tokens, keys] = this.shape;
    const all = new Float32Array(layers * heads * tokens * keys);
    for (let l = 0; l < layers; l++) {
      for (let h = 0; h < heads; h++) all.set(this.#maps.map(l, h), (l * heads + h) * tokens * keys);
    }
    return all;
  }

  #mapOnDemand(layer, head) {
    const at = this.#cached.findIndex((c) => c.layer === layer && c.head === head);
    const entry = at >= 0 ? this.#cached.splice(at, 1)[0] : { layer, head, map: this.#maps.map(layer, head) };
    this.#cached.push(entry);
    if (this.#cached.length > CACHED_MAPS) this.#cached.shift();
    return entry.map;
  }

  /** Why this result can no longer be read (e.g. its buffers went to a later run), or undefined. */
  get released() {
    return this.#released;
  }

  /** @internal Drops the arrays (their memory now belongs to another result). */
  release(reason) {
    this.#released = reason;
    if (this.#maps) this.#attentions = EMPTY;  // before the loop reads it: no map is computed to be dropped
    for (const name of RUN_RESULT_ARRAYS) if (this[name] !== undefined) this[name] = EMPTY;
    if (this.#maps) {
      mapsFinalizer?.unregister(this);
      try { this.#maps.free(); } catch { /* the engine is gone */ }
      this.#cached = [];
    }
  }

  /** Attention probabilities of one head: row i is query token i (T×T, row-major; a view, or for
   *  maps on demand an array of its own, computed on first use). */
  attention(layer, head) {
    if (this.#released) throw new AttnScopeError('E_DISPOSED', `this RunResult was released: ${this.#released}`);
    const [layers, heads, tokens] = this.shape;
    if (!Number.isInteger(layer) || layer < 0 || layer >= layers) {
      throw new AttnScopeError('E_INPUT', `layer ${layer} out of range [0, ${layers})`);
    }
    if (!Number.isInteger(head) || head < 0 || head >= heads) {
      throw new AttnScopeError('E_INPUT', `head ${head} out of range [0, ${heads})`);
    }
    if (this.mapsOnDemand) return this.#mapOnDemand(layer, head);
    const size = tokens * this.shape[3];
    const start = (layer * heads + head) * size;
    return this.attentions.subarray(start, start + size);
  }

  /** Word-level attention of one head (run with words: true): W×W over this.words, a view. */
  wordAttention(layer, head) {
    if (!this.wordAttentions) throw new AttnScopeError('E_INPUT', 'no word attentions: run with { words: true }');
    this.attention(layer, head);  // the same checks
    const W = this.words.length;
    const start = (layer * this.shape[1] + head) * W * W;
    return this.wordAttentions.subarray(start, start + W * W);
  }

  /** The typed arrays' buffers, for postMessage transfer lists. */
  transferables() {
    const norms = this.trace?.layerNorms;
    const traced = this.trace
      ? [this.trace.embeddings, ...this.trace.layers].flatMap((group) => Object.values(group))
        .concat(this.trace.finalNorm ?? [])
        .concat([norms.embeddings, ...norms.layers.flatMap((l) => Object.values(l)), norms.final]
          .filter(Boolean).flatMap(({ gamma, beta }) => [gamma, beta]))
      : [];
    const flow = this.flow ? Object.values(this.flow).filter(ArrayBuffer.isView) : [];
    return [...RUN_RESULT_ARRAYS.map((name) => this[name]), ...traced, ...flow].filter(Boolean).map((a) => a.buffer);
  }
}
