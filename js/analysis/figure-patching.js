// Frozen patching figures (view 'patching'): one finished activation-patching grid
// (js/analysis/patching.js) with what the Patching view shows around it — the corrupted prompt's tokens
// beside the clean one's, the answer and wrong tokens, both runs' top predictions where the logit
// difference is read, both LDs — so <attn-scope src> draws the view with no model. The view asks
// for the corrupted run and the grid as worker jobs; the figure answers those two jobs itself
// (patchingFigureJobs) and aborts any other, as the element then runs the model.
//   patching: {site, answer, wrong, corruptedText, corruptedTokens, corruptedTokenTexts,
//              position, clean, corrupted (the two LDs, as `attnscope patch` writes them),
//              scores [L][T] or [L][H], top: {clean, corrupted}: [{id, token, text, prob}]}
// An encoder–decoder's (version 3) is a figure of its encoder (kind 'enc': the clean source's
// tokens), the corrupted tokens the corrupted source's, and adds
//   seq2seq: {stack, prefix (the view's target-so-far text, '' when it chose it), targetIds and
//             targetTokens (the decoder's input: start token, then the target so far),
//             encoderShape and decoderShape ([layers, heads] of each stack)}
// scores then being the stack's [layers][positions or heads], position the last target position.
import { AttnScopeError } from '../formats/errors.js';
import { HEAD_PATCH_SITES, PATCH_SITES, PATCH_STACKS } from './patching.js';

const TOP_FIELDS = ['id', 'token', 'text', 'prob'];

// Where patching reads its logits: after the last token (decoders), or at the first [MASK].
function topAt(run, decoder, position) {
  const top = decoder ? run.next : run.maskPredictions?.find((m) => m.position === position)?.top;
  if (!top?.length) throw new AttnScopeError('E_INPUT', 'a patching figure needs both runs\' top predictions (run with topK > 0)');
  // An encoder–decoder's predictions name tokens only (js/api/seq2seq.js): their text is the token.
  return top.map((e) => Object.fromEntries(TOP_FIELDS.map((k) => [k, k === 'text' ? e.text ?? e.token : e[k]])));
}

/**
 * The `patching` block of a figure whose clean run is `result`.
 * @param {{corruptedText: string, corruptedRun: object, grid: object, answer: string, wrong: string}} patching
 *   corruptedRun: the corrupted prompt's run; grid: model.patch()'s result for the two prompts
 * @param {boolean} decoder a decoder's (else an encoder's, read at its first [MASK])
 */
export function patchingFigureBlock(result, patching, decoder) {
  if (!patching?.grid || !patching.corruptedRun) {
    throw new AttnScopeError('E_INPUT', 'a patching figure holds a finished grid: save it once the grid is done, or write it with ' +
      '`attnscope snapshot --view patching` (--corrupted, --answer, --wrong, --site)');
  }
  const { grid, corruptedRun, corruptedText, answer, wrong, cleanRun } = patching;
  // An encoder–decoder's: its answers follow the target so far (cleanRun, js/api/seq2seq.js's run over it).
  if (cleanRun) {
    return {
      ...patchingFigureBlock({ next: cleanRun.next }, { ...patching, cleanRun: undefined }, true),
      seq2seq: { stack: grid.stack, prefix: String(patching.prefix ?? ''), targetIds: Array.from(cleanRun.targetIds),
        targetTokens: [...cleanRun.targetTokens], encoderShape: cleanRun.encoderShape.slice(0, 2), decoderShape: cleanRun.decoderShape.slice(0, 2) },
    };
  }
  return {
    site: grid.site, answer: String(answer), wrong: String(wrong),
    corruptedText, corruptedTokens: [...corruptedRun.tokens], corruptedTokenTexts: [...(corruptedRun.tokenTexts ?? corruptedRun.tokens)],
    position: grid.position, clean: grid.clean, corrupted: grid.corrupted,
    scores: grid.scores.map((row) => [...row]),
    top: { clean: topAt(result, decoder, grid.position), corrupted: topAt(corruptedRun, decoder, grid.position) },
  };
}

/**
 * A figure's `patching` block read back, for a run of shape [L, H, T] with `decoder` heads: the
 * clean run's predictions (RunResult fields), the model info the view checks, the state it was
 * saved at, whether a state asks for this grid, and the jobs that answer the view.
 */
