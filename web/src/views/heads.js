// Head table (?view=heads): one row per head with Clark et al.'s statistics
// (js/analysis/head-stats.js headStatistics) over the current text and, once computed, over the corpus
// sample, plus the effect of switching the head off on the sample (ablationEffects, on demand).
// Both corpus computations run inside the worker (web/src/model/corpus.js, js/analysis/corpus-job.js): only
// the table's numbers come back. Click a column header to sort by it (again to reverse); a row
// opens its head.
import { isSeq2Seq } from '../model/seq2seq-run.js';
import { familySwitch } from './family-switch.js';
import { createCrossHeads } from './cross-heads.js';
import { HEAD_STATISTICS, headStatistics } from '../../../js/analysis/head-stats.js';
import { ABLATION_SENTENCES } from '../panels/ablation.js';
import { measureInduction } from '../../../js/analysis/head-detectors.js';
import { isCausal } from '../model/causal-mask.js';
import { scrollHint } from '../draw/scroll-hint.js';
import { VIEW } from './registry.js';
import { errorReason } from '../i18n/error-text.js';

// The statistics a model's heads can have: a decoder's next token is always masked and it has
// no [CLS]/[SEP]; an encoder whose first token is [CLS] shows that mass once, as [CLS]. The
// induction score (js/analysis/head-detectors.js) is for decoders, whose queries cannot see ahead.
function shownStatistics(app) {
  const causal = isCausal(app);
  const clsFirst = !causal && app.original?.specialTokensMask?.[0] === 1;
  return HEAD_STATISTICS.filter((k) => (causal ? !['nextShare', 'clsMass', 'sepMass'].includes(k) : !(clsFirst && k === 'firstMass')));
}

