// The view contract: the one object every view (web/src/views/*, the token chips) is given, built
// here for both the explorer page (main.js) and <attn-scope> (web/embed/element.js). A view
// reads it, calls set() and starts worker jobs only through `jobs`; it never holds a worker client
// and never reaches the host page:
//   state                  the shared state object (state.js: view, layer, head, query, ...)
//   info                   the loaded model's info (null before the first load)
//   original, edited, edit the typed text's RunResult; the run after masking/dropping tokens
//                          (null when none) and { kind: 'mask' | 'drop', positions }
//   result                 the run on screen (edited ?? original)
//   t(key, vars)           the UI text in state.lang
//   set(patch)             changes state; the host redraws
//   display()              { positions, labels } shown (special tokens hidden or not; with
//                          words shown, one entry per word: its first token and its text)
//   displayMatrix(l, h)    one head's matrix as shown (restricted + renormalised when hiding;
//                          word-level when words are shown, js/analysis/words.js)
//   wordsShown()           true when state.words is on, the view is a matrix view (its registry entry's words)
//                          and the run on screen has words (a typed text without a pair)
//   keyMask()              attention_mask of the run shown (masked tokens 0), or null
//   resultPosition(p)      typed-text position → position in the run shown (−1: dropped)
//   originalPosition(p)    the reverse
//   toggleSelected(p, {query})  adds/removes a typed-text position to/from the selection (and
//                          makes it the query unless query: false: the chips' selecting mode)
//   jobs                   the worker, as far as a view may use it (run-controller.js): every
//                          job below runs on the model in use and is stopped (E_ABORTED) when the
//                          view shown or the model changes; `signal` adds the view's own Cancel
//     .model                 the model in use, as a key for caches (changes with the model)
//     .run(text, options)    an extra run (the positions view's sentences; an encoder–decoder's:
//                            text as a source, options.target/targetIds, js/api/seq2seq.js's result)
//     .runIds(ids, options)  an extra run of token ids (the sampling preview's whole distribution)
//     .corpus({signal, onProgress}), .cachedCorpus()      the corpus sample's summary (corpus.js)
//     .corpusMap(l, h, {signal, onProgress}), .cachedCorpusMap(l, h)   one head's query/key map
//     .ablation({signal, onProgress})                     each head's effect on the sample
//     .patch(options)        activation patching (model.patch: clean, corrupted, answer, wrong,
//                            site, signal, onProgress; encoder–decoders also targetIds, stack),
//                            one job whose rows arrive as progress
//     .compare(text)         the text through both bundled models (the encoder-vs-decoder view)
//   ablates                true where the host runs heads switched off (state.headsOff: the page)
//   openText(text, patch)  the page only: shows another text (the map's sentences)
//   openPair(pair)         the page only: an encoder–decoder's held-out pair as source and target
//   loadModel(source, label, opts)  the page only: the model picker's load
//   generation             a decoder's generation in progress or last finished (generate-panel.js
//                          writes it: { prompt, promptLength, settings, steps, done, stopReason,
//                          ids, error }); the sampling preview and the KV-cache strip read it
//   generated              an encoder–decoder's target written by a generation ({ targetIds,
//                          tokens }), run instead of the typed one (seq2seq-panel.js writes it)
//   heldout                an encoder–decoder's held-out pairs (heldout.js), or null
//   lessonVars             the lesson step's numbers (T, C, H, dk) its text and figure read
//   views, runsDone        the views built so far; finished runs (for tests)
//   streaming              an encoder–decoder's target is being generated and shown as it is
//                          written (original is then target-stream.js's result, original.streamed)
// The host gives `onSet(patch, before)` (mirror the state, redraw) and feeds runs in with
// showRun / clearRun / showEdit / clearEdit (through run-controller.js, which sets jobs), and a
// generation's rows with showStream / endStream.
import { translate } from '../i18n/i18n.js';
import { clampToResult } from './state.js';
import { alignPositions, restrict, visiblePositions } from '../math/attention-math.js';
import { findWords, mergeHead } from '../../../js/analysis/words.js';
import { waitsForFullRun } from '../model/target-stream.js';
import { viewEntry } from '../views/registry.js';

/** Whether view `id` can show words instead of tokens (state.words): the matrix views that draw
 *  display() and displayMatrix() only (their registry entry's `words`). The formula and the
 *  others stay on tokens. */
const mergesWords = (id) => Boolean(viewEntry(id)?.words);

const MATRIX_CACHE = 8;   // recent heads: the views ask for the same head often

