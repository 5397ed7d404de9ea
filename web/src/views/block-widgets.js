// The Block view's drawings that are more than a strip of traced numbers, each named by a walk's
// `widget` item (js/formats/block-walks.js): the split of x into heads, each head's Σ α v, the grouped
// key/value heads, a rotation's lengths, the table of weights an attention sublayer read and the
// table of what each sublayer added. Each is called as (section, item, context) by views/block.js;
// `expose` hands the numbers a test reads to the view's `last`.
import { formulaSteps, headVector } from '../math/attention-math.js';
import { causalKeyMask, isCausal } from '../model/causal-mask.js';
import { cssColour, sequential } from '../draw/colormap.js';
import { kvGroups } from '../model/model-family.js';
import { headHue, l2 } from '../draw/vector-strip.js';

/** Each activation as its formula (the same for every language). */
export const ACTIVATION_FORMULA = {
  geluErf: 'x·Φ(x) = ½x(1 + erf(x/√2))',
  geluTanh: '½x(1 + tanh(√(2/π)(x + 0.044715x³)))',
  relu: 'max(0, x)',
  silu: 'x·σ(x)',
};

const HEADS_SHOWN = 4;        // heads drawn one by one before "… n more" (and the last)
const TOP_ENTRIES = 3;        // largest entries of each sublayer's output named in the summary
const DARK_CELL = 0.55;       // weights above this get light text on the sequential scale

/** The `n` entries of v largest in magnitude: [[dimension, value]], largest first. */
export function largestEntries(v, n = TOP_ENTRIES) {
  return Array.from(v, (x, d) => [d, x]).sort((a, b) => Math.abs(b[1]) - Math.abs(a[1])).slice(0, n);
}

/** A row of coloured cells, one per head (its colour, its title), for `aria`. */
function headCells(count, colourOf, titleOf, aria) {
  const split = document.createElement('div');
  split.className = 'head-split';
  split.setAttribute('role', 'img');
  split.setAttribute('aria-label', aria);
  for (let h = 0; h < count; h++) {
    const cell = document.createElement('span');
    cell.style.background = headHue(colourOf(h));
    cell.title = titleOf(h);
    cell.textContent = count <= 16 ? String(h) : '';
    split.append(cell);
  }
  return split;
}

/** Strips of the first HEADS_SHOWN heads and the last, "… n more" between. */
function someHeads(s, H, stripOf, { note, t }) {
  for (let h = 0; h < H; h++) {
    if (h < HEADS_SHOWN || h === H - 1) s.append(stripOf(h));
    else if (h === HEADS_SHOWN) s.append(note(t('blockMoreHeads', { n: H - HEADS_SHOWN - 1 })));
  }
}

