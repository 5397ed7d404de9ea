// The explorer page: one host of the run controller (run-controller.js, which holds the model
// in use, runs the text and shows the view), with the page's own parts around it — the state
// mirrored in the URL, the model picker, the text inputs, edits (tokens masked or dropped), head
// ablation, Generate, the status line. Views only read `app`, call app.set() and app.jobs.
import { applyStatic } from './i18n/i18n.js';
import { stateFromUrl, stateToUrl, MAX_TEXT_CHARS } from './state/state.js';
import { createViewModel } from './state/view-model.js';
import { createRunController } from './host/run-controller.js';
import { createModelPicker } from './panels/model-picker.js';
import { createTokensView } from './panels/tokens-view.js';
import { installTestHook } from './host/test-hook.js';
import { viewUnavailable } from './model/model-family.js';
import { createAblationRunner } from './panels/ablation.js';
import { createNextTokenPanel } from './views/next-token.js';
import { createGeneratePanel } from './panels/generate-panel.js';
import { createSteerPanel } from './panels/steer-panel.js';
import { errorReason, relocalizeMessages, showMessage } from './i18n/error-text.js';
import { currentViewPng, currentViewSvg, downloadBlob, exportFileName } from '../embed/export.js';
import { figureData, registerFigureKinds } from '../../js/analysis/snapshot.js';
import { FIGURE_KIND_CODE } from '../../js/analysis/figure-kinds.js';
import { LENS_FIGURE_CODE } from '../../js/analysis/figure-lens.js';
import { CROSS_FIGURE_CODE } from '../../js/analysis/figure-cross.js';
import { openView, VIEW, VIEW_IDS, VIEW_LIST, viewEntry } from './views/registry.js';
import { createLesson } from './lesson/stepper.js';
import { LESSONS } from './lesson/steps.js';
import { keepTabsInSight } from './panels/tabs-scroll.js';
import { showTokenLegend } from './panels/token-legend.js';
import { isSeq2Seq } from './model/seq2seq-run.js';
import { isDecoderOnly } from './model/causal-mask.js';
import { createSeq2SeqPanel } from './panels/seq2seq-panel.js';
import { createKindSwitch } from './panels/kind-switch.js';
import { readHeldout } from './model/heldout.js';
import { modelLabel } from './i18n/bundled-labels.js';
import { createExamples } from './panels/examples.js';
import { BUNDLED_MODEL, isBundledModelId } from '../../js/api/bundled-models.js';

// Save figure data of the flow, patching and Layers views (the page saves no encoder–decoder's figure).
registerFigureKinds({ ...FIGURE_KIND_CODE, ...LENS_FIGURE_CODE });

const BUSY_AFTER_MS = 150;
const $ = (id) => document.getElementById(id);
const state = stateFromUrl(location.search);

let linkModel = null;       // a link's model that failed to load, kept in the URL (see start())
let firstLoad = true;       // the page's first model load: the link's query (q=) holds for it
const linkParams = new URLSearchParams(location.search);   // the link as opened (writeUrl drops defaults)
const urlQuery = linkParams.has('q');
let busyTimer = 0;

const app = createViewModel({ state, onSet });
app.loadModel = loadModel;   // the model picker's
app.ablates = true;
const runs = createRunController(app, { views: VIEW_IDS, predictions: true, on: {
  start: onRunStart, shown: onRunShown, empty: onRunEmpty, failed: onRunFailed, settled: () => showBusy(false),
} });
// The map opens a corpus sentence as the typed text; its query token is chosen once the sentence
// has run (the state's query is clamped to the run on screen until then). `query` is a position,
// or (run) → a position found in the run (an example's "it"); `select` selects it too (the head
// view's row).
let queryAfterRun = null;
let selectAfterRun = false;
app.openText = (text, { query, select = false, ...patch }) => {
  seq2seqPanel.stop({ discard: true });
  $('text-a').value = text;
  Object.assign(state, { text, pairOn: false });
  $('pair-on').checked = false;
  $('text-b').hidden = true;
  queryAfterRun = query ?? null;
  selectAfterRun = select;
  app.set(patch);
  runs.schedule();
};

// ---- state -----------------------------------------------------------------------------------

