// The Patching view: activation patching (denoising). The typed text is the clean prompt; the
// corrupted prompt differs in a word (typed, or suggested by patch-suggest.js). Each cell of the
// grid runs the corrupted prompt with one activation copied from the clean run (model.patch, one
// worker job whose rows arrive as progress and are drawn as they come) and shows how much of the
// clean logit difference comes back: 1 restored, 0 no effect. Rows are layers, columns positions
// or heads; a head cell opens that head. Any input changing cancels the job under way.
import { hasHead, isCausal } from '../causal-mask.js';
import { diverging } from '../colormap.js';
import { errorReason, errorDetail } from '../error-text.js';
import { Heatmap } from '../heatmap.js';
import { fmt, renderLegend } from '../legend.js';
import { makeSelect } from '../pickers.js';
import { addStrings } from '../i18n.js';
import { PATCHING_STRINGS } from '../i18n-patching.js';
import { corruptionCandidates, defaultAnswers, namesToken, topPredictions } from '../patch-suggest.js';
import { HEAD_PATCH_SITES, PATCH_SITES } from '../../../js/patching.js';
import { VIEW } from './registry.js';
import { explainedLayout, heading, para } from './text-nodes.js';

addStrings(PATCHING_STRINGS);

const TYPING_PAUSE_MS = 400;   // the corrupted prompt runs once the reader pauses
const WEAK_DIFFERENCE = 0.2;   // LD_clean − LD_corrupted below this: the corruption hardly matters
const HEAD_SITES = new Set(HEAD_PATCH_SITES);
const isAbort = (e) => e?.code === 'E_ABORTED' || e?.name === 'AbortError';
const readable = (s) => s.replace(/^ /, '␣');
const entryLabel = (e) => `${readable(e.text ?? e.token)} ${(e.prob * 100).toFixed(1)}%`;

