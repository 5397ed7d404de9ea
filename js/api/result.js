// The RunResult object the API, the worker client and the page share (shape in docs/DESIGN.md):
// flat typed arrays plus attention(layer, head), a zero-copy T×T view of one head. A run whose
// maps are kept on demand (engine/attention_sources.h: what the maps are made of stays in wasm
// memory, memoryBytes of it) computes a head's map when attention(layer, head) asks; reading
// `attentions` whole (older readers) computes every map once and keeps them. Through the worker
// client, such a run's maps stay in the worker (js/worker.js): attentionAsync / attentionsOf fetch
// heads, and attention(layer, head) then reads the few fetched last.
import { AttnScopeError } from '../formats/errors.js';

// Maps on demand kept computed (or fetched from the worker), most recent last: a view drawing one
// head, or a few, repeatedly pays for each map once; a grid of every head holds at most this many
// at a time, so it fetches this many at once.
export const CACHED_MAPS = 4;

const mapsFinalizer = typeof FinalizationRegistry === 'function'
  ? new FinalizationRegistry((free) => { try { free(); } catch { /* the engine is gone */ } })
  : null;

// Typed-array fields of a RunResult, in the order the worker transfers them.
const RUN_RESULT_ARRAYS = ['ids', 'typeIds', 'offsets', 'specialTokensMask', 'attentions', 'hidden',
  'hiddenStates', 'q', 'k', 'v', 'valueNorms', 'headMask', 'wordAttentions'];

const EMPTY = new Float32Array(0);

export class RunResult {
  #released;
  #maps = null;      // maps on demand: {map(layer, head) → Float32Array, bytes(), free()}, or in a
                     // worker: {fetch([[layer, head], …]) → Promise<Float32Array[]>, bytes(), free()}
  #cached = [];      // [{layer, head, map}] computed on demand, most recent last
  #attentions;       // every map, once `attentions` was read (or given)

  /** @param {object} fields plain RunResult data (e.g. from a worker message); without kvHeads,
   *  every query head has its own key/value head (all but the Llama family's grouped heads).
   *  @param {object} [maps] @internal the engine's maps on demand (js/api/model.js), or the worker's
   *  (js/worker/client.js), owned from now on */
  constructor(fields, maps = null) {
    if (maps?.fetch) {
      this.#maps = maps;
      mapsFinalizer?.register(this, maps.free, this);
      // Not enumerable: a spread of the result does not trip over it.
      Object.defineProperty(this, 'attentions', {
        configurable: true,
        get: () => this.#attentions ?? (() => {
          throw new AttnScopeError('E_TOO_LARGE', "this run's attention maps stay in the worker (too large to hold " +
            'whole): read one head at a time with await result.attentionAsync(layer, head)');
        })(),
        set: (value) => { this.#attentions = value; },
      });
    } else if (maps) {
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

  /** Whether the maps are in a worker: attention(layer, head) reads only heads fetched by
   *  attentionAsync / attentionsOf (the last few). */
  get mapsInWorker() {
    return Boolean(this.#maps?.fetch) && this.#attentions === undefined;
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
    if (at < 0 && this.mapsInWorker) {
      throw new AttnScopeError('E_INPUT', `the map of layer ${layer}, head ${head} is in the worker: ` +
        'await result.attentionAsync(layer, head) first');
    }
    const entry = at >= 0 ? this.#cached.splice(at, 1)[0] : { layer, head, map: this.#maps.map(layer, head) };
    this.#keep(entry);
    return entry.map;
  }

  #keep(entry) {
    this.#cached.push(entry);
    if (this.#cached.length > CACHED_MAPS) this.#cached.shift();
  }

  /** One head's map (as attention(layer, head)), fetched from the worker first if it is there. */
  async attentionAsync(layer, head) {
    return (await this.attentionsOf([[layer, head]]))[0];
  }

  /** Several heads' maps, [[layer, head], …] → [T×T, …]: from a worker in one job (ask for a few
   *  at a time — the answer holds them all — and drop each once drawn). */
  async attentionsOf(heads) {
    if (!this.mapsInWorker) return heads.map(([layer, head]) => this.attention(layer, head));
    heads.forEach(([layer, head]) => this.#checkHead(layer, head));
    const missing = heads.filter(([layer, head]) => !this.#cached.some((c) => c.layer === layer && c.head === head));
    const fetched = missing.length ? await this.#maps.fetch(missing) : [];
    if (this.#released) throw new AttnScopeError('E_DISPOSED', `this RunResult was released: ${this.#released}`);
    const byKey = new Map(missing.map(([layer, head], i) => [`${layer}/${head}`, fetched[i]]));
    return heads.map(([layer, head]) => {
      const map = byKey.get(`${layer}/${head}`) ?? this.#mapOnDemand(layer, head);
      if (byKey.has(`${layer}/${head}`)) this.#keep({ layer, head, map });
      return map;
    });
  }

  /** Why this result can no longer be read (e.g. its buffers went to a later run), or undefined. */
  get released() {
    return this.#released;
  }

  /** @internal Drops the arrays (their memory now belongs to another result). */
  release(reason = 'release() was called') {
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
    this.#checkHead(layer, head);
    const [, heads, tokens] = this.shape;
    if (this.mapsOnDemand) return this.#mapOnDemand(layer, head);
    const size = tokens * this.shape[3];
    const start = (layer * heads + head) * size;
    return this.attentions.subarray(start, start + size);
  }

  #checkHead(layer, head) {
    if (this.#released) throw new AttnScopeError('E_DISPOSED', `this RunResult was released: ${this.#released}`);
    const [layers, heads] = this.shape;
    if (!Number.isInteger(layer) || layer < 0 || layer >= layers) {
      throw new AttnScopeError('E_INPUT', `layer ${layer} out of range [0, ${layers})`);
    }
    if (!Number.isInteger(head) || head < 0 || head >= heads) {
      throw new AttnScopeError('E_INPUT', `head ${head} out of range [0, ${heads})`);
    }
  }

  /** Word-level attention of one head (run with words: true): W×W over this.words, a view. */
  wordAttention(layer, head) {
    if (!this.wordAttentions) throw new AttnScopeError('E_INPUT', 'no word attentions: run with { words: true }');
    this.attention(layer, head);  // the same checks
    const W = this.words.length;
    const start = (layer * this.shape[1] + head) * W * W;
    return this.wordAttentions.subarray(start, start + W * W);
  }

  /** The typed arrays' buffers, for postMessage transfer lists (maps on demand are not held, so
   *  not among them). */
  transferables() {
    const norms = this.trace?.layerNorms;
    const traced = this.trace
      ? [this.trace.embeddings, ...this.trace.layers].flatMap((group) => Object.values(group))
        .concat(this.trace.finalNorm ?? [])
        .concat([norms.embeddings, ...norms.layers.flatMap((l) => Object.values(l)), norms.final]
          .filter(Boolean).flatMap(({ gamma, beta }) => [gamma, beta]))
      : [];
    const flow = this.flow ? Object.values(this.flow).filter(ArrayBuffer.isView) : [];
    const held = this.mapsOnDemand ? RUN_RESULT_ARRAYS.filter((name) => name !== 'attentions') : RUN_RESULT_ARRAYS;
    return [...held.map((name) => this[name]), ...traced, ...flow].filter(Boolean).map((a) => a.buffer);
  }
}