export function createViewModel({ state, onSet }) {
  let cache = null;       // per result shown: positions, labels, restricted matrices
  let alignment = null;   // per edit: typed-text position → position in the edited run
  let runsDone = 0;
  let streaming = false;
  const views = {};

  const app = {
    state,
    info: null,
    original: null,
    edited: null,
    edit: null,
    jobs: null,
    ablates: false,
    // The hosts' and panels' own (see above); declared here so the object can be sealed.
    generated: null,
    generation: null,
    heldout: null,
    lessonVars: null,
    openText: null,
    openPair: null,
    loadModel: null,
    get result() { return app.edited ?? app.original; },
    get views() { return views; },
    get runsDone() { return runsDone; },
    get streaming() { return streaming; },
    t: (key, vars) => translate(state.lang, key, vars),

    set(patch) {
      const before = { ...state };
      Object.assign(state, patch);
      if ('hideSpecial' in patch || 'words' in patch) cache = null;
      fitToResult();
      onSet(patch, before);
    },

    wordsShown() {
      return Boolean(state.words && mergesWords(state.view) && resultWords());
    },

    display() {
      const r = app.result;
      const words = app.wordsShown() ? resultWords() : null;
      // An encoder–decoder's run shows one of its sides (r.kind: seq2seq-run.js), chosen by the state.
      if (!cache || cache.result !== r || cache.words !== words || cache.kind !== r.kind) {
        if (words) {
          // Words in the run's order; hiding special tokens hides the words they stand for.
          const kept = words.map((w, i) => i).filter((i) => !state.hideSpecial || !r.specialTokensMask[words[i].tokens[0]]);
          const rows = kept.length ? kept : words.map((w, i) => i);
          cache = { result: r, kind: r.kind, words, rows, positions: rows.map((i) => words[i].tokens[0]),
            labels: rows.map((i) => words[i].text), matrices: new Map() };
        } else {
          const positions = visiblePositions(r, state.hideSpecial);
          const texts = r.tokenTexts ?? r.tokens;   // readable forms ('␣river', not 'Ġriver')
          cache = { result: r, kind: r.kind, words, positions, labels: positions.map((p) => texts[p]), matrices: new Map() };
        }
      }
      return cache;
    },

    displayMatrix(layer, head) {
      const r = app.result, d = app.display();
      const raw = r.attention(layer, head);
      if (!d.words && d.positions.length === r.shape[2]) return raw;
      const key = `${layer}/${head}`;
      let m = d.matrices.get(key);
      if (!m) {
        // A run that carries its own word matrices (a frozen figure saved with words) is drawn
        // from them: the figure's numbers, not a merge redone here.
        const merged = d.words && (r.words === d.words && r.wordAttentions?.length
          ? r.wordAttention(layer, head) : mergeHead(raw, d.words, r.shape[2]));
        m = d.words
          ? restrict(merged, d.words.length, d.rows, true)
          : restrict(raw, r.shape[2], d.positions, true);
        if (d.matrices.size >= MATRIX_CACHE) d.matrices.delete(d.matrices.keys().next().value);
        d.matrices.set(key, m);
      }
      return m;
    },

    keyMask() {
      if (!app.edited || app.edit.kind !== 'mask') return null;
      return app.original.tokens.map((_, i) => (app.edit.positions.includes(i) ? 0 : 1));
    },

    resultPosition(position) {
      const map = positionMap();
      return map ? (map[position] ?? -1) : position;
    },

    originalPosition(position) {
      const map = positionMap();
      return map ? map.indexOf(position) : position;
    },

    toggleSelected(position, { query = true } = {}) {
      const selected = state.selected.includes(position)
        ? state.selected.filter((p) => p !== position)
        : [...state.selected, position].sort((a, b) => a - b);
      app.set(query ? { selected, query: position } : { selected });
    },

    // ---- for the host ----
    /** A finished run of the typed text: shown, any edit dropped. */
    showRun(result) {
      app.original = result;
      app.edited = null;
      app.edit = null;
      cache = null;
      runsDone++;
      fitToResult();
    },
    /** The rows a generation has written so far (target-stream.js): shown until the next run. */
    showStream(result) {
      streaming = true;
      app.original = result;
      app.edited = null;
      app.edit = null;
      cache = null;
      // Layer and head fit the rows so far; the query and selection wait for the full run (the
      // Block view, which reads them, waits too), or a stream starting at one row would reset them.
      const { query, selected } = state;
      fitToResult();
      Object.assign(state, { query, selected });
    },
    /** The generation ended (or stopped): its rows stay on screen until the full run replaces them. */
    endStream() {
      streaming = false;
    },
    /** An empty input: no run on screen (nothing shown may belong to an earlier input). */
    clearRun() {
      app.original = null;
      app.edited = null;
      app.edit = null;
      cache = null;
    },
    showEdit(edit, result) {
      app.edited = result;
      app.edit = edit;
      cache = null;
      fitToResult();
    },
    clearEdit() {
      app.edited = null;
      app.edit = null;
      cache = null;
      fitToResult();
    },
  };

  // The words of the run on screen: the typed text's (its own run carries the text it ran,
  // run-controller.js), also under an edit that keeps every position (masking, heads off).
  let wordsOf = { result: null, words: null };
  function resultWords() {
    const r = app.original;
    if (!r || typeof r.text !== 'string') return null;
    if (app.edited && app.edit?.kind === 'drop') return null;
    if (wordsOf.result !== r) wordsOf = { result: r, words: r.words ?? findWords(r, r.text) };
    return wordsOf.words;
  }

  // The alignment of a drop edit (masking keeps every position), built once per edit.
  function positionMap() {
    if (!app.edited || app.edit.kind !== 'drop') return null;
    if (alignment?.edit !== app.edit) alignment = { edit: app.edit, map: Array.from(alignPositions(app.original.tokens.length, app.edit)) };
    return alignment.map;
  }

  // Keeps layer/head/query inside the run on screen; a hidden [CLS]/[SEP] cannot be the query.
  function fitToResult() {
    const r = app.result;
    if (!r) return;
    clampToResult(state, r.shape[0], r.shape[1], r.shape[2]);
    if (state.hideSpecial && r.specialTokensMask[state.query]) {
      const first = visiblePositions(r, true)[0];
      if (first !== undefined) state.query = first;
    }
  }

  // Everything a view may read is declared above: a property set anywhere else is a mistake.
  return Object.seal(app);
}