export function createHeadsTable(host, app) {
  const bar = document.createElement('div');
  bar.className = 'view-bar heads-bar';
  const corpusBtn = button('heads-corpus');
  const ablateBtn = button('heads-ablate');
  const cancelBtn = button('heads-cancel');
  cancelBtn.hidden = true;
  const progress = document.createElement('progress');
  progress.hidden = true;
  const status = document.createElement('span');
  status.className = 'hint heads-status';
  bar.append(corpusBtn, ablateBtn, cancelBtn, progress, status);
  const note = document.createElement('p');
  note.className = 'hint';
  const scroll = document.createElement('div');
  scroll.className = 'table-scroll';
  const table = document.createElement('table');
  table.className = 'heads-table';
  scroll.append(table);
  const legend = document.createElement('dl');
  legend.className = 'hint heads-legend';
  const more = scrollHint(scroll, () => app.t('scrollMore'));
  host.append(bar, note, more.element, scroll, legend);
  let induction = null;   // { model, promise, scores } the induction scores of the model in use

  let sort = { key: 'layer', dir: 1 };
  let corpus = null;      // { rows: headStatistics over the sample } once computed
  let effects = null;     // ablationEffects result
  let computedFor = null; // the model (app.jobs.model) corpus and effects belong to
  let job = null;         // AbortController of the computation in progress
  const exposed = { rows: [], corpusMs: null, ablationMs: null };

  function button(cls) {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = cls;
    return b;
  }

  async function compute(kind) {
    if (!app.jobs?.model || job) return;
    job = new AbortController();
    corpusBtn.disabled = ablateBtn.disabled = true;
    const started = performance.now();
    progress.hidden = false;
    progress.value = 0;
    cancelBtn.hidden = false;
    const onProgress = ({ done, total, runs, totalRuns }) => {
      progress.max = totalRuns ?? total;   // an ablation's bar moves run by run, its text head by head
      progress.value = runs ?? done;
      status.textContent = app.t(kind === 'corpus' ? 'headsCorpusProgress' : 'headsAblationProgress', { done, total });
    };
    try {
      computedFor = app.jobs.model;
      if (kind === 'corpus') {
        corpus = (await app.jobs.corpus({ signal: job.signal, onProgress })).summary.headStats;
        exposed.corpusMs = performance.now() - started;
      } else {
        effects = await app.jobs.ablation({ signal: job.signal, onProgress });
        exposed.ablationMs = performance.now() - started;
      }
      status.textContent = app.t('headsDone', { s: ((performance.now() - started) / 1000).toFixed(1) });
    } catch (e) {
      status.textContent = e?.code === 'E_ABORTED' || e?.name === 'AbortError' ? app.t('headsCancelled')
        : app.t('runFailed', { reason: errorReason(app.t, e) });
    } finally {
      job = null;
      progress.hidden = true;
      cancelBtn.hidden = true;
      render();
    }
  }
  corpusBtn.addEventListener('click', () => compute('corpus'));
  ablateBtn.addEventListener('click', () => compute('ablation'));
  cancelBtn.addEventListener('click', () => job?.abort());

  // Runs the repeated random sequence once per model (a view job: app.jobs.runIds); a job stopped
  // by a view or model switch is forgotten, and the next render asks again.
  function inductionScores() {
    const model = app.jobs?.model;
    if (!model || !isCausal(app)) return null;
    if (induction?.model !== model) {
      const c = app.info.config;
      const config = { ...c, vocabSize: Math.min(c.vocabSize, app.info.tokenizerVocabSize || c.vocabSize) };
      const promise = measureInduction(app.jobs, config);
      induction = { model, promise, scores: null };
      const mine = induction;
      promise.then(({ scores }) => { mine.scores = scores; if (induction === mine) render(); },
        () => { if (induction === mine) induction = null; });
    }
    return induction.scores;
  }

  function columns(stats, withInduction) {
    const cols = [['layer', 'headsLayer'], ['head', 'headsHead']];
    for (const k of stats) cols.push([k, 'stat_' + k]);
    if (withInduction) cols.push(['inductionScore', 'stat_inductionScore']);
    if (corpus) for (const k of stats) cols.push(['corpus_' + k, 'stat_' + k, true]);
    if (effects) cols.push(['delta', 'headsDelta', true]);
    return cols;
  }

  function render() {
    const { t, original } = app;
    more.update();   // after this frame's table: wider than a phone?
    corpusBtn.textContent = t('headsCorpusBtn');
    ablateBtn.textContent = t('headsAblateBtn', { n: ABLATION_SENTENCES });
    cancelBtn.textContent = t('cancel');
    corpusBtn.disabled = ablateBtn.disabled = Boolean(job);
    // Another model: the sample's columns were the old one's (and may not even have its shape).
    if (computedFor !== app.jobs?.model) {
      corpus = effects = null;
      computedFor = app.jobs?.model;
    }
    const done = app.jobs?.cachedCorpus();
    if (!corpus && done) corpus = done.summary.headStats;
    note.textContent = t('headsHint') + (effects ? ' ' + t('headsBaseline', { v: effects.baseline.toFixed(3) }) : '');
    const current = headStatistics([original]);
    const stats = shownStatistics(app);
    const scores = inductionScores();
    const rows = current.map((s, i) => {
      const row = { ...s };
      if (scores) row.inductionScore = scores[i];
      if (corpus) for (const k of HEAD_STATISTICS) row['corpus_' + k] = corpus[i][k];
      if (effects) row.delta = effects.heads[i].delta;
      return row;
    });
    rows.sort((a, b) => sort.dir * (a[sort.key] - b[sort.key]) || a.layer - b.layer || a.head - b.head);
    exposed.rows = rows;
    const cols = columns(stats, Boolean(scores));
    exposed.columns = cols.map(([key]) => key);
    table.replaceChildren();
    const thead = table.createTHead();
    if (corpus || effects) {
      const group = thead.insertRow();
      const cell = (text, span) => { const th = document.createElement('th'); th.colSpan = span; th.textContent = text; group.append(th); };
      cell('', 2);
      cell(t('headsThisText'), stats.length);
      if (scores) cell('', 1);
      cell(t('headsCorpus'), cols.length - 2 - stats.length - (scores ? 1 : 0));
    }
    const hr = thead.insertRow();
    for (const [key, label, onCorpus] of cols) {
      const th = document.createElement('th');
      const b = document.createElement('button');
      b.type = 'button';
      b.dataset.sort = key;
      b.textContent = t(label) + (sort.key === key ? (sort.dir > 0 ? ' ▲' : ' ▼') : '');
      const def = definition(key);
      if (def) b.title = t(def);
      if (onCorpus) th.className = 'corpus-col';
      th.setAttribute('aria-sort', sort.key === key ? (sort.dir > 0 ? 'ascending' : 'descending') : 'none');
      b.addEventListener('click', () => {
        sort = { key, dir: sort.key === key ? -sort.dir : (key === 'layer' || key === 'head' ? 1 : -1) };
        render();
      });
      th.append(b);
      hr.append(th);
    }
    const body = table.createTBody();
    for (const row of rows) {
      const tr = body.insertRow();
      tr.tabIndex = 0;
      tr.dataset.layer = row.layer;
      tr.dataset.head = row.head;
      if (app.state.headsOff.includes(`${row.layer}:${row.head}`)) tr.classList.add('head-off');
      for (const [key, , onCorpus] of cols) {
        const td = tr.insertCell();
        td.dataset.key = key;
        const v = row[key];
        td.textContent = key === 'layer' || key === 'head' ? String(v) : key === 'delta' ? (v > 0 ? '+' : '') + v.toFixed(4) : v.toFixed(3);
        if (onCorpus) td.className = 'corpus-col';
      }
      const open = () => app.set({ layer: row.layer, head: row.head, view: VIEW.head });
      tr.addEventListener('click', open);
      tr.addEventListener('keydown', (e) => { if (e.key === 'Enter') open(); });
    }
    // What each column measures (the same text as the headers' tooltips).
    legend.replaceChildren();
    for (const key of [...stats, ...(scores ? ['inductionScore'] : [])]) {
      const dt = document.createElement('dt');
      dt.textContent = t('stat_' + key);
      const dd = document.createElement('dd');
      dd.textContent = t(definition(key));
      legend.append(dt, dd);
    }
  }

  function definition(key) {
    const stat = key.replace(/^corpus_/, '');
    return HEAD_STATISTICS.includes(stat) || stat === 'inductionScore' ? 'statDef_' + stat : null;
  }

  return { render, exposed, destroy() { job?.abort(); } };
}

/** The Head table tab: head statistics, or an encoder–decoder's cross-attention alignment scores. */
export default familySwitch((a) => (isSeq2Seq(a.info) ? 'alignment' : 'statistics'), { statistics: createHeadsTable, alignment: createCrossHeads });