function onSet(patch, before) {
  writeUrl();
  if (patch.lang !== undefined && patch.lang !== before.lang) {
    applyStatic(document, state.lang);
    picker.fillOptions();
    picker.showInfo();
    examples.render();
    showLesson();
    relocalizeMessages(app.t);
    if (ranStatus && $('run-status').textContent === ranStatus.text) {
      $('run-status').textContent = ranStatus.text = ranStatus.build(app.t);
    }
  }
  if (patch.lesson !== undefined && patch.lesson !== before.lesson) showLesson();
  // Opening the block, Layers, Contributions or Flow view needs a run of the text on screen with more outputs.
  if (patch.view !== undefined && runs.needsTrace()) runs.run();
  if (patch.headsOff !== undefined && !isSeq2Seq(app.info)) ablation.rerun();
  renderAll();
}

function writeUrl() {
  const shown = linkModel ? { ...state, model: linkModel } : state;
  history.replaceState(null, '', location.pathname + stateToUrl(shown));
  // The lesson's front door links to the lesson on this sentence and model (a new tab opens it so).
  $('lesson-start').href = location.pathname + stateToUrl({ ...shown, model: lessonModel() ?? shown.model, lesson: 'attention', step: 1,
    view: LESSONS.attention[0].view });
}

// ---- model -----------------------------------------------------------------------------------

// Only a successful load replaces the model in use, so a model that cannot load leaves the page
// working with the previous one.
async function loadModel(source, label, { signal, onProgress } = {}) {
  setStatus('loading');
  seq2seqPanel.stop({ discard: true });   // a target being written belongs to the model in use
  try {
    await runs.loadModel(source, { signal, onProgress, weightPrecision: state.weightPrecision });
  } catch (e) {
    setStatus(runs.client ? 'ready' : 'error');
    throw e;
  }
  if (linkModel && source !== 'bundled') linkModel = null;   // the user chose another model
  await showSeq2Seq(source);
  // A decoder predicts after each token: it opens on the last one (the next-token panel's "what
  // comes next"), unless the link chose a token.
  if (isDecoderOnly(app) && !(firstLoad && urlQuery)) queryAfterRun ??= (r) => r.tokens.length - 1;
  firstLoad = false;
  state.model = typeof source === 'string' ? source : 'local';
  picker.fillOptions();
  picker.showInfo();
  writeUrl();
  await runs.run();
}

// An encoder–decoder: its held-out pairs (heldout.jsonl, the alignment overlay and the head
// table's accuracy), no head ablation or token edits (the seq2seq run takes neither), the source
// box titled as such and the target panel shown.
async function showSeq2Seq(source) {
  const seq2seq = isSeq2Seq(app.info);
  app.generated = null;
  app.ablates = !seq2seq;
  app.heldout = seq2seq ? await readHeldout(source, app.info.source === 'bundled' ? app.info.location : null) : null;
  if (seq2seq && state.headsOff.length) state.headsOff = [];
  if (seq2seq) document.body.dataset.seq2seq = ''; else delete document.body.dataset.seq2seq;
  $('input-title').dataset.i18n = seq2seq ? 'sourceTitle' : 'inputTitle';
  $('input-title').textContent = app.t($('input-title').dataset.i18n);
}

// A held-out pair (the head table's button) as the source and the target.
app.openPair = (pair) => {
  seq2seqPanel.stop({ discard: true });
  $('text-a').value = pair.source;
  app.generated = null;
  state.text = pair.source;
  app.set({ target: pair.target });
  runs.schedule();
};

// ---- runs ------------------------------------------------------------------------------------

// What the page shows around a run of the text (run-controller.js runs it).
function onRunStart() {
  delete document.body.dataset.empty;
  setStatus('running');
  // A run that takes longer than a moment dims what is on screen and says it is running.
  clearTimeout(busyTimer);
  busyTimer = setTimeout(() => showBusy(true), BUSY_AFTER_MS);
}

// The last "ran in" line, re-worded on a language switch while it is still the one shown (other
// messages share the status line and replace it).
let ranStatus = null;

function onRunShown(r, ms) {
  if (queryAfterRun !== null) {
    const find = queryAfterRun;
    queryAfterRun = null;
    const q = typeof find === 'function' ? find(r) : find;
    if (q >= 0) app.set(selectAfterRun ? { query: q, selected: [q] } : { query: q });
  }
  if (!isSeq2Seq(app.info)) ablation.rerun();   // heads switched off: the same text without them, as the diff's edit
  showInputError(null);
  const build = (t) => (r.seq2seq
    ? t('ranInSeq2Seq', { source: r.sources.S, target: r.targets.T, ms: Math.round(ms) })
    : t('ranIn', { tokens: r.tokens.length, ms: Math.round(ms) }));
  $('run-status').textContent = build(app.t);
  ranStatus = { build, text: $('run-status').textContent };
  setStatus('ready');
  writeUrl();   // layer, head and query as clamped to this run: the URL says what is shown
  renderAll();
}

