// Positions: why a transformer needs position embeddings. Two sentences with the same
// words in another order ("There is a prince" / "Is there a prince") side by side at the chosen
// layer and head, and the change of each word pair's weight between them (word-level attention,
// pairs matched by word, not position); the learned position embeddings' cosine similarities; and, per token, how large
// the word and the position parts of its input are. All numbers come from extra traced runs of the
// model on screen (app.jobs.run: the same worker as the host's own runs).
import { isRotary } from '../model/model-family.js';
import { familySwitch } from './family-switch.js';
import { createRotary } from './rotary.js';
import { Heatmap } from '../draw/heatmap.js';
import { renderLegend } from '../draw/legend.js';
import { diverging, sequential } from '../draw/colormap.js';
import { maxAbsOf, maxOf } from '../math/attention-math.js';
import { layerHeadPickers, tokenName } from '../draw/pickers.js';
import { l2 } from '../draw/vector-strip.js';
import { MAX_POSITION_CHARS } from '../state/state.js';
import { tokenComparisonText } from '../math/token-compare.js';
import { errorReason } from '../i18n/error-text.js';

const POSITION_ROWS = 64;   // rows of the position table compared (fewer if the model reads fewer)

/**
 * Groups tokens into words: a special token is a word of its own; in byte-level BPE (GPT-2,
 * RoBERTa) a token starting with '␣' starts a word and others continue it; in WordPiece a '##'
 * token continues a word. Returns { words: [text], of: [word index of each token] }.
 */
