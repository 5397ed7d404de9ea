// The Patching view: activation patching (denoising). The typed text is the clean prompt; the
// corrupted prompt differs in a word (typed, or suggested by patch-suggest.js). Each cell of the
// grid runs the corrupted prompt with one activation copied from the clean run (model.patch, one
// worker job whose rows arrive as progress and are drawn as they come) and shows how much of the
// clean logit difference comes back: 1 restored, 0 no effect. Rows are layers, columns positions
// or heads; a head cell opens that head. Any input changing cancels the job under way. On an
// encoder–decoder the prompts are sources, the decoder has written the same target so far after
// both, and a switch picks whose sites the grid patches (patch-seq2seq.js).
import { hasHead, isCausal } from '../model/causal-mask.js';
import { diverging } from '../draw/colormap.js';
import { errorReason, errorDetail } from '../i18n/error-text.js';
import { Heatmap } from '../draw/heatmap.js';
import { fmt, renderLegend } from '../draw/legend.js';
import { makeSelect } from '../draw/pickers.js';
import { addStrings } from '../i18n/i18n.js';
import { PATCHING_STRINGS } from '../i18n/i18n-patching.js';
import { corruptionCandidates, defaultAnswers, namesToken, topPredictions } from '../model/patch-suggest.js';
import { HEAD_PATCH_SITES, PATCH_SITES, PATCH_STACKS } from '../../../js/analysis/patching.js';
import { isSeq2Seq } from '../model/seq2seq-run.js';
import { prefixText, prepareSeq2Seq, seq2seqGrid, sourceRow } from '../model/patch-seq2seq.js';
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

  // Built once, so typing in the corrupted prompt (or an encoder–decoder's target so far) keeps
  // its focus through redraws.
  function typedInput(className, key) {
    const label = document.createElement('label');
    label.className = className;
    const name = document.createElement('span');
    const input = document.createElement('input');
    input.type = 'text';
    input.spellcheck = false;
    label.append(name, input);
    input.addEventListener('input', () => {
      clearTimeout(typing);
      typing = setTimeout(() => app.set({ [key]: input.value }), TYPING_PAUSE_MS);
    });
    return { label, name, input };
  }
  const { label: corruptedLabel, name: corruptedName, input: corruptedInput } = typedInput('patch-corrupted', 'patchCorrupted');
  const { label: prefixLabel, name: prefixName, input: prefixInput } = typedInput('patch-prefix', 'patchPrefix');
  const prefixLine = para('', 'patch-prefix-line');
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
  main.append(corruptedLabel, prefixLabel, pickers, note, align, prefixLine, lds, status, gridHost, legend);
  const heatmap = new Heatmap(gridHost, {
    labels: true,
    tooltip: (i, j, v) => tooltip(i, j, v),
    // An encoder–decoder's head opens in its stack's self-attention.
    onSelect: (i, j) => {
      if (!HEAD_SITES.has(grid?.site)) return;
      app.set({ view: VIEW.head, layer: i, head: j, ...(grid.options.stack ? { kind: grid.options.stack === 'encoder' ? 'enc' : 'dec' } : {}) });
    },
  });

  const exposed = { last: null };

  function render() {
    const { t, state } = app;
    const seq2seq = isSeq2Seq(app.info);
    corruptedName.textContent = t(seq2seq ? 'patchCorruptedSource' : 'patchCorrupted');
    corruptedInput.placeholder = t('patchCorruptedHint');
    cancel.textContent = t('patchCancel');
    if (document.activeElement !== corruptedInput) corruptedInput.value = state.patchCorrupted;
    prefixName.textContent = t('patchPrefix');
    prefixInput.placeholder = t('patchPrefixHint');
    if (document.activeElement !== prefixInput) prefixInput.value = state.patchPrefix;
    explain.replaceChildren(heading(t('patchName')), para(t('patchFormula'), 'formula-text'),
      para(t(seq2seq ? 'patchIntroSeq2Seq' : 'patchIntro')), para(t('patchMeaning'), 'patch-meaning'),
      para(t(`patchSiteExplain_${state.patchSite}`)), ...(seq2seq ? [para(t(`patchStackExplain_${state.patchStack}`))] : []));
    const r = app.original;
    // An encoder–decoder's decoder has its LM head whatever attention kind the other views show.
    const decoder = seq2seq || isCausal(app);
    const problem = !r || seq2seq ? null : !hasHead(app) ? 'patchNoHead'
      : !decoder && r.maskPredictions?.[0] === undefined ? 'patchNeedsMask' : null;
    corruptedLabel.hidden = Boolean(problem);
    prefixLabel.hidden = !seq2seq;
    prefixLine.hidden = true;
    if (!r || problem) {
      stop();
      show({ note: problem ? t(problem) : '' });
      return;
    }
    const clean = typeof r.text === 'string' ? r.text : state.text;
    prepare(clean, state.patchCorrupted, seq2seq);
    if (!prep.done) {
      show({ note: t('patchPreparing') });
      return;
    }
    if (prep.error) {
      show({ note: prep.error.key ? t(prep.error.key)
        : `${t('patchFailed', { reason: errorReason(t, prep.error) })} (${errorDetail(prep.error)})` });
      return;
    }
    // An encoder–decoder's clean run is the one over the target so far (r's is over the whole target).
    const cleanRun = prep.cleanRun ?? r;
    const cleanTop = topPredictions(cleanRun, decoder) ?? [], corruptedTop = topPredictions(prep.run, decoder) ?? [];
    const picked = defaultAnswers(cleanTop, corruptedTop, clean, prep.text);
    const answer = state.patchAnswer || picked.answer?.token, wrong = state.patchWrong || picked.wrong?.token;
    const suggestion = prep.suggestion && t(prep.suggestion.example ? 'patchSuggestedExample' : 'patchSuggested', prep.suggestion);
    drawPickers(cleanTop, corruptedTop, answer, wrong);
    const known = [...cleanTop, ...corruptedTop];
    const nameOf = (value) => readable(known.find((e) => namesToken(value, e))?.text ?? value ?? '');
    const [a, b] = seq2seq ? [sourceRow(cleanRun), sourceRow(prep.run)] : [r, prep.run];
    drawAlignment(a, b);
    if (seq2seq) showPrefix(cleanRun);
    const differs = a.tokens.length === b.tokens.length && a.tokens.some((tok, i) => tok !== b.tokens[i]);
    if (!differs) {
      stop();
      show({ note: t(a.tokens.length === b.tokens.length ? 'patchSame' : 'patchLengths',
        { clean: a.tokens.length, corrupted: b.tokens.length }), keepAlign: true });
      return;
    }
    const byHead = HEAD_SITES.has(state.patchSite);
    const { layers, columns, labels } = seq2seq ? seq2seqGrid(cleanRun, state.patchStack, byHead)
      : { layers: r.shape[0], columns: byHead ? r.shape[1] : r.tokens.length,
        labels: byHead ? Array.from({ length: r.shape[1] }, (_, h) => `H${h}`) : (r.tokenTexts ?? r.tokens) };
    startGrid({ clean, corrupted: prep.text, answer, wrong, site: state.patchSite,
      ...(seq2seq ? { targetIds: prep.prefixIds, stack: state.patchStack } : {}) }, layers, columns, labels,
    { answer: nameOf(answer), wrong: nameOf(wrong) });
    show({ note: suggestion ?? '', keepAlign: true, keepPickers: true });
    drawGrid();
  }

  // What the decoder has written after its start token, and why that prefix (the link's, or chosen).
  function showPrefix(cleanRun) {
    const { t } = app;
    const written = prefixText(cleanRun);
    const why = { typed: '', example: t('patchPrefixExample'), cut: t('patchPrefixCut', { word: prep.prefixWord }),
      whole: t('patchPrefixWhole'), none: t('patchPrefixNone') }[prep.prefixChoice];
    prefixLine.textContent = `${written ? t('patchPrefixShown', { prefix: written }) : t('patchPrefixEmpty')} ${why}`.trim();
    prefixLine.hidden = false;
  }

  // The corrupted prompt's run (its tokens and top predictions); a suggestion tries candidates
  // until one has the clean prompt's token count.
  function prepare(clean, typed, seq2seq) {
    const { state } = app;
    // An encoder–decoder's prefix, when the link names none, is read from the run's target.
    const key = JSON.stringify([clean, typed, ...(seq2seq ? [state.patchPrefix, Array.from(app.original.seq2seq.targetIds)] : [])]);
    if (prep && prep.key === key && prep.model === app.jobs.model && !prep.aborted) return;
    prep?.controller.abort();
    stop();
    const controller = new AbortController();
    const current = { key, model: app.jobs.model, controller, done: false };
    prep = current;
    const run = (text) => app.jobs.run(text, { topK: 5, signal: controller.signal });
    (async () => {
      if (seq2seq) {
        return prepareSeq2Seq(app.original, { clean, typed, prefix: state.patchPrefix, config: app.info.config },
          (text, options) => app.jobs.run(text, { ...options, signal: controller.signal }));
      }
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
    const positions = { decoder: 'patchColumnsTarget', encoder: 'patchColumnsSource' }[g.options.stack] ?? 'patchColumnsPositions';
    heatmap.overlay.setAttribute('aria-label', t('patchGridAria', { columns: t(HEAD_SITES.has(g.site) ? 'patchColumnsHeads' : positions) }));
    if (done) {
      heatmap.setData({ matrix, n: layers, cols: columns, rowLabels: Array.from({ length: layers }, (_, l) => `L${l}`),
        colLabels: g.labels, scale: diverging, vmax });
      renderLegend(legend, { scale: diverging, vmax, caption: t('patchScale') });
    }
    cancel.hidden = Boolean(g.result || g.error || g.cancelled);
    statusText.textContent = g.result ? `${t('patchDone', { cells: layers * columns })} ${strongest(g)}` : g.cancelled ? t('patchCancelled')
      : g.error ? `${t('patchFailed', { reason: errorReason(t, g.error) })} (${errorDetail(g.error)})`
        : t('patchProgress', { done: Math.min(done + 1, layers), total: layers });
    const written = prep?.cleanRun ? prefixText(prep.cleanRun) : null;
    const where = written !== null ? (written ? t('patchNextTarget', { prefix: written }) : t('patchFirstTarget'))
      : t(isCausal(app) ? 'patchLastToken' : 'patchMaskToken');
    lds.hidden = !g.result;
    if (g.result) {
      lds.textContent = t('patchLds', { answer: g.names.answer, wrong: g.names.wrong, at: where,
        clean: fmt(g.result.clean), corrupted: fmt(g.result.corrupted) });
      // Scores divide by LD_clean − LD_corrupted: when the corruption does not lower it, they say little.
      if (g.result.clean - g.result.corrupted < WEAK_DIFFERENCE) lds.textContent += ' ' + t('patchWeak');
    }
    exposed.last = { site: g.site, answer: g.options.answer, wrong: g.options.wrong, corrupted: g.options.corrupted,
      stack: g.options.stack ?? null, targetIds: g.options.targetIds ?? null,
      suggested: Boolean(prep?.suggestion), rows: done, state: gridHost.dataset.state,
      scores: g.rows.map((row) => (row ? [...row] : null)), clean: g.result?.clean ?? null, corruptedLd: g.result?.corrupted ?? null,
      // A finished grid as a frozen figure holds it (js/analysis/figure-patching.js): the hosts' Save figure data.
      // An encoder–decoder's also holds the clean run over the target so far and the link's prefix.
      figure: g.result && prep?.run ? { grid: g.result, corruptedRun: prep.cleanRun ? { ...prep.run, ...sourceRow(prep.run) } : prep.run,
        corruptedText: g.options.corrupted,
        answer: g.options.answer, wrong: g.options.wrong,
        ...(prep.cleanRun ? { cleanRun: prep.cleanRun, prefix: app.state.patchPrefix } : {}) } : null };
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
      ...(isSeq2Seq(app.info) ? [makeSelect(t('patchStack'), PATCH_STACKS.map((s, i) => [i, t(`patchStack_${s}`)]),
        PATCH_STACKS.indexOf(state.patchStack), (i) => app.set({ patchStack: PATCH_STACKS[i] }), 'patch-stack')] : []),
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