// An empty input: its error, and nothing of the last run (chips, warnings, status, views).
function onRunEmpty() {
  showBusy(false);
  showInputError((t) => t('emptyText'));
  document.body.dataset.empty = '';
  $('run-status').textContent = '';
  renderAll();
}

function onRunFailed(e) {
  showInputError((t) => t('runFailed', { reason: errorReason(t, e) }), e);
  setStatus(app.original ? 'ready' : 'error');
}

function showBusy(on) {
  if (!on) clearTimeout(busyTimer);
  if (on) {
    document.body.dataset.busy = '';
    $('run-status').textContent = app.t('running');
  } else {
    delete document.body.dataset.busy;
  }
}

async function applyEdit(kind) {
  const r = app.original;
  const positions = state.selected.filter((p) => p < r.tokens.length);
  const client = runs.client;
  if (!positions.length || !client) return;
  if (kind === 'drop' && positions.length >= r.tokens.length) return;
  const ids = Array.from(r.ids), types = Array.from(r.typeIds);
  setStatus('running');
  try {
    let edited;
    if (kind === 'mask') {
      const attentionMask = ids.map((_, i) => (positions.includes(i) ? 0 : 1));
      edited = await client.runIds(ids, { tokenTypes: types, attentionMask, ...runs.options() });
    } else {
      const keep = ids.map((_, i) => i).filter((i) => !positions.includes(i));
      edited = await client.runIds(keep.map((i) => ids[i]), { tokenTypes: keep.map((i) => types[i]), ...runs.options() });
    }
    if (app.original !== r) return;   // the text changed meanwhile
    app.showEdit({ kind, positions }, edited);
    $('edit-status').textContent = app.t(kind === 'mask' ? 'editMasked' : 'editDropped', { n: positions.length });
    setStatus('ready');
    app.set({ view: VIEW.diff });
    requestAnimationFrame(revealViews);   // after renderAll's frame has drawn the diff
  } catch (e) {
    showInputError((t) => t('runFailed', { reason: errorReason(t, e) }), e);
    setStatus('ready');
  }
}

// On a phone the views sit above the controls, so the diff a Mask/Drop opens is off-screen:
// bring the view tabs to the top. Beside the controls (two columns) they are already in sight.
function revealViews() {
  const tabs = document.querySelector('.tabs');
  const top = tabs.getBoundingClientRect().top;
  if (top < -1 || top > window.innerHeight / 2) tabs.scrollIntoView({ block: 'start' });
}

// ---- rendering -------------------------------------------------------------------------------

function setStatus(s) {
  document.body.dataset.status = s;
}

// build(t) words the message in the UI's language (null: none); `error` adds the engine's detail.
function showInputError(build, error = null) {
  showMessage($('input-error'), app.t, build, error);
}

let renderPending = false;
function renderAll() {
  if (renderPending) return;
  renderPending = true;
  requestAnimationFrame(() => {
    renderPending = false;
    renderNow();
  });
}

function renderNow() {
  for (const b of document.querySelectorAll('[role=tab]')) {
    const on = b.dataset.view === state.view;
    b.hidden = Boolean(viewUnavailable(app.info, b.dataset.view));   // e.g. Block for a Llama model
    b.setAttribute('aria-selected', String(on));
    b.tabIndex = on ? 0 : -1;
  }
  revealTab();
  $('hide-special').checked = state.hideSpecial;
  $('words').checked = state.words;
  $('threshold').value = String(state.threshold);
  $('threshold-out').textContent = state.threshold.toFixed(2);
  const r = app.original;
  const trunc = $('truncation');
  trunc.hidden = !(r && r.numTruncated > 0);
  if (r && r.numTruncated > 0) trunc.textContent = app.t('truncated', { n: r.numTruncated, max: r.tokens.length });
  showUnknownNotice(r);
  showApplicableControls(r);
  showTokenLegend($('token-legend'), $('unk-notice'), r, app.t, { bundled: isBundledModelId(state.model) });
  $('selection-info').textContent = state.selected.length
    ? app.t('selectionInfo', { n: state.selected.length }) : app.t('selectionNone');
  for (const id of ['mask-btn', 'drop-btn', 'clear-selection']) $(id).disabled = !state.selected.length || !r;
  $('restore-btn').disabled = !app.edited;
  if (!app.edited) $('edit-status').textContent = '';
  lesson?.render();
  tokens.render();
  nextToken.render();
  generatePanel.render();
  steerPanel.render();
  seq2seqPanel.render();
  kindSwitch.render();
  if (!app.result) return;
  const host = $('view-host');
  runs.show(host);
}

