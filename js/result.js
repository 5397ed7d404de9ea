// The RunResult object the API, the worker client and the page share (shape in docs/DESIGN.md):
// flat typed arrays plus attention(layer, head), a zero-copy T×T view of one head.
import { AttnScopeError } from './errors.js';

// Typed-array fields of a RunResult, in the order the worker transfers them.
const RUN_RESULT_ARRAYS = ['ids', 'typeIds', 'offsets', 'specialTokensMask', 'attentions', 'hidden',
  'hiddenStates', 'q', 'k', 'v', 'valueNorms', 'headMask', 'wordAttentions'];

const EMPTY = new Float32Array(0);

export class RunResult {
  #released;

  /** @param {object} fields plain RunResult data (e.g. from a worker message); without kvHeads,
   *  every query head has its own key/value head (all but the Llama family's grouped heads). */
  constructor(fields) {
    Object.assign(this, fields);
    this.kvHeads ??= Array.from({ length: this.shape[1] }, (_, h) => h);
  }

  /** Why this result can no longer be read (e.g. its buffers went to a later run), or undefined. */
  get released() {
    return this.#released;
  }

  /** @internal Drops the arrays (their memory now belongs to another result). */
  release(reason) {
    this.#released = reason;
    for (const name of RUN_RESULT_ARRAYS) if (this[name] !== undefined) this[name] = EMPTY;
  }

  /** Attention probabilities of one head: row i is query token i (T×T, row-major, a view). */
  attention(layer, head) {
    if (this.#released) throw new AttnScopeError('E_DISPOSED', `this RunResult was released: ${this.#released}`);
    const [layers, heads, tokens] = this.shape;
    if (!Number.isInteger(layer) || layer < 0 || layer >= layers) {
      throw new AttnScopeError('E_INPUT', `layer ${layer} out of range [0, ${layers})`);
    }
    if (!Number.isInteger(head) || head < 0 || head >= heads) {
      throw new AttnScopeError('E_INPUT', `head ${head} out of range [0, ${heads})`);
    }
    const size = tokens * tokens;
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
