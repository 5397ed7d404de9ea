// <attn-scope>: the AttnScope viewer as a custom element for blogs and docs. Attributes (and the
// matching properties) choose the text, model, view, layer and head; everything renders inside
// a shadow root styled by one adopted stylesheet, so the host page's CSS cannot reach in and
// ours cannot leak out. Elements showing the same model share one worker (web/src/model/model-registry.js).
// The views are the explorer page's own (web/src/views), given the same view model
// (web/src/state/view-model.js) and run by the page's run controller (web/src/host/run-controller.js); this
// file only maps attributes to state and draws the frame.
import { translate } from '../src/i18n/i18n.js';
import { clampToResult, defaultState, MAX_TEXT_CHARS, stateFromUrl, stateToUrl, WEIGHT_PRECISIONS } from '../src/state/state.js';
import { createViewModel } from '../src/state/view-model.js';
import { createRunController } from '../src/host/run-controller.js';
import { stats } from '../src/model/model-registry.js';
import { crossShown } from '../src/views/family-switch.js';
import { ELEMENT_VIEW_IDS, loadView, openView, VIEW, viewEntry } from '../src/views/registry.js';
import { createKindSwitch } from '../src/panels/kind-switch.js';
import { ATTENTION_KINDS, isSeq2Seq } from '../src/model/seq2seq-run.js';
import { AttnScopeError } from '../../js/formats/errors.js';
import { parseModelId, preview } from './model-id.js';
import { elementStyleSheet } from './styles.js';
import { currentViewPng, currentViewSvg, downloadBlob, exportFileName } from './export.js';
import { bertvizJson } from '../../js/formats/bertviz.js';
import { permalinkFor } from './permalink.js';
import { elementText } from './labels.js';
import { loadStrings, stringsLoaded } from './strings.js';
import { fetchFigure } from './frozen-figure.js';
import { loadFigureKinds } from './figure-code.js';
import { figureData } from '../../js/analysis/snapshot.js';
import { FIGURE_VIEWS, holdsAttention } from '../../js/formats/figure-views.js';
import { LESSONS } from '../src/lesson/steps.js';

/** The views the element offers (their registry entries' `element`), in button order. The views
 *  are the page's own: an encoder–decoder's cross-attention in the cross views, each family's own
 *  Block walk and Positions view; a view that cannot apply (an encoder–decoder's formula, say)
 *  says why. */
export const ELEMENT_VIEWS = ELEMENT_VIEW_IDS;
// Views the element draws only from a figure that holds them (the logit lens: a live element
// shows no predictions); their buttons show while such a figure is the element's.
const FIGURE_ONLY_VIEWS = FIGURE_VIEWS.filter((v) => !ELEMENT_VIEWS.includes(v));
// Other names the view attribute accepts for two of its views.
const VIEW_ALIASES = { aggregate: VIEW.aggregates, model: VIEW.grid };
// Whether view v runs what a BERT's light wasm build leaves out (the logit lens, attribution, the
// flow, patching: engine/build_features.h): an element opened there loads its model where those
// are (loadModel's analyses), not on that build and then again when the view first runs.
const ANALYSIS_NEEDS = ['logitLens', 'attribution', 'flow'];
const runsAnalyses = (v) => v === VIEW.patching || viewEntry(v).needs.some((need) => ANALYSIS_NEEDS.includes(need));
const DEFAULT_VIEW = VIEW.head;
const DEFAULT_KIND = 'enc';
// The views' own permalink parameters (their registry entries' params: tau, corrupted, answer,
// wrong, site, …) are attributes of the same names, read and written as the page's link does
// (state.js); q, the query position, too (the Flow view's prediction).
export const VIEW_PARAMS = { q: 'query', ...Object.assign({}, ...ELEMENT_VIEWS.map((id) => viewEntry(id).params)) };
const HEIGHT = /^\d{1,4}(\.\d{1,3})?(px|em|rem|vh|%)?$/;
const INDEX = /^\d{1,4}$/;

export class AttnScopeElement extends HTMLElement {
  static observedAttributes = ['text', 'text-pair', 'target', 'kind', 'model', 'weight-precision', 'view', 'layer', 'head', 'theme', 'lang', 'height', 'page-url', 'words', 'src', 'lesson', 'step',
    ...Object.keys(VIEW_PARAMS)];