/** Shows view `id` in `host` (building it with build() → factory on first use) and renders it. */
export function showView(host, app, id, build) {
  const { views, state } = app;
  for (const [key, v] of Object.entries(views)) v.panel.hidden = key !== id;
  if (!views[id]) {
    const panel = document.createElement('div');
    panel.className = 'view view-' + id;
    panel.dataset.view = id;
    host.append(panel);
    views[id] = { panel, view: build()(panel, app) };
  }
  const { panel, view } = views[id];
  // A target being written: the views that grow with it say so; the others wait for the full run
  // (their last drawing, of another target, is hidden rather than left as if it were this one's).
  const waiting = waitsForFullRun(app.result, state);
  showStreamNote(panel, app, waiting);
  if (waiting) return;
  if (!mapsShown(host, panel, app, id, build)) return;
  view.render();
  showWordsBadge(panel, app);
}

// A run whose maps stay in the worker (too large for the page: js/api/result.js mapsInWorker): a view
// reading every head at once says it is not offered at this size; one drawing the selected head
// draws once that head's map has come (then the last few fetched are at hand); the grid fetches
// its own. Whether the view may draw now.
function mapsShown(host, panel, app, id, build) {
  const r = app.result;
  const how = r?.mapsInWorker ? viewEntry(id)?.maps : null;
  let note = panel.querySelector(':scope > .maps-note');
  if (how !== 'every') {
    note?.remove();
    delete panel.dataset.mapsUnavailable;
  }
  if (how === 'every') {
    if (!note) {
      note = document.createElement('p');
      note.className = 'maps-note';
      panel.prepend(note);
    }
    panel.dataset.mapsUnavailable = '';
    note.textContent = app.t('mapsInWorkerView', { maps: eagerMapsMB(r) });
    return false;
  }
  if (how !== 'selected') return true;
  const { layer, head } = app.state;
  try {
    r.attention(layer, head);
    return true;
  } catch {
    // Not fetched yet: drawn when it comes, if the run, the head and the view are still these.
    r.attentionAsync(layer, head).then(() => {
      if (app.result === r && app.state.layer === layer && app.state.head === head && app.state.view === id) {
        showView(host, app, id, build);
      }
    }, () => {});   // released meanwhile: a newer run is being shown
    return false;
  }
}

/** The megabytes a run's maps would take held whole (L·H·T·keys floats). */
const eagerMapsMB = (r) => Math.round(r.shape.reduce((a, b) => a * b, 1) * 4 / 1024 ** 2).toLocaleString('en');

function showStreamNote(panel, app, waiting) {
  let note = panel.querySelector(':scope > .stream-note');
  if (waiting) panel.dataset.waiting = ''; else delete panel.dataset.waiting;
  if (!app.result?.streamed) {
    note?.remove();
    return;
  }
  if (!note) {
    note = document.createElement('p');
    note.className = 'stream-note';
    panel.prepend(note);
  }
  note.dataset.waiting = String(waiting);
  // A target the Steering panel wrote stays a stream: a full run of it would not be steered.
  const which = app.result.steering;   // 'plain' | 'steered': a target the Steering panel wrote
  const keys = which ? ['streamSteeredWaiting', 'streamSteered'] : ['streamWaiting', 'streamGrowing'];
  note.textContent = app.t(waiting ? keys[0] : keys[1], { n: app.result.targets.T, which: which ? app.t('steerWhich_' + which) : '' });
}

// Wherever words replace tokens the view says so, and says why when it cannot.
function showWordsBadge(panel, app) {
  let badge = panel.querySelector(':scope > .words-badge');
  const on = app.state.words && mergesWords(app.state.view) && app.result;
  if (!on) {
    badge?.remove();
    return;
  }
  if (!badge) {
    badge = document.createElement('p');
    badge.className = 'words-badge';
    panel.prepend(badge);
  }
  const shown = app.wordsShown();
  badge.dataset.shown = String(shown);
  badge.textContent = app.t(shown ? 'wordsBadge' : 'wordsUnavailable');
}
