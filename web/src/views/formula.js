// The formula walk-through for one head and one query token: q_i and every k_j, the dot products,
// ÷√d_k, softmax, and the output Σ_j α_ij v_j — recomputed from the q, k, v the engine returned
// (run with qkv), and checked against the engine's attention row, which it must equal.
// Then the key and value vectors of one key (the strongest, or the row clicked), and every
// query at once: QKᵀ/√d_k before the softmax beside the softmaxed matrix. Beside it, a short
// plain-language explanation of Q, K, V, √d_k and softmax.
import { formulaSteps, headVector, maxAbsOf, maxOf } from '../math/attention-math.js';
import { diverging, cssColour, sequential } from '../draw/colormap.js';
import { createAggregatePanels } from './aggregate-panels.js';
import { renderLegend } from '../draw/legend.js';
import { layerHeadPickers, queryPicker, tokenName } from '../draw/pickers.js';
import { configNumbers } from '../panels/model-picker.js';
import { causalKeyMask, isCausal } from '../model/causal-mask.js';
import { maskStep } from './formula-mask.js';
import { isRotary, kvGroupOf } from '../model/model-family.js';
import { scrollHint } from '../draw/scroll-hint.js';

const MAX_ROWS = 48;   // long inputs: the table lists the strongest keys; the check covers all