// Controls shown only for the models they apply to: hiding special tokens names the
// run's own ([CLS], [SEP]; <s>) and goes where a run has none (GPT-2) or for an encoder–decoder;
// the second sentence is an encoder's input (BERT's [SEP]-joined pair), not a decoder's. A control
// left on by a link stays visible, so it can be turned off.
function showApplicableControls(r) {
  const seq2seq = isSeq2Seq(app.info);
  const specials = r?.tokens && !seq2seq ? [...new Set(r.tokens.filter((_, i) => r.specialTokensMask[i]))] : [];
  $('hide-special').closest('label').hidden = Boolean(app.info) && !specials.length && !state.hideSpecial;
  $('hide-special-label').textContent = specials.length
    ? app.t('hideSpecialOf', { tokens: specials.join(', ') }) : app.t('hideSpecial');
  $('pair-check').hidden = Boolean(app.info) && (Boolean(app.info.config?.isDecoder) || seq2seq) && !state.pairOn;
}

// Text the vocabulary cannot spell (Korean in the English-only bundled model) comes out as
// [UNK]: when that is most of the input, say why rather than show a wall of [UNK].
function showUnknownNotice(r) {
  const words = r ? r.tokens.filter((_, i) => !r.specialTokensMask[i]) : [];
  const unknown = words.filter((t) => t === '[UNK]').length;
  const notice = $('unk-notice');
  notice.hidden = !(unknown >= 2 && unknown * 2 >= words.length);
  if (!notice.hidden) notice.textContent = app.t('mostlyUnknown', { n: unknown, total: words.length });
}

// ---- wiring ----------------------------------------------------------------------------------

const picker = createModelPicker({
  select: $('model-select'), precision: $('precision-select'), hubRow: $('hub-row'), hubInput: $('hub-input'), hubInputLabel: $('hub-input-label'),
  hubSize: $('hub-size'), hubLoad: $('hub-load'),
  localRow: $('local-row'), folderInput: $('folder-input'), filesInput: $('files-input'), drop: $('drop'),
  progressRow: $('progress-row'), progress: $('progress'), progressText: $('progress-text'),
  cancel: $('cancel'), error: $('model-error'), info: $('model-info'), precisionNote: $('precision-note'),
}, app);
const revealTab = keepTabsInSight(document.querySelector('.tabs'));
const tokens = createTokensView($('chips'), $('mirror'), app, $('select-mode'));
const nextToken = createNextTokenPanel($('next-token'), app);
const ablation = createAblationRunner(app, { getClient: () => runs.client, runOptions: runs.options, onShown: () => renderAll() });
const seq2seqPanel = createSeq2SeqPanel($('seq2seq-panel'), app, { getClient: () => runs.client, rerun: () => runs.schedule(), runNow: () => runs.run(),
  redraw: () => renderAll(),
  setStatus: (text) => { $('run-status').textContent = text; } });
const kindSwitch = createKindSwitch($('kind-switch'), app);
const examples = createExamples($('examples'), app, {
  loadModel: (id) => picker.load(id, modelLabel(app.t, id)),
  openText: (text, patch) => app.openText(text, patch),
  generateTarget: () => seq2seqPanel.generate(),
  steer: () => steerPanel.start(),
});
const generatePanel = createGeneratePanel($('generate-panel'), app, { getClient: () => runs.client, runOptions: runs.options, textInput: $('text-a'), statusLine: $('run-status') });
const steerPanel = createSteerPanel($('steer-panel'), app, { getClient: () => runs.client, runOptions: runs.options, textInput: $('text-a'),
  redraw: () => renderAll() });