export const WIDGETS = {
  /** BERT, GPT-2: the C numbers of Q, K, V split into H slices of d_k, one colour each. */
  headSplit(s, item, { t, vars: { C, H, dk } }) {
    s.append(headCells(H, (h) => h, (h) => t('blockSlice', { head: h, from: h * dk, to: (h + 1) * dk - 1 }), t('blockSplit', { C, H, dk })));
  },

  /** This token's Q, K, V: the engine's per-head vectors laid side by side. */
  qkv(s, item, { result, strip, vars: { C, H, dk, l, i } }) {
    const concat = (which) => {
      const out = new Float32Array(C);
      for (let h = 0; h < H; h++) out.set(headVector(result, which, l, h, i), h * dk);
      return out;
    };
    s.append(strip(concat('q'), 'Q', { groups: H }), strip(concat('k'), 'K', { groups: H }), strip(concat('v'), 'V', { groups: H }));
  },

  /** Each head's output Σ_j α_ij v_j, from the engine's attention row and v (as the formula view). */
  headOutputs(s, item, context) {
    const { app, t, result, strip, scratch, expose, vars: { H, T, dk, l, i } } = context;
    const decoder = isCausal(app);
    scratch.heads = Array.from({ length: H }, (_, h) =>
      formulaSteps(result, l, h, i, decoder ? causalKeyMask(T, i, app.keyMask()) : app.keyMask()).output);
    someHeads(s, H, (h) => strip(scratch.heads[h], t('blockHeadOut', { head: h, dk })), context);
    expose({ headsShown: H });
  },

  /** The heads' outputs concatenated: C numbers again. */
  concat(s, item, { t, strip, scratch, vars: { C, H, dk } }) {
    const cat = new Float32Array(C);
    scratch.heads.forEach((o, h) => cat.set(o, h * dk));
    s.append(strip(cat, t('blockConcatLabel'), { groups: H }));
  },

  /** A rotation keeps lengths: head 0's ‖q‖ before and after. */
  rotationLengths(s, item, { t, at, note, expose, vars: { dh, i } }) {
    const before = at('qHeadNorm|qProjection').subarray(0, dh), after = at('qRotated').subarray(0, dh);
    s.append(note(t('blockRotationLengths', { before: l2(before).toFixed(3), after: l2(after).toFixed(3) })));
    // Head 0's q before and after the rotation (a test turns `before` itself and compares).
    expose({ rotation: { position: i, before: Array.from(before), after: Array.from(after) } });
  },

  /** Grouped-query attention: which key/value head each query head reads, and each head's context. */
  kvGroups(s, item, context) {
    const { app, t, at, strip, note, expose, vars: { H, KV, dh } } = context;
    const cfg = app.info.config;
    s.append(note(kvGroups(cfg).length ? t('blockGqaShared', { H, KV, per: H / KV }) : t('blockGqaOwn', { H })));
    const split = headCells(H, (h) => cfg.kvHeads[h], (h) => t('blockGqaCell', { head: h, kv: cfg.kvHeads[h] }),
      t('blockGqaMap', { map: cfg.kvHeads.map((g, h) => `${h}→${g}`).join(', ') }));
    s.append(split);
    const contexts = at('attentionContext');
    someHeads(s, H, (h) => strip(contexts.subarray(h * dh, (h + 1) * dh), t('blockGqaHeadOut', { head: h, kv: cfg.kvHeads[h], dh })), context);
    expose({ kvMap: split.getAttribute('aria-label') });
  },

  /** An encoder–decoder's attention sublayer: the tokens it read, each head's weight and their mean. */
  weights(s, item, { t, result, walked, expose, vars: { H, T, l, i, token } }) {
    const [keys, n, labels] = walked.keys[item.attentions];
    const data = result.seq2seq[item.attentions];
    const weights = Array.from({ length: H }, (_, h) =>
      Array.from(data.subarray(((l * H + h) * T + i) * keys, ((l * H + h) * T + i) * keys + n)));
    s.append(weightsTable(t, labels.slice(0, n), weights, t('blockS2SWeightsAria', { token })));
    expose({ [item.exposeAs]: weights });
  },

  /** One row per sublayer: ‖added‖, ‖x‖ after it, and the largest entries it added. */
  summary(s, item, { t, at, expose }) {
    const summary = item.rows.map(({ key, added, after }) => ({ key, added: added ? l2(at(added)) : null, after: l2(at(after)),
      top: added ? largestEntries(at(added)) : [] }));
    s.append(summaryTable(t, summary, item.rows.map((r) => r.label)));
    expose({ summary });
  },
};

// Rows: the tokens read; columns: each head's weight, then their mean (each cell shaded by it).
function weightsTable(t, labels, weights, aria) {
  const wrap = document.createElement('div');
  wrap.className = 'table-scroll';
  const table = document.createElement('table');
  table.className = 'block-weights';
  table.setAttribute('aria-label', aria);
  const head = table.createTHead().insertRow();
  for (const text of [t('blockS2SColToken'), ...weights.map((_, h) => t('blockS2SColHead', { head: h })), t('blockS2SColMean')]) {
    const th = document.createElement('th');
    th.textContent = text;
    head.append(th);
  }
  const tbody = table.createTBody();
  labels.forEach((label, j) => {
    const tr = tbody.insertRow();
    const name = document.createElement('th');
    name.scope = 'row';
    name.textContent = `${j}: ${label}`;
    tr.append(name);
    const values = weights.map((w) => w[j]);
    values.push(values.reduce((a, b) => a + b, 0) / values.length);
    values.forEach((v, c) => {
      const td = tr.insertCell();
      td.textContent = v.toFixed(2);
      td.title = v.toFixed(4);
      td.style.background = cssColour(sequential, v);
      if (v > DARK_CELL) td.classList.add('dark');
      if (c === values.length - 1) td.classList.add('mean');
    });
  });
  wrap.append(table);
  return wrap;
}

function summaryTable(t, summary, labelKeys) {
  const wrap = document.createElement('div');
  wrap.className = 'table-scroll';
  const table = document.createElement('table');
  table.className = 'block-summary-table';
  const head = table.createTHead().insertRow();
  for (const key of ['blockS2SColStep', 'blockS2SColAdded', 'blockS2SColAfter', 'blockS2SColTop']) {
    const th = document.createElement('th');
    th.textContent = t(key);
    head.append(th);
  }
  const tbody = table.createTBody();
  summary.forEach((s, n) => {
    const tr = tbody.insertRow();
    tr.dataset.step = s.key;
    const name = document.createElement('th');
    name.scope = 'row';
    name.textContent = t(labelKeys[n]);
    tr.append(name);
    for (const text of [s.added === null ? '' : s.added.toFixed(2), s.after.toFixed(2),
      s.top.map(([d, v]) => `${d}: ${v >= 0 ? '+' : ''}${v.toFixed(2)}`).join('\n')]) {
      tr.insertCell().textContent = text;
    }
  });
  wrap.append(table);
  return wrap;
}