export function wordsOf(tokens, special) {
  const bpe = tokens.some((t) => t.startsWith('␣'));
  const words = [], of = [];
  tokens.forEach((t, i) => {
    const continues = i > 0 && !special[i] && !special[i - 1] && (bpe ? !t.startsWith('␣') : t.startsWith('##'));
    if (continues) words[words.length - 1] += t.replace(/^##/, '');
    else words.push(t.replace(/^␣/, ''));
    of.push(words.length - 1);
  });
  return { words, of };
}

/** Word-level attention: each query word's rows averaged, each key word's columns summed (rows
 *  still sum to 1), as Clark et al. 2019 do for words split into several tokens. */
export function wordMatrix(matrix, of, nWords) {
  const T = of.length, out = new Float32Array(nWords * nWords), count = new Array(nWords).fill(0);
  for (let i = 0; i < T; i++) {
    count[of[i]]++;
    for (let j = 0; j < T; j++) out[of[i] * nWords + of[j]] += matrix[i * T + j];
  }
  for (let a = 0; a < nWords; a++) for (let b = 0; b < nWords; b++) out[a * nWords + b] /= count[a];
  return out;
}

/** Matches each word of `a` to the first unused word of `b` that is the same (case-folded);
 *  -1 when `b` has none. Same words in another order map one to one. */
export function matchWords(a, b) {
  const used = new Set();
  return a.map((w) => {
    const j = b.findIndex((u, k) => !used.has(k) && u.toLowerCase() === w.toLowerCase());
    if (j >= 0) used.add(j);
    return j;
  });
}

export function cosineMatrix(rows, n, C) {
  const norms = Array.from({ length: n }, (_, r) => l2(rows.subarray(r * C, (r + 1) * C)));
  const out = new Float32Array(n * n);
  for (let a = 0; a < n; a++) {
    for (let b = 0; b < n; b++) {
      let dot = 0;
      for (let c = 0; c < C; c++) dot += rows[a * C + c] * rows[b * C + c];
      out[a * n + b] = dot / (norms[a] * norms[b] || 1);
    }
  }
  return out;
}

export function createPositions(host, app) {
  // The two sentences live in the page state (and so in the permalink): what the user typed here
  // survives a reload and travels with a copied link.
  const keys = ['positionsA', 'positionsB'];
  const sentence = (k) => app.state[keys[k]];
  const bar = document.createElement('div');
  bar.className = 'view-bar';
  const inputs = document.createElement('div');
  inputs.className = 'positions-inputs';
  const status = document.createElement('p');
  status.className = 'muted';
  const grid = document.createElement('div');
  grid.className = 'agg-grid positions-grid';
  const posSection = document.createElement('section');
  posSection.className = 'agg-panel positions-table';
  const sizes = document.createElement('section');
  sizes.className = 'agg-panel positions-sizes';
  host.append(bar, inputs, status, grid, posSection, sizes);
  const exposed = {};
  const fields = keys.map((key, k) => {
    const label = document.createElement('label');
    const span = document.createElement('span');
    const input = document.createElement('input');
    input.type = 'text';
    input.value = sentence(k);
    input.maxLength = MAX_POSITION_CHARS;
    input.className = 'positions-sentence';
    input.dataset.side = String(k);
    input.addEventListener('change', () => app.set({ [key]: input.value }));
    label.append(span, input);
    inputs.append(label);
    return { span, input };
  });
  const panel = (cls) => {
    const s = document.createElement('section');
    s.className = 'agg-panel ' + cls;
    const h = document.createElement('h3');
    const mapHost = document.createElement('div');
    mapHost.className = 'map-host';
    const legend = document.createElement('div');
    const noteEl = document.createElement('p');
    noteEl.className = 'hint';
    s.append(h, mapHost, legend, noteEl);
    return { s, h, mapHost, legend, note: noteEl };
  };
  const panels = ['a', 'b', 'delta'].map((k) => panel('positions-' + k));
  for (const p of panels) {
    p.labels = [];
    p.heatmap = new Heatmap(p.mapHost, { labels: true, maxSize: 300,
      tooltip: (i, j, v) => `${tokenName(i, p.labels[i])} → ${tokenName(j, p.labels[j])}: ${v.toFixed(4)}` });
    grid.append(p.s);
  }
  const pos = panel('positions-cos');
  posSection.append(...pos.s.childNodes);
  pos.heatmap = new Heatmap(pos.mapHost, { labels: false, maxSize: 320,
    tooltip: (i, j, v) => `cos(p${i}, p${j}) = ${v.toFixed(4)}` });
  let cache = null;   // { key, promise }

  function request() {
    const n = Math.min(POSITION_ROWS, app.info.config.maxTokens);
    const key = `${app.info.location ?? ''}|${app.info.loadMs}|${sentence(0)}|${sentence(1)}`;
    if (cache?.key === key) return cache.promise;
    const long = Array.from({ length: n }, () => 'a').join(' ');
    const promise = Promise.all([
      app.jobs.run(sentence(0), { trace: true }),
      app.jobs.run(sentence(1), { trace: true }),
      app.jobs.run(long, { trace: true, maxLength: n }),
    ]);
    cache = { key, promise };
    // Leaving the view (or changing the model) cancels them: forget the cache so the next render
    // asks again.
    promise.catch(() => { if (cache?.promise === promise) cache = null; });
    return promise;
  }

  function render() {
    const { t } = app;
    bar.replaceChildren(layerHeadPickers(app));
    fields.forEach((f, k) => {
      f.span.textContent = t(k ? 'positionsSentenceB' : 'positionsSentenceA');
      if (document.activeElement !== f.input) f.input.value = sentence(k);   // never under the caret
    });
    status.textContent = t('positionsRunning');
    status.hidden = false;
    const asked = request();
    asked.then((runs) => { if (cache?.promise === asked) draw(runs); }, (e) => {
      if (e?.code === 'E_ABORTED') return;
      status.textContent = t('runFailed', { reason: errorReason(t, e) });
    });
  }

  function draw([ra, rb, rl]) {
    const { t, state } = app;
    const C = app.info.config.hiddenSize;
    const [L, H] = ra.shape;
    const layer = Math.min(state.layer, L - 1), head = Math.min(state.head, H - 1);
    const texts = (r) => Array.from(r.tokenTexts ?? r.tokens);
    const ta = texts(ra), tb = texts(rb);
    const A = ra.attention(layer, head), B = rb.attention(layer, head);
    const na = ta.length, nb = tb.length;
    const [pa, pb, pd] = panels;
    pa.h.textContent = t('positionsAttention', { text: sentence(0) });
    pb.h.textContent = t('positionsAttention', { text: sentence(1) });
    pa.labels = ta;
    pb.labels = tb;
    const causal = app.info.kind === 'decoder';
    const vmax = Math.max(maxOf(A), maxOf(B));
    pa.heatmap.setData({ matrix: A, n: na, rowLabels: ta, colLabels: ta, scale: sequential, vmax, threshold: 0, causal });
    pb.heatmap.setData({ matrix: B, n: nb, rowLabels: tb, colLabels: tb, scale: sequential, vmax, threshold: 0, causal });
    renderLegend(pa.legend, { scale: sequential, vmax, caption: t('legendAttention') });
    renderLegend(pb.legend, { scale: sequential, vmax, caption: t('legendAttention') });
    pa.note.textContent = pb.note.textContent = '';
    // Change per word pair, in sentence A's word order: weight(pair in B) − weight(pair in A), at
    // word level so a word split differently in the two sentences ("T"+"here" / "␣there") still pairs.
    const wa = wordsOf(ta, ra.specialTokensMask), wb = wordsOf(tb, rb.specialTokensMask);
    const nwa = wa.words.length, nwb = wb.words.length;
    const WA = wordMatrix(A, wa.of, nwa), WB = wordMatrix(B, wb.of, nwb);
    const map = matchWords(wa.words, wb.words);
    const delta = new Float32Array(nwa * nwa).fill(NaN);
    for (let i = 0; i < nwa; i++) {
      for (let j = 0; j < nwa; j++) {
        if (map[i] >= 0 && map[j] >= 0) delta[i * nwa + j] = WB[map[i] * nwb + map[j]] - WA[i * nwa + j];
      }
    }
    const finite = delta.filter((v) => !Number.isNaN(v));
    const dmax = Math.max(maxAbsOf(finite), 1e-6);
    pd.labels = wa.words;
    pd.h.textContent = t('positionsDelta');
    pd.heatmap.setData({ matrix: delta, n: nwa, rowLabels: wa.words, colLabels: wa.words, scale: diverging, vmax: dmax, threshold: 0 });
    renderLegend(pd.legend, { scale: diverging, vmax: dmax, caption: t('positionsDeltaLegend') });
    const unmatched = map.filter((j) => j < 0).length;
    // Whether the inputs differ only in order is read from the token lists (a byte-level BPE may
    // split "There is" and "Is there" into different tokens), not assumed.
    pd.note.textContent = `${tokenComparisonText(t, ta, tb)} ${t(unmatched ? 'positionsUnmatched' : 'positionsDeltaNote', { n: unmatched, max: dmax.toFixed(3) })}`;

    // The position table: rows 0..n−1 as the long run's trace holds them (position p of any token).
    const n = rl.tokens.length;
    const cos = cosineMatrix(rl.trace.embeddings.position, n, C);
    pos.h.textContent = t('positionsCosTitle');
    pos.heatmap.setData({ matrix: cos, n, rowLabels: null, colLabels: null, scale: diverging, vmax: 1, threshold: 0 });
    renderLegend(pos.legend, { scale: diverging, vmax: 1, caption: t('positionsCosLegend') });
    pos.note.textContent = t('positionsCosNote', { n, last: n - 1 });

    // Word vs position: ‖word‖ and ‖position‖ (and ‖token type‖) of each token of sentence A.
    const e = ra.trace.embeddings;
    const row = (arr, p) => arr.subarray(p * C, (p + 1) * C);
    const table = document.createElement('table');
    table.className = 'formula-table positions-norms';
    const headRow = table.createTHead().insertRow();
    const cols = ['positionsColToken', 'positionsColWord', 'positionsColPosition', ...(e.tokenType ? ['positionsColType'] : []), 'positionsColRatio'];
    for (const key of cols) {
      const th = document.createElement('th');
      th.scope = 'col';
      th.textContent = t(key);
      headRow.append(th);
    }
    const sizeRows = [];
    const tb2 = table.createTBody();
    for (let p = 0; p < na; p++) {
      const w = l2(row(e.word, p)), ps = l2(row(e.position, p)), ty = e.tokenType ? l2(row(e.tokenType, p)) : null;
      sizeRows.push({ token: ta[p], word: w, position: ps, tokenType: ty });
      const r = tb2.insertRow();
      const cells = [tokenName(p, ta[p]), w.toFixed(3), ps.toFixed(3), ...(ty === null ? [] : [ty.toFixed(3)]), (ps / w).toFixed(2)];
      for (const c of cells) r.insertCell().textContent = c;
    }
    const h3 = document.createElement('h3');
    h3.textContent = t('positionsSizesTitle');
    const why = document.createElement('p');
    why.className = 'hint';
    why.textContent = t('positionsSizesNote');
    sizes.replaceChildren(h3, table, why);

    status.hidden = true;
    exposed.last = { layer, head, tokensA: ta, tokensB: tb, wordsA: wa.words, wordsB: wb.words, match: map, delta: Array.from(delta),
      wordA: Array.from(WA), wordB: Array.from(WB),
      a: Array.from(A), b: Array.from(B), positionRows: n, cos: Array.from(cos), sizes: sizeRows };
    host.dataset.ready = '1';
  }

  return { render, exposed };
}

/** The Positions tab: the learned position table, or rotary angles for the Llama family. */
export default familySwitch((a) => (isRotary(a.info) ? 'rotary' : 'learned'), { learned: createPositions, rotary: createRotary });