export function patchingFigureRead(doc, [L, H, T], decoder, bad) {
  const p = doc.patching;
  if (!p || typeof p !== 'object') throw bad('a patching figure needs its "patching" block');
  if (p.seq2seq !== undefined) return seq2seqRead(doc, T, bad);
  if (!PATCH_SITES.includes(p.site)) throw bad(`patching site "${p.site}"`);
  for (const name of ['answer', 'wrong', 'corruptedText']) if (typeof p[name] !== 'string' || !p[name]) throw bad(`patching ${name}`);
  for (const name of ['corruptedTokens', 'corruptedTokenTexts']) {
    if (!Array.isArray(p[name]) || p[name].length !== T || !p[name].every((v) => typeof v === 'string')) throw bad(`patching ${name} must have ${T} entries`);
  }
  const columns = HEAD_PATCH_SITES.includes(p.site) ? H : T;
  checkGrid(p, L, columns, T, bad);
  const predictions = (list) => (decoder ? { next: list } : { maskPredictions: [{ position: p.position, top: list }] });
  const corruptedRun = { tokens: [...p.corruptedTokens], tokenTexts: [...p.corruptedTokenTexts], ...predictions(p.top.corrupted) };
  const state = { patchCorrupted: p.corruptedText, patchAnswer: p.answer, patchWrong: p.wrong, patchSite: p.site };
  const grid = { site: p.site, clean: p.clean, corrupted: p.corrupted, position: p.position, layers: L, columns,
    scores: p.scores.map((row) => [...row]) };
  return {
    fields: predictions(p.top.clean),
    // An encoder's grid is read at a [MASK]: it has the masked-LM head the view asks for.
    info: decoder ? {} : { hasMlmHead: true },
    state,
    covers: (s) => Object.entries(state).every(([key, value]) => s[key] === value),
    jobs: patchingFigureJobs({ text: typeof doc.text === 'string' ? doc.text : '', corruptedRun, grid, state }),
  };
}

// The block's numbers: the position the LDs are read at (of `positions`), both LDs, the scores
// (L rows of `columns`) and both runs' top predictions.
function checkGrid(p, L, columns, positions, bad) {
  if (!(Number.isInteger(p.position) && p.position >= 0 && p.position < positions)) throw bad(`patching position ${p.position}`);
  if (!Number.isFinite(p.clean) || !Number.isFinite(p.corrupted)) throw bad('patching clean and corrupted are the two logit differences');
  if (!Array.isArray(p.scores) || p.scores.length !== L ||
    !p.scores.every((row) => Array.isArray(row) && row.length === columns && row.every(Number.isFinite))) {
    throw bad(`patching scores must be ${L} rows of ${columns}`);
  }
  const top = (list) => Array.isArray(list) && list.length > 0 && list.every((e) => e && Number.isInteger(e.id) &&
    typeof e.token === 'string' && typeof e.text === 'string' && typeof e.prob === 'number' && e.prob >= 0 && e.prob <= 1);
  if (!top(p.top?.clean) || !top(p.top?.corrupted)) throw bad('patching top: both runs\' predictions');
}