export function createFormula(host, app) {
  const layout = document.createElement('div');
  layout.className = 'formula-layout';
  const main = document.createElement('div');
  main.className = 'formula-main';
  const explain = document.createElement('aside');
  explain.className = 'explain';
  layout.append(main, explain);
  host.append(layout);
  let last = null;
  const texts = () => textsOf(app.result);
  let chosenKey = null;   // { layer, head, query, key } the row clicked; else the strongest key
  const matrices = document.createElement('div');
  matrices.className = 'agg-grid formula-matrices';
  const mapPanels = createAggregatePanels(matrices, ['scores', 'weights'], () => {
    const labels = texts();
    return { positions: labels.map((_, i) => i), labels };
  });
  for (const p of Object.values(mapPanels)) p.note.hidden = true;

  function vectorStrip(values, label) {
    const box = document.createElement('div');
    box.className = 'vector';
    const name = document.createElement('span');
    name.className = 'vector-name';
    name.textContent = label;
    const c = document.createElement('canvas');
    const cell = Math.max(3, Math.min(10, Math.floor(300 / values.length)));
    const dpr = window.devicePixelRatio || 1;
    c.width = values.length * cell * dpr;
    c.height = 14 * dpr;
    c.style.width = values.length * cell + 'px';
    c.style.height = '14px';
    const ctx = c.getContext('2d');
    ctx.scale(dpr, dpr);
    let m = 0;
    for (const v of values) m = Math.max(m, Math.abs(v));
    values.forEach((v, d) => {
      ctx.fillStyle = cssColour(diverging, m ? (v / m + 1) / 2 : 0.5);
      ctx.fillRect(d * cell, 0, cell, 14);
    });
    c.setAttribute('aria-hidden', 'true');
    const nums = document.createElement('code');
    nums.className = 'vector-values';
    nums.textContent = '[' + Array.from(values, (v) => v.toFixed(2)).join(', ') + ']';
    box.append(name, c, nums);
    return box;
  }

  function step(text) {
    const p = document.createElement('p');
    p.className = 'step';
    p.textContent = text;
    return p;
  }

  function render() {
    const { t, state, result } = app;
    main.replaceChildren();
    renderExplanation();
    const bar = layerHeadPickers(app);
    bar.className = 'view-bar';
    bar.append(queryPicker(app));
    main.append(bar);
    if (!result.q || !result.k || !result.v) {
      main.append(step(t('formulaNoQkv')));
      return;
    }
    const i = state.query;
    const keyMask = app.keyMask();
    // A decoder adds −∞ to every key after the query (the causal mask) on top of any attention mask.
    const causal = isCausal(app);
    const queryMask = causal ? causalKeyMask(result.shape[2], i, keyMask) : keyMask;
    const f = formulaSteps(result, state.layer, state.head, i, queryMask);
    const row = result.attention(state.layer, state.head).subarray(i * result.shape[2], (i + 1) * result.shape[2]);
    let maxErr = 0;
    for (let j = 0; j < row.length; j++) maxErr = Math.max(maxErr, Math.abs(f.softmax[j] - row[j]));
    last = { layer: state.layer, head: state.head, query: i, dk: f.dk,
      scores: Array.from(f.scores), scaled: Array.from(f.scaled), softmax: Array.from(f.softmax),
      output: Array.from(f.output), engineRow: Array.from(row), maxError: maxErr,
      causal, maskedKeys: causal ? Array.from({ length: row.length }, (_, j) => j).filter((j) => j > i) : [] };
    const tok = texts();
    main.append(step(t('formulaStep1', { token: tokenName(i, tok[i]), dk: f.dk })));
    main.append(vectorStrip(f.q, `q${sub(i)}`));
    // Beside q·k: the lengths and the angle it is made of (dot product vs cosine).
    const lengths = qkLengths(result, state.layer, state.head, f.q, tok.length);
    main.append(step(t('formulaQNorm', { norm: lengths.q.toFixed(3) })));
    Object.assign(last, { qNorm: lengths.q, kNorms: lengths.k, cos: lengths.cos });
    const sizes = configNumbers(app.info);
    // Llama-family configs may set head_dim apart from d_model / h (Qwen3: 128 with d_model 1024 / 16).
    const split = sizes.hidden && sizes.hidden / result.shape[1] !== f.dk;
    main.append(step(t(split ? 'formulaWhereQHeadDim' : 'formulaWhereQ', { hidden: sizes.hidden ?? '?', heads: result.shape[1], dk: f.dk })));
    // Grouped-query attention: this head's k and v are another head's too; rotary: q, k are turned.
    const group = kvGroupOf(app.info?.config, state.head);
    if (group) main.append(step(t('formulaSharedKv', { kv: group.kv, first: group.first, last: group.last, head: state.head })));
    if (isRotary(app.info)) main.append(step(t('formulaRotated')));
    last.kvGroup = group;
    main.append(step(t('formulaStep2', { scale: f.scale.toFixed(3), dk: f.dk })));
    if (causal) main.append(maskStep(app, i, tok));
    const table = document.createElement('table');
    table.className = 'formula-table';
    const head = table.createTHead().insertRow();
    for (const key of ['colKey', 'colDot', 'colKNorm', 'colCos', 'colScaled', ...(causal ? ['colMask'] : []), 'colSoftmax']) {
      const th = document.createElement('th');
      th.textContent = t(key, { dk: f.dk });
      th.scope = 'col';
      head.append(th);
    }
    const body = table.createTBody();
    const T = tok.length;
    let order = Array.from({ length: T }, (_, j) => j);
    const hidden = app.state.hideSpecial ? new Set(order.filter((j) => result.specialTokensMask[j])) : new Set();
    order = order.filter((j) => !hidden.has(j));
    const shown = order.length > MAX_ROWS ? [...order].sort((a, b) => f.softmax[b] - f.softmax[a]).slice(0, MAX_ROWS).sort((a, b) => a - b) : order;
    for (const j of shown) {
      const r = body.insertRow();
      r.dataset.key = j;
      const masked = keyMask && keyMask[j] === 0;
      // A masked key's score is −∞ (attention_mask), so its weight is exactly 0.
      const cells = [tokenName(j, tok[j]), masked ? '−∞' : f.scores[j].toFixed(3), lengths.k[j].toFixed(3), lengths.cos[j].toFixed(3), masked ? '−∞' : f.scaled[j].toFixed(3)];
      // Decoders: the mask column says what the causal mask adds (0, or −∞ for a later key).
      if (causal) cells.push(j > i || masked ? '−∞' : '0');
      for (const text of cells) r.insertCell().textContent = text;
      if (causal && j > i) r.classList.add('causal-masked');
      const sm = r.insertCell();
      sm.className = 'softmax-cell';
      const barEl = document.createElement('span');
      barEl.className = 'bar';
      barEl.style.width = (f.softmax[j] * 100).toFixed(1) + '%';
      const num = document.createElement('span');
      num.textContent = f.softmax[j].toFixed(4);
      sm.append(barEl, num);
      if (j === i) r.className = 'self';
      r.addEventListener('click', () => { chosenKey = { layer: state.layer, head: state.head, query: i, key: j }; render(); });
    }
    const tableBox = document.createElement('div');
    tableBox.className = 'table-scroll';
    tableBox.append(table);
    const more = scrollHint(tableBox, () => t('scrollMore'));
    main.append(more.element, tableBox);
    more.update();
    if (shown.length < order.length) main.append(step(t('formulaTopOnly', { shown: shown.length, total: order.length })));
    if (hidden.size) main.append(step(t('formulaHiddenNote')));
    // One key's k and v (the strongest unless a row was clicked for this layer, head and query).
    const c = chosenKey;
    const key = c && c.layer === state.layer && c.head === state.head && c.query === i && c.key < T
      ? c.key : f.softmax.indexOf(Math.max(...f.softmax));
    for (const r of body.rows) r.classList.toggle('chosen', Number(r.dataset.key) === key);
    main.append(step(t('formulaKeyValue', { token: tokenName(key, tok[key]), alpha: f.softmax[key].toFixed(4) })));
    const kVec = headVector(result, 'k', state.layer, state.head, key), vVec = headVector(result, 'v', state.layer, state.head, key);
    Object.assign(last, { key, k: Array.from(kVec), v: Array.from(vVec) });
    main.append(vectorStrip(kVec, `k${sub(key)}`));
    main.append(vectorStrip(vVec, `v${sub(key)}`));
    main.append(step(t('formulaStep3', { token: tokenName(i, tok[i]) })));
    main.append(vectorStrip(f.output, `o${sub(i)}`));
    const check = step(t('formulaCheck', { err: maxErr.toExponential(1) }));
    check.className = 'step check ' + (maxErr < 1e-4 ? 'ok' : 'bad');
    check.dataset.maxError = String(maxErr);
    main.append(check);
    renderMatrices(f.dk, keyMask, causal);
  }

  // Every query of this head: the scaled scores QKᵀ/√d_k (masked keys −∞, left blank), and the
  // softmax of each row, which is the head's attention matrix.
  function renderMatrices(dk, keyMask, causal) {
    const { t, state, result } = app;
    main.append(step(t('formulaMatrices')), matrices);   // attached first: the heatmaps size to it
    const T = result.shape[2], scale = Math.sqrt(dk);
    const scores = new Float32Array(T * T);
    const keys = Array.from({ length: T }, (_, j) => headVector(result, 'k', state.layer, state.head, j));
    for (let i = 0; i < T; i++) {
      const q = headVector(result, 'q', state.layer, state.head, i);
      for (let j = 0; j < T; j++) {
        if ((keyMask && keyMask[j] === 0) || (causal && j > i)) { scores[i * T + j] = NaN; continue; }
        let dot = 0;
        for (let d = 0; d < dk; d++) dot += q[d] * keys[j][d];
        scores[i * T + j] = dot / scale;
      }
    }
    last.scoresMatrix = Array.from(scores);
    const weights = result.attention(state.layer, state.head);
    const labels = Array.from(texts());
    const shown = { scores: [scores, diverging, Math.max(maxAbsOf(scores.filter((v) => !Number.isNaN(v))), 1e-6), t('legendScores')],
      weights: [weights, sequential, maxOf(weights), t('legendAttention')] };
    for (const [kind, p] of Object.entries(mapPanels)) {
      const [matrix, colours, vmax, caption] = shown[kind];
      p.h.textContent = t('formulaMatrix_' + kind);
      p.heatmap.setData({ matrix, n: T, rowLabels: labels, colLabels: labels, scale: colours, vmax, threshold: 0, causal });
      renderLegend(p.legend, { scale: colours, vmax, caption });
    }
  }

  function renderExplanation() {
    const { t } = app;
    explain.replaceChildren();
    const h = document.createElement('h3');
    h.textContent = t('explainTitle');
    explain.append(h);
    const formula = document.createElement('p');
    formula.className = 'big-formula';
    formula.textContent = 'Attention(Q, K, V) = softmax(QKᵀ / √d_k) · V';
    explain.append(formula);
    for (const key of ['explainQ', 'explainK', 'explainV', 'explainScale', 'explainSoftmax', 'explainOut', 'explainCosine']) {
      const p = document.createElement('p');
      p.textContent = t(key);
      explain.append(p);
    }
  }

  return { render, get last() { return last; } };
}

// Readable token forms ('␣river', not 'Ġriver') for labels and the table.
function textsOf(result) {
  return result.tokenTexts ?? result.tokens;
}

// ‖q‖, every ‖k_j‖ and cos(q, k_j) = q·k_j / (‖q‖ ‖k_j‖), from the engine's q and k.
function qkLengths(result, layer, head, q, T) {
  const len = (v) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  const qn = len(q), k = [], cos = [];
  for (let j = 0; j < T; j++) {
    const kv = headVector(result, 'k', layer, head, j);
    const kn = len(kv);
    let dot = 0;
    for (let d = 0; d < kv.length; d++) dot += q[d] * kv[d];
    k.push(kn);
    cos.push(qn && kn ? dot / (qn * kn) : 0);
  }
  return { q: qn, k, cos };
}

function sub(n) {
  return String(n).replace(/\d/g, (d) => '₀₁₂₃₄₅₆₇₈₉'[d]);
}

export default createFormula;
