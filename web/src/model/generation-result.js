// A run that grows while a decoder writes: starts from the prompt's RunResult and takes one
// generated token per step, adding that token's attention row (where it looked, in every layer
// and head) under the rows already there. It offers what the views read from a RunResult
// (tokens, tokenTexts, shape, attention(l, h), nextByPosition, ...), so every heatmap shows the
// new row as it arrives. Earlier rows never change: a decoder's past does not see the future.
// q/k/v and value norms exist only for the prompt, so the views that need them say so until the
// finished generation is run again in full.

export class GenerationResult {
  /** @param {RunResult-like} prompt the run of the prompt (a decoder's, so causal) */
  constructor(prompt) {
    const [L, H, T] = prompt.shape;
    this.generatedFrom = T;
    this.tokens = [...prompt.tokens];
    this.tokenTexts = [...(prompt.tokenTexts ?? prompt.tokens)];
    this.ids = Int32Array.from(prompt.ids);
    this.typeIds = new Int32Array(T);
    this.offsets = Int32Array.from(prompt.offsets);
    this.specialTokensMask = Uint8Array.from(prompt.specialTokensMask);
    this.numTruncated = prompt.numTruncated ?? 0;
    this.shape = [L, H, T, T];
    this.attentions = Float32Array.from(prompt.attentions);
    // The prompt's own predictions, then one entry per generated token (its step's candidates).
    this.nextByPosition = [...(prompt.nextByPosition ?? [])];
  }

  attention(layer, head) {
    const [, H, T] = this.shape;
    const start = (layer * H + head) * T * T;
    return this.attentions.subarray(start, start + T * T);
  }

  /** A generation step from the worker: {position, id, token, text, prob, candidates, keys,
   *  attention (L·H·keys: the new token's row in every layer and head)}. Returns a new result
   *  (views cache per result object, so each step must be a fresh one). */
  withStep(step) {
    const [L, H, T] = this.shape;
    if (step.keys !== T + 1) throw new Error(`generation step has ${step.keys} keys, expected ${T + 1}`);
    const next = Object.create(GenerationResult.prototype);
    Object.assign(next, this);
    const T1 = T + 1;
    const a = new Float32Array(L * H * T1 * T1);
    for (let m = 0; m < L * H; m++) {
      for (let i = 0; i < T; i++) a.set(this.attentions.subarray((m * T + i) * T, (m * T + i + 1) * T), (m * T1 + i) * T1);
      a.set(step.attention.subarray(m * T1, (m + 1) * T1), (m * T1 + T) * T1);
    }
    next.attentions = a;
    next.shape = [L, H, T1, T1];
    next.tokens = [...this.tokens, step.token];
    next.tokenTexts = [...this.tokenTexts, step.text];
    next.ids = Int32Array.from([...this.ids, step.id]);
    next.typeIds = new Int32Array(T1);
    next.offsets = Int32Array.from([...this.offsets, 0, 0]);   // not in the typed text
    next.specialTokensMask = Uint8Array.from([...this.specialTokensMask, 0]);
    // What the model expected after the previous token: this step's candidates, and the token
    // it wrote (its rank among the candidates, or null when it was sampled from outside them).
    const rank = step.candidates.findIndex((c) => c.id === step.id);
    const expected = { position: T - 1, top: step.candidates,
      actual: { id: step.id, token: step.token, text: step.text, prob: step.prob, rank: rank >= 0 ? rank : null } };
    next.nextByPosition = [...this.nextByPosition.filter((e) => e.position !== T - 1), expected];
    return next;
  }
}