export function createPatching(host, app) {
  let prep = null;   // the corrupted prompt's run: { key, text, run, suggestion, error, done, controller }
  let grid = null;   // the patching job: { key, site, rows, result, error, cancelled, controller, columns, labels }
  let typing = 0;

  const { main, explain } = explainedLayout(host, 'patch-main');

  // Built once, so typing in the corrupted prompt keeps its focus through redraws.
  const corruptedLabel = document.createElement('label');
  corruptedLabel.className = 'patch-corrupted';
  const corruptedName = document.createElement('span');
  const corruptedInput = document.createElement('input');
  corruptedInput.type = 'text';
  corruptedInput.spellcheck = false;
  corruptedLabel.append(corruptedName, corruptedInput);
  corruptedInput.addEventListener('input', () => {
    clearTimeout(typing);
    typing = setTimeout(() => app.set({ patchCorrupted: corruptedInput.value }), TYPING_PAUSE_MS);
  });
  const pickers = document.createElement('div');
  pickers.className = 'pickers';
  const note = para('', 'note patch-note');
  const align = document.createElement('div');
  align.className = 'patch-align';
  const lds = para('', 'patch-lds');
  const status = document.createElement('p');
  status.className = 'patch-status';
  status.setAttribute('aria-live', 'polite');
  const statusText = document.createElement('span');
  const cancel = document.createElement('button');
  cancel.type = 'button';
  cancel.addEventListener('click', () => grid?.controller.abort());
  status.append(statusText, cancel);
  const gridHost = document.createElement('div');
  gridHost.className = 'patch-grid';
  const legend = document.createElement('div');
  main.append(corruptedLabel, pickers, note, align, lds, status, gridHost, legend);
  const heatmap = new Heatmap(gridHost, {
    labels: true,
    tooltip: (i, j, v) => tooltip(i, j, v),
    onSelect: (i, j) => { if (HEAD_SITES.has(grid?.site)) app.set({ view: VIEW.head, layer: i, head: j }); },
  });

  const exposed = { last: null };

  function render() {
    const { t, state } = app;
    corruptedName.textContent = t('patchCorrupted');
    corruptedInput.placeholder = t('patchCorruptedHint');
    cancel.textContent = t('patchCancel');
    if (document.activeElement !== corruptedInput) corruptedInput.value = state.patchCorrupted;
    explain.replaceChildren(heading(t('patchName')), para(t('patchFormula'), 'formula-text'), para(t('patchIntro')),
      para(t('patchMeaning'), 'patch-meaning'), para(t(`patchSiteExplain_${state.patchSite}`)));
    const r = app.original;
    const decoder = isCausal(app);
    const problem = !r ? null : !hasHead(app) ? 'patchNoHead'
      : !decoder && r.maskPredictions?.[0] === undefined ? 'patchNeedsMask' : null;
    corruptedLabel.hidden = Boolean(problem);
    if (!r || problem) {
      stop();
      show({ note: problem ? t(problem) : '' });
      return;
    }
    const clean = typeof r.text === 'string' ? r.text : state.text;
    prepare(clean, state.patchCorrupted);
    if (!prep.done) {
      show({ note: t('patchPreparing') });
      return;
    }
    if (prep.error) {
      show({ note: prep.error.key ? t(prep.error.key)
        : `${t('patchFailed', { reason: errorReason(t, prep.error) })} (${errorDetail(prep.error)})` });
      return;
    }
    const cleanTop = topPredictions(r, decoder) ?? [], corruptedTop = topPredictions(prep.run, decoder) ?? [];
    const picked = defaultAnswers(cleanTop, corruptedTop, clean, prep.text);
    const answer = state.patchAnswer || picked.answer?.token, wrong = state.patchWrong || picked.wrong?.token;
    const suggestion = prep.suggestion && t(prep.suggestion.example ? 'patchSuggestedExample' : 'patchSuggested', prep.suggestion);
    drawPickers(cleanTop, corruptedTop, answer, wrong);
    const known = [...cleanTop, ...corruptedTop];
    const nameOf = (value) => readable(known.find((e) => namesToken(value, e))?.text ?? value ?? '');
    drawAlignment(r, prep.run);
    const differs = r.tokens.length === prep.run.tokens.length && r.tokens.some((tok, i) => tok !== prep.run.tokens[i]);
    if (!differs) {
      stop();
      show({ note: t(r.tokens.length === prep.run.tokens.length ? 'patchSame' : 'patchLengths',
        { clean: r.tokens.length, corrupted: prep.run.tokens.length }), keepAlign: true });
      return;
    }
    const columns = HEAD_SITES.has(state.patchSite) ? r.shape[1] : r.tokens.length;
    const labels = HEAD_SITES.has(state.patchSite) ? Array.from({ length: columns }, (_, h) => `H${h}`) : (r.tokenTexts ?? r.tokens);
    startGrid({ clean, corrupted: prep.text, answer, wrong, site: state.patchSite }, r.shape[0], columns, labels,
      { answer: nameOf(answer), wrong: nameOf(wrong) });
    show({ note: suggestion ?? '', keepAlign: true, keepPickers: true });
    drawGrid();
  }

  // The corrupted prompt's run (its tokens and top predictions); a suggestion tries candidates
  // until one has the clean prompt's token count.
  function prepare(clean, typed) {
    const key = JSON.stringify([clean, typed]);
    if (prep && prep.key === key && prep.model === app.jobs.model && !prep.aborted) return;
    prep?.controller.abort();
    stop();
    const controller = new AbortController();
    const current = { key, model: app.jobs.model, controller, done: false };
    prep = current;
    const run = (text) => app.jobs.run(text, { topK: 5, signal: controller.signal });
    (async () => {
      if (typed) return { text: typed, run: await run(typed), suggestion: null };
      const length = app.original.tokens.length;
      for (const c of corruptionCandidates(clean)) {
        const out = await run(c.text);
        if (out.tokens.length === length) return { text: c.text, run: out, suggestion: c };
      }
      return { error: { key: 'patchNoSuggestion' } };
    })().then((value) => Object.assign(current, value), (error) => {
      if (isAbort(error)) current.aborted = true;
      else current.error = error;
    }).finally(() => {
      current.done = true;
      if (prep === current && !current.aborted) render();
    });
  }

  function startGrid(options, layers, columns, labels, names) {
    const key = JSON.stringify([options, layers, columns]);
    if (grid && grid.key === key && grid.model === app.jobs.model && !grid.aborted) return;
    stop();
    const controller = new AbortController();
    const current = { key, model: app.jobs.model, site: options.site, layers, columns, labels, names, options, controller,
      rows: [], result: null, error: null, cancelled: false };
    grid = current;
    app.jobs.patch({ ...options, signal: controller.signal, onProgress: (row) => {
      if (grid !== current) return;
      current.rows[row.layer] = row.scores;
      drawGrid();
    } }).then((result) => { current.result = result; }, (error) => {
      if (!isAbort(error)) current.error = error;
      else if (controller.signal.aborted) current.cancelled = true;   // our Cancel, or a newer input
      else current.aborted = true;                                    // the view or the model changed
    }).finally(() => { if (grid === current) drawGrid(); });
  }

  function stop() {
    grid?.controller.abort();
    grid = null;
  }

  function drawGrid() {
    const { t } = app;
    const g = grid;
    if (!g) return;
    const { layers, columns } = g;
    const matrix = new Float32Array(layers * columns).fill(NaN);
    let vmax = 1;
    g.rows.forEach((row, l) => row?.forEach((v, j) => {
      matrix[l * columns + j] = v;
      vmax = Math.max(vmax, Math.abs(v));
    }));
    const done = g.rows.filter(Boolean).length;
    gridHost.hidden = legend.hidden = done === 0;
    gridHost.dataset.site = g.site;
    gridHost.dataset.rows = String(done);
    gridHost.dataset.state = g.result ? 'done' : g.error ? 'failed' : g.cancelled ? 'cancelled' : 'running';
    heatmap.overlay.setAttribute('aria-label', t('patchGridAria', { columns: t(HEAD_SITES.has(g.site) ? 'patchColumnsHeads' : 'patchColumnsPositions') }));
    if (done) {
      heatmap.setData({ matrix, n: layers, cols: columns, rowLabels: Array.from({ length: layers }, (_, l) => `L${l}`),
        colLabels: g.labels, scale: diverging, vmax });
      renderLegend(legend, { scale: diverging, vmax, caption: t('patchScale') });
    }
    cancel.hidden = Boolean(g.result || g.error || g.cancelled);
    statusText.textContent = g.result ? `${t('patchDone', { cells: layers * columns })} ${strongest(g)}` : g.cancelled ? t('patchCancelled')
      : g.error ? `${t('patchFailed', { reason: errorReason(t, g.error) })} (${errorDetail(g.error)})`
        : t('patchProgress', { done: Math.min(done + 1, layers), total: layers });
    const where = t(isCausal(app) ? 'patchLastToken' : 'patchMaskToken');
    lds.hidden = !g.result;
    if (g.result) {
      lds.textContent = t('patchLds', { answer: g.names.answer, wrong: g.names.wrong, at: where,
        clean: fmt(g.result.clean), corrupted: fmt(g.result.corrupted) });
      // Scores divide by LD_clean − LD_corrupted: when the corruption does not lower it, they say little.
      if (g.result.clean - g.result.corrupted < WEAK_DIFFERENCE) lds.textContent += ' ' + t('patchWeak');
    }
    exposed.last = { site: g.site, answer: g.options.answer, wrong: g.options.wrong, corrupted: g.options.corrupted,
      suggested: Boolean(prep?.suggestion), rows: done, state: gridHost.dataset.state,
      scores: g.rows.map((row) => (row ? [...row] : null)), clean: g.result?.clean ?? null, corruptedLd: g.result?.corrupted ?? null,
      // A finished grid as a frozen figure holds it (js/figure-patching.js): the hosts' Save figure data.
      figure: g.result && prep?.run ? { grid: g.result, corruptedRun: prep.run, corruptedText: g.options.corrupted,
        answer: g.options.answer, wrong: g.options.wrong } : null };
  }

  // The cell that restores most, named as its tooltip names it: where to look first.
  function strongest(g) {
    let best = null;
    g.rows.forEach((row, l) => row.forEach((v, j) => { if (!best || v > best.v) best = { l, j, v }; }));
    return best ? app.t('patchStrongest', { cell: tooltip(best.l, best.j, best.v) }) : '';
  }

  function tooltip(i, j, v) {
    const { t } = app;
    const score = Number.isNaN(v) ? t('patchPending') : fmt(v);
    return HEAD_SITES.has(grid?.site) ? t('patchTipHead', { layer: i, head: j, score })
      : t('patchTipPosition', { layer: i, position: j, token: grid?.labels[j] ?? '', score });
  }

  // The answer and wrong pickers offer both runs' top predictions (and the link's own choice).
  function drawPickers(cleanTop, corruptedTop, answer, wrong) {
    const { t, state } = app;
    const options = (top, value) => {
      const list = top.map((e) => [e.token, entryLabel(e)]);
      const named = top.find((e) => namesToken(value, e));
      if (named) return { list, value: named.token };
      if (value) list.push([value, readable(value)]);
      return { list, value };
    };
    const merged = [...cleanTop, ...corruptedTop.filter((e) => !cleanTop.some((c) => c.id === e.id))];
    const a = options(cleanTop, answer), w = options(merged, wrong);
    const select = (label, o, key, cls) => makeSelect(label, o.list.map(([, text], i) => [i, text]),
      Math.max(0, o.list.findIndex(([v]) => v === o.value)), (i) => app.set({ [key]: o.list[i][0] }), cls);
    pickers.replaceChildren(select(t('patchAnswer'), a, 'patchAnswer', 'patch-answer'), select(t('patchWrong'), w, 'patchWrong', 'patch-wrong'),
      makeSelect(t('patchSite'), PATCH_SITES.map((s, i) => [i, t(`patchSite_${s}`)]), PATCH_SITES.indexOf(state.patchSite),
        (i) => app.set({ patchSite: PATCH_SITES[i] }), 'patch-site'));
  }

  function drawAlignment(clean, corrupted) {
    const { t } = app;
    const table = document.createElement('table');
    table.setAttribute('aria-label', t('patchAlignAria'));
    const texts = (r) => r.tokenTexts ?? r.tokens;
    const n = Math.max(clean.tokens.length, corrupted.tokens.length);
    for (const [name, r, other] of [['patchCleanRow', clean, corrupted], ['patchCorruptedRow', corrupted, clean]]) {
      const tr = table.insertRow();
      const th = document.createElement('th');
      th.scope = 'row';
      th.textContent = t(name);
      tr.append(th);
      for (let i = 0; i < n; i++) {
        const td = tr.insertCell();
        td.textContent = texts(r)[i] ?? '';
        if (r.tokens[i] !== other.tokens[i]) td.className = 'is-different';
      }
    }
    align.replaceChildren(table);
  }

  // What is shown besides the grid: a note (and its engine detail), the rest hidden unless kept.
  function show({ note: text, keepAlign = false, keepPickers = false }) {
    note.textContent = text;
    note.hidden = !text;
    if (!keepAlign) align.replaceChildren();
    if (!keepPickers && !keepAlign) pickers.replaceChildren();
    if (!grid) {
      gridHost.hidden = legend.hidden = lds.hidden = status.hidden = true;
      exposed.last = null;
    } else status.hidden = false;
  }

  return { render, exposed, destroy: () => { stop(); prep?.controller.abort(); clearTimeout(typing); } };
}

export default createPatching;