function wire() {
  const a = $('text-a'), b = $('text-b'), pairOn = $('pair-on');
  a.value = state.text;
  b.value = state.pair;
  a.maxLength = b.maxLength = MAX_TEXT_CHARS;
  pairOn.checked = state.pairOn;
  b.hidden = !state.pairOn;
  const onText = () => {
    if (app.generated) app.generated = null;   // a new source: the generated target was another's
    seq2seqPanel.stop({ discard: true });      // and a target being written is the old source's
    state.text = a.value;
    state.pair = b.value;
    writeUrl();
    runs.schedule();
  };
  a.addEventListener('input', onText);
  b.addEventListener('input', onText);
  pairOn.addEventListener('change', () => {
    state.pairOn = pairOn.checked;
    b.hidden = !pairOn.checked;
    writeUrl();
    runs.schedule();
  });
  // The URL always mirrors the state (writeUrl), so the permalink is the address itself.
  $('copy-link').addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(location.href);
      $('run-status').textContent = app.t('linkCopied');
    } catch {
      $('run-status').textContent = app.t('linkCopyFailed');
    }
  });
  // The same exports as <attn-scope> (web/embed/export.js): the view as shown, the head as SVG.
  $('export-png').addEventListener('click', async () => {
    const png = currentViewPng(app);
    if (png) downloadBlob(await png, exportFileName(state, 'png'));
  });
  $('export-svg').addEventListener('click', () => {
    const svg = currentViewSvg(app);
    if (svg) downloadBlob(new Blob([svg], { type: 'image/svg+xml' }), exportFileName(state, 'svg'));
  });
  // A frozen figure (js/analysis/snapshot.js) of the typed text's run, for <attn-scope src="…">.
  $('save-figure').addEventListener('click', () => {
    // Frozen figures hold one model's single-text run (js/analysis/snapshot.js): of an encoder–decoder's,
    // only its patching grid (a figure of its encoder, version 3).
    if (!app.original || !viewEntry(state.view).figure || (isSeq2Seq(app.info) && state.view !== VIEW.patching)) {
      $('run-status').textContent = app.t('saveFigureView');
      return;
    }
    if (app.original.mapsInWorker) {   // too large to hold whole in the page (js/api/result.js)
      const [L, H, T, K] = app.original.shape;
      $('run-status').textContent = app.t('mapsInWorkerFigure', { maps: Math.round((L * H * T * K * 4) / 1024 ** 2).toLocaleString('en') });
      return;
    }
    let figure;
    try {   // a patching grid not finished yet, or the layers view's lens a run too long for it has not
      figure = figureData(app.original, { model: state.model, info: app.info, text: state.text,
        view: state.view, layer: state.layer, head: state.head, words: app.wordsShown(), position: state.query, tau: state.flowTau,
        patching: app.views[VIEW.patching]?.view.exposed?.last?.figure });
    } catch (error) {
      $('run-status').textContent = `${error.code}: ${error.message}`;
      return;
    }
    downloadBlob(new Blob([JSON.stringify(figure)], { type: 'application/json' }), exportFileName(state, 'figure.json'));
  });
  $('hide-special').addEventListener('change', (e) => app.set({ hideSpecial: e.target.checked }));
  $('words').addEventListener('change', (e) => app.set({ words: e.target.checked }));
  $('threshold').addEventListener('input', (e) => app.set({ threshold: Number(e.target.value) }));
  $('clear-selection').addEventListener('click', () => app.set({ selected: [] }));
  $('mask-btn').addEventListener('click', () => applyEdit('mask'));
  $('drop-btn').addEventListener('click', () => applyEdit('drop'));
  $('restore-btn').addEventListener('click', () => {
    app.clearEdit();
    renderAll();
  });
  for (const btn of document.querySelectorAll('[data-lang]')) {
    btn.addEventListener('click', () => app.set({ lang: btn.dataset.lang }));
  }
  const tabs = createTabs(document.querySelector('.tabs'));
  for (const [k, tab] of tabs.entries()) {
    tab.addEventListener('click', () => app.set(openView(tab.dataset.view)));
    tab.addEventListener('keydown', (e) => {
      const d = e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : 0;
      if (!d) return;
      // Past tabs hidden for this model (model-family.js), e.g. Block for a Llama model.
      let step = d;
      while (tabs[(k + step + 2 * tabs.length) % tabs.length].hidden && Math.abs(step) < tabs.length) step += d;
      const next = tabs[(k + step + 2 * tabs.length) % tabs.length];
      next.focus();
      app.set(openView(next.dataset.view));
    });
  }
  keepViewsBeside();
  // Views size to the width only: a height change (a phone's address bar) needs no redraw.
  let resizeTimer = 0, lastWidth = window.innerWidth;
  window.addEventListener('resize', () => {
    if (window.innerWidth === lastWidth) return;
    lastWidth = window.innerWidth;
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(renderAll, 150);
  });
}