// An encoder–decoder's block over a figure of its encoder (S source tokens): the two runs as
// js/api/seq2seq.js gives them over the target so far (no attention: the view reads tokens and
// predictions), which the element shows as an encoder–decoder's run (web/embed/frozen-figure.js).
function seq2seqRead(doc, S, bad) {
  const p = doc.patching, q = p.seq2seq;
  if (!q || typeof q !== 'object' || !PATCH_STACKS.includes(q.stack) || typeof q.prefix !== 'string') throw bad('patching seq2seq: stack and prefix');
  const pair = (v) => Array.isArray(v) && v.length === 2 && v.every((n) => Number.isInteger(n) && n > 0 && n <= 4096);
  if (!pair(q.encoderShape) || !pair(q.decoderShape)) throw bad('patching seq2seq: encoderShape and decoderShape are [layers, heads]');
  const T = Array.isArray(q.targetIds) ? q.targetIds.length : 0;
  if (T < 1 || T > 4096 || !q.targetIds.every((id) => Number.isInteger(id) && id >= 0) ||
    !Array.isArray(q.targetTokens) || q.targetTokens.length !== T || !q.targetTokens.every((v) => typeof v === 'string')) {
    throw bad('patching seq2seq: targetIds and targetTokens, the decoder\'s input');
  }
  for (const name of ['corruptedTokens', 'corruptedTokenTexts']) {
    if (!Array.isArray(p[name]) || p[name].length !== S || !p[name].every((v) => typeof v === 'string')) throw bad(`patching ${name} must have ${S} entries`);
  }
  const [L, H] = q.stack === 'encoder' ? q.encoderShape : q.decoderShape;
  checkGrid(p, L, HEAD_PATCH_SITES.includes(p.site) ? H : q.stack === 'encoder' ? S : T, T, bad);
  if (p.position !== T - 1) throw bad(`patching position ${p.position}: an encoder–decoder's is the last target position, ${T - 1}`);
  for (const name of ['answer', 'wrong', 'corruptedText']) if (typeof p[name] !== 'string' || !p[name]) throw bad(`patching ${name}`);
  const run = (sourceTokens, next) => ({
    sourceIds: new Int32Array(S), sourceTokens: [...sourceTokens], targetIds: Int32Array.from(q.targetIds), targetTokens: [...q.targetTokens],
    encoderShape: [...q.encoderShape, S, S], decoderShape: [...q.decoderShape, T, T], crossShape: [...q.decoderShape, T, S],
    encoderAttentions: new Float32Array(0), decoderAttentions: new Float32Array(0), crossAttentions: new Float32Array(0), next,
  });
  const cleanRun = run(doc.tokens, p.top.clean), corruptedRun = run(p.corruptedTokens, p.top.corrupted);
  const state = { patchCorrupted: p.corruptedText, patchAnswer: p.answer, patchWrong: p.wrong, patchSite: p.site,
    patchPrefix: q.prefix, patchStack: q.stack };
  const grid = { site: p.site, stack: q.stack, clean: p.clean, corrupted: p.corrupted, position: p.position, layers: L,
    columns: p.scores[0].length, scores: p.scores.map((row) => [...row]) };
  // The encoder–decoder config names the figure's own (its encoder's) as js/api/seq2seq.js's do.
  const c = doc.modelInfo?.config ?? {};
  const config = { encoderLayers: q.encoderShape[0], encoderHeads: q.encoderShape[1], decoderLayers: q.decoderShape[0],
    decoderHeads: q.decoderShape[1], encoderHeadDim: c.headDim, modelType: c.family };
  const text = typeof doc.text === 'string' ? doc.text : '';
  return {
    fields: {},
    info: { kind: 'encoder-decoder', config: { ...doc.modelInfo?.config, ...config } },
    // The element's run: the clean source's over the target so far (seq2seq-run.js's adapter).
    seq2seq: cleanRun,
    state,
    covers: (s) => Object.entries(state).every(([key, value]) => s[key] === value),
    jobs: patchingFigureJobs({ text, corruptedRun, grid, state, cleanRun }),
  };
}

/** The jobs (view-model.js app.jobs) a patching figure answers: the corrupted prompt's run and the
 *  grid, as a worker would (rows as progress, then the result); anything else is aborted. */
export function patchingFigureJobs({ text, corruptedRun, grid, state, cleanRun = null }) {
  const aborted = (what) => Promise.reject(new AttnScopeError('E_ABORTED', `a frozen figure holds one patching grid, not ${what}: the model runs it`));
  // An encoder–decoder's grid is over its stack and the target so far too.
  const sameTarget = (o) => !cleanRun || (o.stack === grid.stack && o.targetIds?.length === cleanRun.targetIds.length - 1 &&
    Array.from(o.targetIds).every((id, i) => id === cleanRun.targetIds[i + 1]));
  const held = (o) => o.clean === text && o.corrupted === state.patchCorrupted && o.answer === state.patchAnswer &&
    o.wrong === state.patchWrong && (o.site ?? PATCH_SITES[0]) === state.patchSite && sameTarget(o);
  const jobs = {
    model: null,   // set below: the figure itself stands for the model (the view's cache key)
    // An encoder–decoder's view also runs the clean source over the target so far (and to read a typed prefix's ids).
    run: (runText) => (runText === state.patchCorrupted ? Promise.resolve(corruptedRun)
      : cleanRun && runText === text ? Promise.resolve(cleanRun) : aborted(`a run of "${runText}"`)),
    patch: (options) => {
      if (!held(options)) return aborted('that grid');
      return Promise.resolve().then(() => {
        if (options.signal?.aborted) throw new AttnScopeError('E_ABORTED', 'cancelled');
        grid.scores.forEach((scores, layer) => options.onProgress?.({ layer, scores: [...scores], done: layer + 1, total: grid.layers }));
        return { ...grid, scores: grid.scores.map((row) => [...row]) };
      });
    },
  };
  for (const name of ['runIds', 'corpus', 'corpusMap', 'ablation', 'compare']) jobs[name] = () => aborted(name);
  jobs.cachedCorpus = () => null;
  jobs.cachedCorpusMap = () => null;
  jobs.model = jobs;
  return jobs;
}
