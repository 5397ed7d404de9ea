// Frozen patching figures (view 'patching'): one finished activation-patching grid
// (js/patching.js) with what the Patching view shows around it — the corrupted prompt's tokens
// beside the clean one's, the answer and wrong tokens, both runs' top predictions where the logit
// difference is read, both LDs — so <attn-scope src> draws the view with no model. The view asks
// for the corrupted run and the grid as worker jobs; the figure answers those two jobs itself
// (patchingFigureJobs) and aborts any other, as the element then runs the model.
//   patching: {site, answer, wrong, corruptedText, corruptedTokens, corruptedTokenTexts,
//              position, clean, corrupted (the two LDs, as `attnscope patch` writes them),
//              scores [L][T] or [L][H], top: {clean, corrupted}: [{id, token, text, prob}]}
import { AttnScopeError } from './errors.js';
import { HEAD_PATCH_SITES, PATCH_SITES } from './patching.js';

const TOP_FIELDS = ['id', 'token', 'text', 'prob'];

// Where patching reads its logits: after the last token (decoders), or at the first [MASK].
function topAt(run, decoder, position) {
  const top = decoder ? run.next : run.maskPredictions?.find((m) => m.position === position)?.top;
  if (!top?.length) throw new AttnScopeError('E_INPUT', 'a patching figure needs both runs\' top predictions (run with topK > 0)');
  return top.map((e) => Object.fromEntries(TOP_FIELDS.map((k) => [k, e[k]])));
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
  const { grid, corruptedRun, corruptedText, answer, wrong } = patching;
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
  if (!PATCH_SITES.includes(p.site)) throw bad(`patching site "${p.site}"`);
  for (const name of ['answer', 'wrong', 'corruptedText']) if (typeof p[name] !== 'string' || !p[name]) throw bad(`patching ${name}`);
  for (const name of ['corruptedTokens', 'corruptedTokenTexts']) {
    if (!Array.isArray(p[name]) || p[name].length !== T || !p[name].every((v) => typeof v === 'string')) throw bad(`patching ${name} must have ${T} entries`);
  }
  if (!(Number.isInteger(p.position) && p.position >= 0 && p.position < T)) throw bad(`patching position ${p.position}`);
  if (!Number.isFinite(p.clean) || !Number.isFinite(p.corrupted)) throw bad('patching clean and corrupted are the two logit differences');
  const columns = HEAD_PATCH_SITES.includes(p.site) ? H : T;
  if (!Array.isArray(p.scores) || p.scores.length !== L ||
    !p.scores.every((row) => Array.isArray(row) && row.length === columns && row.every(Number.isFinite))) {
    throw bad(`patching scores must be ${L} rows of ${columns}`);
  }
  const top = (list) => Array.isArray(list) && list.length > 0 && list.every((e) => e && Number.isInteger(e.id) &&
    typeof e.token === 'string' && typeof e.text === 'string' && typeof e.prob === 'number' && e.prob >= 0 && e.prob <= 1);
  if (!top(p.top?.clean) || !top(p.top?.corrupted)) throw bad('patching top: both runs\' predictions');
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

/** The jobs (view-model.js app.jobs) a patching figure answers: the corrupted prompt's run and the
 *  grid, as a worker would (rows as progress, then the result); anything else is aborted. */
export function patchingFigureJobs({ text, corruptedRun, grid, state }) {
  const aborted = (what) => Promise.reject(new AttnScopeError('E_ABORTED', `a frozen figure holds one patching grid, not ${what}: the model runs it`));
  const held = (o) => o.clean === text && o.corrupted === state.patchCorrupted && o.answer === state.patchAnswer &&
    o.wrong === state.patchWrong && (o.site ?? PATCH_SITES[0]) === state.patchSite;
  const jobs = {
    model: null,   // set below: the figure itself stands for the model (the view's cache key)
    run: (runText) => (runText === state.patchCorrupted ? Promise.resolve(corruptedRun) : aborted(`a run of "${runText}"`)),
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