// The view tabs, one per registry entry in its order (views/registry.js), labelled by applyStatic.
// Those the model in use has not are hidden by renderNow (before any load: the cross view).
function createTabs(nav) {
  const tabs = VIEW_LIST.map((v) => {
    const b = document.createElement('button');
    b.type = 'button';
    b.setAttribute('role', 'tab');
    b.dataset.view = v.id;
    b.dataset.i18n = v.label;
    b.textContent = app.t(v.label);
    b.hidden = Boolean(viewUnavailable(null, v.id));
    return b;
  });
  nav.replaceChildren(...tabs);
  return tabs;
}

// Two columns with Generate: the panel sits 1,000+ px down the left column while the
// heatmaps stand at the top of the right one, so the rows joining them could not be watched. The
// views column is sticky (style.css); --views-top is how far above the screen's top it may stand
// (its height past the screen's), so a column taller than the screen still scrolls to its end.
function keepViewsBeside() {
  const views = document.querySelector('.views');
  const place = () => {
    views.style.setProperty('--views-top', `${Math.min(0, window.innerHeight - views.offsetHeight - 8)}px`);
  };
  new ResizeObserver(place).observe(views);
  window.addEventListener('resize', place);
}

// The guided lesson (?lesson=attention&step=N): a stepper above the page's own views. The page's
// front door (#lesson-start) opens it on the sentence and model in use; "Leave the lesson" goes
// back to the free explorer on the same sentence, at the view the step showed.
let lesson = null;

function showLesson() {
  const door = $('lesson-start');
  door.textContent = app.t('lessonStart', { n: LESSONS.attention.length });
  door.hidden = Boolean(state.lesson);
  if (state.lesson && !lesson) {
    lesson = createLesson($('lesson'), app, { tryText: (text) => app.openText(text, {}), viewHost: $('view-host'),
      // The example keeps the lesson's step view (the example's own view is the same one).
      openExample: (id) => examples.open(id),
      leave: () => {
        app.set({ lesson: '', step: 1 });
        door.focus({ preventScroll: true });
      } });
  } else if (!state.lesson && lesson) {
    lesson.destroy();
    lesson = null;
  }
}

// The lesson's steps are a single stack's (its formula, block and lens views): an encoder–decoder
// in use is swapped for the bundled BERT, the sentence kept.
function lessonModel() {
  return isSeq2Seq(app.info) ? BUNDLED_MODEL : null;
}

function wireLessonDoor() {
  $('lesson-start').addEventListener('click', async (e) => {
    if (e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return;   // a new tab or window: the link
    e.preventDefault();
    const model = lessonModel();
    if (model && await picker.load(model, modelLabel(app.t, model))) return;   // the picker says why
    app.set({ lesson: 'attention', step: 1, view: LESSONS.attention[0].view });
    // On a phone the lesson sits under the text box: bring its first step to the top.
    requestAnimationFrame(() => {
      const box = $('lesson').getBoundingClientRect();
      if (box.top < 0 || box.top > window.innerHeight * 0.6) $('lesson').scrollIntoView({ block: 'start' });
      $('lesson').querySelector('.lesson-step-title')?.focus({ preventScroll: true });
    });
  });
}

async function start() {
  applyStatic(document, state.lang);
  showLesson();
  wireLessonDoor();
  picker.fillOptions();
  picker.syncRows();
  wire();
  installTestHook(app, { viewJobs: runs.viewJobs, steering: () => steerPanel.exposed });
  renderNow();
  const wanted = state.model;
  const label = modelLabel(app.t, wanted);
  const failure = await picker.load(wanted, label);
  if (runs.client && !linkParams.has('text') && !linkParams.has('tgt') && isSeq2Seq(app.info)) examples.ownText();
  // A link's hub model that cannot load: show the bundled one, say so, and keep the link's model
  // in the URL (a reload retries) until the user picks another.
  if (!runs.client && wanted !== 'bundled') {
    linkModel = wanted;
    await picker.load('bundled', app.t('modelBundled'));
    picker.showError((t) => t('linkModelFailed', { name: wanted, reason: errorReason(t, failure) }), failure);
    writeUrl();
  }
}

start();
