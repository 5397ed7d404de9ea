// What each head does, in numbers (Clark et al. 2019, "What Does BERT Look At?"): per head, over
// the query rows of one or more runs, the attention entropy, the mean distance attended, the
// share on the previous / next / same token, and the mass on the first token and on the special
// tokens ([CLS] at the start, [SEP] elsewhere; none for GPT-2). For the head table of the page
// and for scripts; the effect of switching a head off is in ablationEffects().
import { AttnScopeError, abortedError } from '../formats/errors.js';

export const HEAD_STATISTICS = Object.freeze(['entropy', 'meanDistance', 'previousShare', 'nextShare', 'selfShare',
  'firstMass', 'clsMass', 'sepMass']);

/**
 * @param {Array<{attentions: Float32Array, shape: number[], specialTokensMask?: Uint8Array}>} results
 *   runs of one model (one or many sentences)
 * @returns {{layer: number, head: number, rows: number, entropy: number, meanDistance: number,
 *   previousShare: number, nextShare: number, selfShare: number, firstMass: number, clsMass: number,
 *   sepMass: number}[]} one entry per head, layer-major; each value the mean over every query row
 *   (entropy in nats)
 */
export function headStatistics(results) {
  const list = Array.isArray(results) ? results : [results];
  if (list.length === 0) throw new AttnScopeError('E_INPUT', 'headStatistics needs at least one run');
  const sums = headStatisticsSums();
  for (const r of list) sums.add(r);
  return sums.finish();
}

/**
 * headStatistics() one run at a time (the worker's corpus job keeps only these sums, not the
 * runs): add(run) for each run, then finish() gives headStatistics' rows. Same sums in the same
 * order, so the same numbers to the last bit.
 */
export function headStatisticsSums() {
  let L = 0, H = 0, sums = null, rows = 0;
  return {
    get rows() { return rows; },
    add(r) {
      const [l2, h2, T] = r.shape;
      if (!sums) {
        [L, H] = [l2, h2];
        sums = Array.from({ length: L * H }, () => Object.fromEntries(HEAD_STATISTICS.map((k) => [k, 0])));
      }
      if (l2 !== L || h2 !== H) throw new AttnScopeError('E_INPUT', 'headStatistics: runs of different models');
      const special = r.specialTokensMask ?? new Uint8Array(T);
      rows += T;
      for (let lh = 0; lh < L * H; lh++) {
        const s = sums[lh];
        const base = lh * T * T;
        for (let i = 0; i < T; i++) {
          const row = base + i * T;
          let entropy = 0, distance = 0, cls = 0, sep = 0;
          for (let j = 0; j < T; j++) {
            const p = r.attentions[row + j];
            if (p > 0) entropy -= p * Math.log(p);
            distance += p * Math.abs(i - j);
            if (special[j]) {
              if (j === 0) cls += p;
              else sep += p;
            }
          }
          s.entropy += entropy;
          s.meanDistance += distance;
          s.previousShare += i > 0 ? r.attentions[row + i - 1] : 0;
          s.nextShare += i + 1 < T ? r.attentions[row + i + 1] : 0;
          s.selfShare += r.attentions[row + i];
          s.firstMass += r.attentions[row];
          s.clsMass += cls;
          s.sepMass += sep;
        }
      }
    },
    finish() {
      if (!sums) throw new AttnScopeError('E_INPUT', 'headStatistics needs at least one run');
      return sums.map((s, lh) => ({
        layer: Math.floor(lh / H), head: lh % H, rows,
        ...Object.fromEntries(HEAD_STATISTICS.map((k) => [k, s[k] / rows])),
      }));
    },
  };
}

/**
 * How much each head matters: the mean change in log-probability of the tokens the model should
 * predict when that head alone is switched off (Michel et al. 2019). Decoders: every next token
 * of each text. Encoders with a masked-LM head: every `maskEvery`-th word piece replaced by the
 * mask token in turn is scored (one run per masked position set, as in BERT's training).
 * @param {{runIds: Function, config: object, tokenize: Function, tokenToId: Function}} model a
 *   loaded Model (the API's; the page runs it inside its worker)
 * @param {string[]} texts
 * @param {{maskEvery?: number, onProgress?: Function, signal?: AbortSignal}} [options] the
 *   signal stops it between two runs with E_ABORTED
 * @returns {Promise<{baseline: number, heads: {layer: number, head: number, delta: number}[]}>}
 *   baseline: the intact model's mean log-probability; delta: ablated minus intact (negative =
 *   the head helps)
 */
export async function ablationEffects(model, texts, { maskEvery = 7, onProgress, signal } = {}) {
  const steps = ablationSteps(model, texts, { maskEvery });
  for (;;) {
    if (signal?.aborted) throw abortedError(signal.reason);
    const { value, done } = await steps.next();
    if (done) return value;
    if (value.headDone) onProgress?.({ done: value.done, total: value.total });
  }
}

/**
 * ablationEffects() as an async generator, one run per step, so a caller can stop or pause
 * between two runs (the worker's ablation job runs it in time slices). Yields
 * { done, total, runs, totalRuns, headDone } (done/total in heads, the intact model first
 * counting as none); returns ablationEffects' result.
 */
export async function* ablationSteps(model, texts, { maskEvery = 7 } = {}) {
  const { numLayers: L, numHeads: H, isDecoder } = model.config;
  const jobs = [];  // {ids, original?}: one run each
  for (const text of texts) {
    const { ids, specialTokensMask } = model.tokenize(text);
    if (isDecoder) {
      jobs.push({ ids });  // every position predicts the token after it
      continue;
    }
    const mask = model.maskTokenId;
    if (!(mask >= 0)) throw new AttnScopeError('E_INPUT', 'ablationEffects: this encoder has no mask token');
    for (let offset = 0; offset < maskEvery; offset++) {
      const masked = Int32Array.from(ids);
      let count = 0;
      for (let p = offset; p < ids.length; p += maskEvery) {
        if (specialTokensMask[p]) continue;
        masked[p] = mask;
        count++;
      }
      if (count) jobs.push({ ids: masked, original: ids });
    }
  }
  const totalRuns = (L * H + 1) * jobs.length;
  let runs = 0;
  const progress = (done, headDone) => ({ done, total: L * H, runs, totalRuns, headDone });
  async function* score(headMask, headsDone) {
    let total = 0, count = 0;
    for (const job of jobs) {
      const r = await model.runIds(job.ids, { headMask, topK: 1, ...(isDecoder ? { nextAll: true } : { originalIds: job.original }) });
      const actual = isDecoder ? r.nextByPosition.map((p) => p.actual) : r.maskPredictions.map((p) => p.actual);
      for (const a of actual) {
        if (!a) continue;  // a decoder's last position predicts nothing in the text
        total += Math.log(a.prob);
        count++;
      }
      runs++;
      yield progress(headsDone, false);
    }
    return total / count;
  }
  const baseline = yield* score(null, 0);
  const heads = [];
  for (let l = 0; l < L; l++) {
    for (let h = 0; h < H; h++) {
      const headMask = Array.from({ length: L }, (_, ll) => Array.from({ length: H }, (_, hh) => (ll === l && hh === h ? 0 : 1)));
      heads.push({ layer: l, head: h, delta: (yield* score(headMask, heads.length)) - baseline });
      yield progress(heads.length, true);
    }
  }
  return { baseline, heads };
}