  /** Counters of the page's model workers: { workers, modelLoads, runs }. */
  static engineStats() {
    return { ...stats };
  }

  #dom = null;
  // An encoder–decoder: the kind attribute (the page's k) chooses which of its attentions the grid,
  // head and lines views draw; the encoder's self-attention unless it says otherwise.
  #state = { ...defaultState(), view: DEFAULT_VIEW, kind: DEFAULT_KIND };
  #app = createViewModel({ state: this.#state, onSet: () => this.#changed() });
  // <attn-scope> shows no predictions; its status line and events follow the runs.
  #runs = createRunController(this.#app, { views: [...ELEMENT_VIEWS, ...FIGURE_ONLY_VIEWS], predictions: false, on: {
    start: () => this.#setStatus(this.result ? 'running' : 'loading', this.#t(this.result ? 'running' : 'loading')),
    shown: () => this.#shown(),
    empty: () => {
      this.#fail(new AttnScopeError('E_INPUT', 'the text attribute is empty'));
      this.#queueRender();   // nothing of the last run stays on screen
    },
    failed: (error) => this.#fail(error),
  } });
  #runQueued = false;
  #renderQueued = false;
  #figure = null;      // the frozen figure read from src (frozen-figure.js), while it is shown
  #figureSrc = null;   // the src it came from
  #figureLoading = false;   // a src is being fetched: a live run now would only race it
  #figureDefaults = null;   // its text, model, view, layer, head: the attributes' defaults, live or not
  #lessonStep = null;   // one step of the lesson (lesson, step attributes)
  #liveJobs = this.#app.jobs;   // the run controller's; a frozen figure may answer a view's jobs itself
  #reflecting = false;
  #notes = [];

  constructor() {
    super();
    const shadow = this.attachShadow({ mode: 'open' });
    shadow.adoptedStyleSheets = [elementStyleSheet()];
  }

  // ---- properties mirroring attributes ---------------------------------------------------------
  get text() { return this.getAttribute('text') ?? ''; }
  set text(v) { this.setAttribute('text', String(v)); }
  get textPair() { return this.getAttribute('text-pair') ?? ''; }
  set textPair(v) { if (v == null || v === '') this.removeAttribute('text-pair'); else this.setAttribute('text-pair', String(v)); }
  /** An encoder–decoder's target text (the decoder runs over decoder_start_token_id, then it). */
  get target() { return this.getAttribute('target') ?? ''; }
  set target(v) { if (v == null || v === '') this.removeAttribute('target'); else this.setAttribute('target', String(v)); }
  /** Which of an encoder–decoder's attentions the grid, head and lines views draw: 'enc' | 'dec' | 'cross'. */
  get kind() { return this.#state.kind; }
  set kind(v) { this.setAttribute('kind', String(v)); }
  get model() { return this.getAttribute('model') ?? 'bundled'; }
  set model(v) { this.setAttribute('model', String(v)); }
  /** 'auto' (default: f16 matrices only when f32 weights would pass AUTO_F16_ABOVE_BYTES of js/api/memory-estimate.js), 'f32', 'f16' or 'q8'. */
  get weightPrecision() { return this.#state.weightPrecision; }
  set weightPrecision(v) { this.setAttribute('weight-precision', String(v)); }
  get view() { return this.#state.view; }
  set view(v) { this.setAttribute('view', String(v)); }
  get layer() { return this.#state.layer; }
  set layer(v) { this.setAttribute('layer', String(v)); }
  get head() { return this.#state.head; }
  set head(v) { this.setAttribute('head', String(v)); }
  get theme() { return this.getAttribute('theme') === 'dark' ? 'dark' : 'light'; }
  set theme(v) { this.setAttribute('theme', String(v)); }
  get lang() { return this.getAttribute('lang') === 'ko' ? 'ko' : 'en'; }
  set lang(v) { this.setAttribute('lang', String(v)); }
  get height() { return this.getAttribute('height') ?? ''; }
  set height(v) { this.setAttribute('height', String(v)); }
  // No default: where an explorer page lives is known only to the site (the package root has
  // none once dist/ and model/ are deployed), so "Copy link" shows only with page-url.
  get pageUrl() { return this.getAttribute('page-url') ?? ''; }
  set pageUrl(v) { this.setAttribute('page-url', String(v)); }

  /** The RunResult shown (null until the first run finishes). */
  get result() { return this.#app.original; }
  /** The loaded model's info (config, where it came from), or null. */
  get modelInfo() { return this.#app.info; }

  // ---- lifecycle -------------------------------------------------------------------------------
  connectedCallback() {
    if (!this.#dom) this.#build();
    const loadFigure = this.hasAttribute('src') && this.#figureSrc !== this.getAttribute('src');
    this.#figureLoading ||= loadFigure;
    this.#readAttributes();
    if (loadFigure) this.#loadFigure();
    else this.#queueRun();
  }

  attributeChangedCallback(name, before, after) {
    if (!this.#dom || this.#reflecting || before === after) return;
    if (name === 'src') {
      if (after !== null) this.#loadFigure();
      return;
    }
    // A new text (or pair, model) is no longer the figure's: run it live.
    const rerun = ['text', 'text-pair', 'target', 'model', 'weight-precision'].includes(name);
    if (rerun) this.#figure = null;
    this.#readAttributes();
    if (this.#figure && !this.#figureCovers()) this.#figure = null;
    if (!this.#figure && (rerun ||
      this.#runs.needsTrace() || !this.result || this.#app.info?.frozen)) this.#queueRun();
    else this.#queueRender();
  }

  /** Whether the element shows a frozen figure (src) rather than a live run of the model. */
  get frozen() { return Boolean(this.#figure); }

  // ---- frozen figures (src) --------------------------------------------------------------------
  async #loadFigure() {
    const src = this.getAttribute('src');
    this.#figureSrc = src;
    this.#figureLoading = true;
    this.#setStatus('loading', this.#t('figureLoading'));
    try {
      loadStrings(this.#state.lang).catch(() => {});   // fetched beside the file (awaited below)
      const figure = await fetchFigure(src, document.baseURI);
      if (this.#figureSrc !== src) return;
      this.#figureLoading = false;
      this.#figure = figure;
      this.#figureDefaults = figure;
      this.#readAttributes();
      // Attributes that ask for another text, model, view or head than the file holds: live.
      const s = this.#state;
      if (s.text !== figure.text || s.model !== figure.model || s.pairOn || !this.#figureCovers()) {
        this.#figure = null;
        this.#queueRun();
        return;
      }
      await this.#fetchCode();   // the chunk of the figure's view, known only now, and the text
      if (this.#figureSrc !== src || this.#figure !== figure) return;
      this.#app.info = figure.info;
      this.#app.showRun(figure.result);
      this.#shown();
    } catch (error) {
      if (this.#figureSrc !== src) return;
      this.#figureLoading = false;
      this.#fail(error);
    }
  }

  #figureCovers() {
    const s = this.#state;
    return this.#figure.covers(s.view, s.layer, s.head, s.words, s);
  }

  /** Whether the element offers view `v`: its own views, and what its figure holds. */
  #offers(v) {
    if (ELEMENT_VIEWS.includes(v)) return true;
    // Until the src's figure is read, a figure-only view it names is taken on trust (checked then).
    return FIGURE_ONLY_VIEWS.includes(v) && (this.#figureLoading || Boolean(this.#figureDefaults?.covers(v, 0, 0)));
  }

  /** Downloads (and returns) figureData() as JSON. */
  saveFigure() {
    const json = JSON.stringify(this.figureData());
    downloadBlob(new Blob([json], { type: 'application/json' }), this.#fileName('figure.json'), this.#dom.frame);
    return json;
  }

  /** The data of the figure on screen (js/analysis/snapshot.js), as attnscope snapshot writes it. */
  figureData() {
    const s = this.#state;
    if (!this.result) throw new AttnScopeError('E_INPUT', 'nothing to save yet');
    return figureData(this.result, { model: s.model, info: this.#app.info, text: s.text, view: s.view, layer: s.layer, head: s.head,
      words: this.#app.wordsShown(), position: s.query, tau: s.flowTau, patching: this.#app.views[VIEW.patching]?.view.exposed?.last?.figure });
  }

  // ---- exports ---------------------------------------------------------------------------------
  /** Downloads (and returns) a PNG of the view as shown, at devicePixelRatio, as a titled figure with its colour scale. */
  async exportPng() {
    const png = currentViewPng(this.#app);
    if (!png) throw new AttnScopeError('E_INPUT', 'nothing to export yet');
    const blob = await png;
    downloadBlob(blob, this.#fileName('png'), this.#dom.frame);
    return blob;
  }

  /** Downloads (and returns) the view as an SVG document string (the head view: a vector heatmap). */
  exportSvg() {
    const svg = this.result && currentViewSvg(this.#app);
    if (!svg) throw new AttnScopeError('E_INPUT', 'nothing to export yet');
    downloadBlob(new Blob([svg], { type: 'image/svg+xml' }), this.#fileName('svg'), this.#dom.frame);
    return svg;
  }

  /** Downloads (and returns) every layer's attention as BertViz input (js/formats/bertviz.js, as the CLI writes it). */
  exportBertViz() {
    if (!this.result) throw new AttnScopeError('E_INPUT', 'nothing to export yet');
    const json = [...bertvizJson(this.result)].join('');
    downloadBlob(new Blob([json], { type: 'application/json' }), this.#fileName('json'), this.#dom.frame);
    return json;
  }

  /** The explorer page's URL for this element's text (and target, attention kind), model, weights,
   *  view, layer, head and (positions view) sentences. */
  permalink() {
    const s = this.#state;
    return permalinkFor(this.pageUrl, { text: s.text, textPair: s.pair, target: s.target, kind: s.kind, model: s.model, view: s.view,
      layer: s.layer, head: s.head, lang: s.lang, weightPrecision: s.weightPrecision,
      positionsA: s.positionsA, positionsB: s.positionsB });
  }

  async copyPermalink() {
    const url = this.permalink();
    try {
      await navigator.clipboard.writeText(url);
      this.#status(this.#t('copied'));
    } catch {
      this.#status(this.#t('copyFailed', { url }));
    }
    return url;
  }

  #fileName(ext) {
    return exportFileName(this.#state, ext);
  }

  // ---- attributes → state ----------------------------------------------------------------------
  #readAttributes() {
    const s = this.#state;
    this.#notes = [];
    const fig = this.#figureDefaults;
    const text = this.getAttribute('text') ?? (this.textContent.trim() || fig?.text || '');
    const pair = this.getAttribute('text-pair') ?? '';
    if (text.length > MAX_TEXT_CHARS || pair.length > MAX_TEXT_CHARS) this.#notes.push(this.#t('shortened', { n: MAX_TEXT_CHARS }));
    s.text = text.slice(0, MAX_TEXT_CHARS);
    s.pair = pair.slice(0, MAX_TEXT_CHARS);
    s.pairOn = s.pair.trim() !== '';
    const target = this.getAttribute('target') ?? '';
    if (target.length > MAX_TEXT_CHARS) this.#notes.push(this.#t('shortened', { n: MAX_TEXT_CHARS }));
    s.target = target.slice(0, MAX_TEXT_CHARS);
    const kind = this.getAttribute('kind');
    s.kind = ATTENTION_KINDS.includes(kind) ? kind : ATTENTION_KINDS.includes(fig?.kind) ? fig.kind : DEFAULT_KIND;
    if (kind !== null && s.kind !== kind) warn('kind', kind, ATTENTION_KINDS.join('|'));
    s.model = fig && !this.hasAttribute('model') ? fig.model : this.model;
    const precision = this.getAttribute('weight-precision');
    s.weightPrecision = WEIGHT_PRECISIONS.includes(precision) ? precision : 'auto';
    if (precision !== null && s.weightPrecision !== precision) warn('weight-precision', precision, WEIGHT_PRECISIONS.join('|'));
    const view = this.getAttribute('view') ?? fig?.view ?? null;
    const named = VIEW_ALIASES[view] ?? view;
    const before = s.view;
    s.view = this.#offers(named) ? named : DEFAULT_VIEW;
    if (view !== null && s.view !== named) warn('view', view, ELEMENT_VIEWS.join('|'));
    // lesson="attention" step="N": that step of the guided lesson, at its view (the element's
    // nearest when it has not that view).
    const lesson = this.getAttribute('lesson');
    s.lesson = lesson !== null && Object.hasOwn(LESSONS, lesson) ? lesson : '';
    if (lesson !== null && !s.lesson) warn('lesson', lesson, Object.keys(LESSONS).join('|'));
    if (s.lesson) {
      const steps = LESSONS[s.lesson];
      const raw = this.getAttribute('step');
      s.step = raw !== null && INDEX.test(raw.trim()) ? Math.min(Math.max(1, Number(raw.trim())), steps.length) : 1;
      const stepView = steps[s.step - 1].view;
      if (view === null) s.view = ELEMENT_VIEWS.includes(stepView) ? stepView : DEFAULT_VIEW;
    }
    // A view named by the attributes opens as the page opens it (the Flow view at the last position).
    if (s.view !== before) Object.assign(s, viewEntry(s.view).opens);
    this.#readViewParams(fig);
    s.layer = fig && !this.hasAttribute('layer') ? fig.layer : this.#index('layer');
    s.head = fig && !this.hasAttribute('head') ? fig.head : this.#index('head');
    s.lang = this.lang;
    // Word-level matrices (js/analysis/words.js): the attribute, or (without it) what the figure was saved
    // with; words="off" shows a words figure's tokens.
    const words = this.getAttribute('words');
    s.words = words === null ? Boolean(fig?.words) : !/^(off|false|0)$/i.test(words.trim());
    const height = this.getAttribute('height');
    if (height !== null && !HEIGHT.test(height)) warn('height', height, 'a CSS length such as 420px');
    const h = height !== null && HEIGHT.test(height) ? (/\d$/.test(height) ? height + 'px' : height) : '';
    this.#dom.body.style.height = h;
    this.#dom.frame.lang = s.lang;
    const r = this.result;
    if (r) clampToResult(s, r.shape[0], r.shape[1], r.shape[2]);
  }

  // Each view parameter: the attribute, else the figure's value, else what the state holds (a
  // view's own picker may have changed it).
  #readViewParams(fig) {
    const s = this.#state;
    for (const [name, key] of Object.entries(VIEW_PARAMS)) {
      const raw = this.getAttribute(name);
      if (raw === null) {
        if (fig?.state && key in fig.state) s[key] = fig.state[key];
        continue;
      }
      const parsed = stateFromUrl(new URLSearchParams({ [name]: raw }).toString())[key];
      const fallback = defaultState()[key];
      if (parsed === fallback && raw !== String(fallback)) warn(name, raw, `a value the page's ?${name}= takes`);
      s[key] = parsed;
    }
  }

  #index(name) {
    const raw = this.getAttribute(name);
    if (raw === null) return 0;
    if (INDEX.test(raw.trim())) return Number(raw.trim());
    warn(name, raw, 'a whole number');
    return 0;
  }

  #t(key, vars) {
    return elementText(this.#state.lang, key, vars);
  }

  // ---- the shadow DOM --------------------------------------------------------------------------
  #build() {
    const el = (tag, className, parent) => {
      const node = document.createElement(tag);
      if (className) node.className = className;
      parent?.append(node);
      return node;
    };
    const frame = el('div', 'frame');
    frame.setAttribute('part', 'frame');
    const caption = el('p', 'caption', frame);
    const toolbar = el('div', 'toolbar', frame);
    const views = el('div', 'views', toolbar);
    views.setAttribute('role', 'group');
    const viewButtons = {};
    for (const v of [...ELEMENT_VIEWS, ...FIGURE_ONLY_VIEWS]) {
      const b = el('button', '', views);
      b.type = 'button';
      b.dataset.view = v;
      b.addEventListener('click', () => this.#app.set(openView(v)));
      viewButtons[v] = b;
    }
    const actions = el('div', 'actions', toolbar);
    actions.setAttribute('role', 'group');
    const actionButtons = {};
    const report = (p) => Promise.resolve().then(p).catch((e) => this.#fail(e));
    for (const [key, run] of [['png', () => this.exportPng()], ['svg', () => this.exportSvg()],
      ['json', () => this.exportBertViz()], ['figure', () => this.saveFigure()], ['link', () => this.copyPermalink()]]) {
      const b = el('button', '', actions);
      b.type = 'button';
      b.dataset.action = key;
      b.addEventListener('click', () => report(run));
      actionButtons[key] = b;
    }
    // An encoder–decoder's attention kind, as on the page (hidden for other models and views).
    const kinds = el('div', 'kind-switch', frame);
    const kindSwitch = createKindSwitch(kinds, this.#app);
    const status = el('p', 'status', frame);
    status.setAttribute('role', 'status');
    const lesson = el('div', 'lesson lesson-one', frame);
    lesson.hidden = true;
    const stepTitle = el('h3', 'lesson-step-title', lesson);
    const stepBody = el('p', 'lesson-body', lesson);
    const stepFigure = el('div', 'lesson-figure', lesson);
    const body = el('div', 'body', frame);
    const host = el('div', 'view-host', body);
    const brand = el('p', 'brand', frame);
    this.shadowRoot.append(frame);
    this.#dom = { frame, caption, views, viewButtons, actions, actionButtons, kindSwitch, status, body, host, brand, lesson,
      lessonParts: { stepTitle, body: stepBody, figure: stepFigure } };
  }

  // The lesson's stepper and its figures: fetched only by an element that shows a lesson step.
  async #loadLesson() {
    const { elementLessonStep } = await import('./lesson-host.js');
    this.#lessonStep ??= elementLessonStep(this.#app, { ...this.#dom.lessonParts, root: this.shadowRoot }, this);
  }

  // A view changed the state (a picker, a click): mirror it on the attributes and redraw.
  #changed() {
    if (this.#figure && !this.#figureCovers()) this.#figure = null;   // a head or view the figure lacks: live
    if (!this.#figure && (this.#runs.needsTrace() || this.#app.info?.frozen)) this.#queueRun();
    this.#reflect();
    this.#queueRender();
    this.dispatchEvent(new CustomEvent('attnscope-change', { detail: this.#summary(), bubbles: true }));
  }

  // Picker changes inside the element show up on its attributes (without re-running).
  #reflect() {
    const s = this.#state;
    this.#reflecting = true;
    try {
      // kind only where it means something (an encoder–decoder), or where the host page set it.
      const kind = isSeq2Seq(this.#app.info) || this.hasAttribute('kind') ? [['kind', s.kind]] : [];
      for (const [name, value] of [['view', s.view], ['layer', String(s.layer)], ['head', String(s.head)], ...kind, ...this.#viewParams()]) {
        if (this.getAttribute(name) !== value) this.setAttribute(name, value);
      }
    } finally {
      this.#reflecting = false;
    }
  }

  // The shown view's parameters as the page's link writes them (q where the view opened at a
  // position, or the page gave one): only those set, or away from their default.
  #viewParams() {
    const s = this.#state, entry = viewEntry(s.view);
    const link = new URLSearchParams(stateToUrl(s)), d = defaultState();
    const names = Object.keys(entry.params);
    if ('query' in entry.opens || this.hasAttribute('q')) names.push('q');
    return names.filter((name) => link.has(name) || this.hasAttribute(name))
      .map((name) => [name, link.get(name) ?? String(d[VIEW_PARAMS[name]])]);
  }

  #summary() {
    const s = this.#state, r = this.result;
    return { view: s.view, layer: s.layer, head: s.head, model: s.model,
      tokens: r ? [...r.tokens] : [], shape: r ? [...r.shape] : null };
  }

  // ---- running ---------------------------------------------------------------------------------
  #queueRun() {
    if (this.#runQueued) return;
    this.#runQueued = true;
    queueMicrotask(() => {
      this.#runQueued = false;
      if (this.isConnected) this.#run();
    });
  }

  // The model named by the attributes (loaded first when it is not the one in use), then the text.
  async #run() {
    const s = this.#state;
    if (this.#figure || this.#figureLoading) return;   // a frozen figure on screen (or on its way): nothing to run
    const code = this.#fetchCode();
    try {
      const modelId = parseModelId(s.model);
      if (s.text.trim() && !this.#runs.uses(modelId, s.weightPrecision)) {
        this.#setStatus('loading', this.#t('loading'));
        await this.#runs.loadModel(modelId, { weightPrecision: s.weightPrecision, analyses: runsAnalyses(s.view) });
      }
      await code;
      await this.#runs.run();
    } catch (error) {
      if (error?.code !== 'E_ABORTED') this.#fail(error);
    }
  }

  // The view's code, its text in the element's language and (a lesson step) the lesson's: chunks
  // beside the element's script, fetched once, asked for while the model or figure loads, so
  // "ready" means the view is drawn.
  #fetchCode() {
    const s = this.#state;
    const code = Promise.all([loadView(s.view), loadStrings(s.lang), s.lesson && !this.#lessonStep ? this.#loadLesson() : null,
      loadFigureKinds(s.view, s.kind)]);   // so Save figure can write the view's figure (or a cross-attention's)
    code.catch(() => {});   // the caller awaits it, unless the model failed first
    return code;
  }

  #shown() {
    this.#reflect();
    this.#setStatus('ready', '');
    this.#renderNow();
    this.dispatchEvent(new CustomEvent('attnscope-ready', { detail: this.#summary(), bubbles: true }));
  }

  #fail(error) {
    const code = error?.code ?? 'E_INTERNAL';
    const message = error?.message ?? String(error);
    this.#setStatus('error', this.#t('failed', { message, code }), true);
    this.dispatchEvent(new CustomEvent('attnscope-error', { detail: { code, message }, bubbles: true }));
  }

  #setStatus(state, text, isError = false) {
    this.dataset.status = state;
    this.#status(text, isError);
  }

  #status(text, isError = false) {
    const status = this.#dom.status;
    status.classList.toggle('error', isError);
    status.textContent = [text, ...this.#notes].filter(Boolean).join(' ');
  }

  // ---- rendering -------------------------------------------------------------------------------
  #queueRender() {
    if (this.#renderQueued) return;
    this.#renderQueued = true;
    requestAnimationFrame(() => {
      this.#renderQueued = false;
      this.#renderNow();
    });
  }

  #renderNow() {
    const { dom } = { dom: this.#dom };
    const s = this.#state, t = (k, v) => this.#t(k, v);
    if (!stringsLoaded(s.lang) || (s.lesson && !this.#lessonStep)) {   // a new lang or lesson attribute: draw once its code is here
      this.#fetchCode().then(() => this.#queueRender(), (e) => this.#fail(e));
      return;
    }
    dom.caption.replaceChildren(document.createTextNode(s.text));
    if (s.pairOn) {
      const pair = document.createElement('span');
      pair.className = 'pair';
      pair.textContent = ' ‖ ' + s.pair;
      dom.caption.append(pair);
    }
    if (s.target && isSeq2Seq(this.#app.info)) {
      const target = document.createElement('span');
      target.className = 'pair';
      target.textContent = ' → ' + s.target;
      dom.caption.append(target);
    }
    dom.views.setAttribute('aria-label', t('viewsAria'));
    dom.actions.setAttribute('aria-label', t('actionsAria'));
    for (const [v, b] of Object.entries(dom.viewButtons)) {
      b.textContent = translate(s.lang, viewEntry(v).label);
      b.setAttribute('aria-pressed', String(v === s.view));
      b.hidden = !this.#offers(v);
    }
    for (const [key, b] of Object.entries(dom.actionButtons)) {
      b.textContent = t(key);
      b.title = t(key + 'Title');
      b.disabled = !this.result || (key === 'json' && this.frozen) ||   // BertViz wants every head
        (key === 'figure' && !viewEntry(s.view)?.figure) ||
        // BertViz files hold square self-attention: not a target × source matrix (a figure can).
        (key === 'json' && crossShown(this.#app));
    }
    dom.actionButtons.link.hidden = !this.pageUrl;
    dom.brand.textContent = !this.frozen ? t('brand')
      : t(holdsAttention(s.view) ? 'brandFrozen' : 'brandFrozenNumbers', { model: s.model });
    const r = this.result;
    dom.host.hidden = !r;
    dom.lesson.hidden = !(s.lesson && r);
    if (!r) return;
    if (s.lesson) {
      dom.lesson.dataset.step = String(s.step);
      this.#lessonStep.render(LESSONS[s.lesson][s.step - 1], s.step);
    }
    if (this.dataset.status === 'ready') {
      this.#status(this.#figure ? t('frozen', { model: s.model })
        : t('ran', { tokens: r.shape[2], layers: r.shape[0], heads: r.shape[1] }));
    }
    this.dataset.frozen = String(this.frozen);
    dom.kindSwitch.render();
    // A frozen figure answers the jobs its view starts (a patching grid) from its own numbers.
    this.#app.jobs = this.#figure?.jobs ?? this.#liveJobs;
    this.#runs.show(dom.host);
  }
}

// Invalid attributes fall back to defaults; say so once, shortened (values may be hostile or huge).
function warn(name, value, expected) {
  console.warn(`<attn-scope>: ignoring ${name}=${preview(value)} (expected ${expected})`);
}

/** Registers <attn-scope> once (a second bundle on the same page keeps the first). */
export function defineAttnScopeElement(name = 'attn-scope') {
  if (!customElements.get(name)) customElements.define(name, AttnScopeElement);
}
