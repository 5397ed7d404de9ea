// The block walk-through for an encoder–decoder (BART, Marian, T5): one target token
// through one decoder layer with the engine's traced numbers (js/seq2seq.js decoderTrace), in the
// order the layer runs them — ① masked self-attention over the target so far, ② cross-attention
// over the source, ③ feed-forward, each with its Add & Norm: T5 normalises before each sublayer
// (RMSNorm) and once more after the last layer, BART and Marian after each Add (LayerNorm). Each
// attention sublayer lists the tokens it read with every head's weights (the run's own
// decoder/cross attention rows); a closing table says what each sublayer added to the token's
// residual stream. Every Add and Norm shows js/block-steps.js's float64 recomputation against the
// engine. The result on screen is the decoder's here (seq2seq-run.js kindShown).
import { activationKind, seq2seqSelfChecks } from '../../../js/block-steps.js';
import { cssColour, sequential } from '../colormap.js';
import { tokenName } from '../pickers.js';
import { readable } from '../seq2seq-run.js';
import { l2 } from '../vector-strip.js';
import { ACTIVATION_FORMULA } from './block-bert-gpt2.js';
import { blockShell, note } from './block-shell.js';

const TOP_ENTRIES = 3;        // largest entries of each sublayer's output named in the summary
const DARK_CELL = 0.55;       // weights above this get light text on the sequential scale
const FAMILY_NAMES = { bart: 'BART', marian: 'Marian', t5: 'T5' };

/** The `n` entries of v largest in magnitude: [[dimension, value]], largest first. */
export function largestEntries(v, n = TOP_ENTRIES) {
  return Array.from(v, (x, d) => [d, x]).sort((a, b) => Math.abs(b[1]) - Math.abs(a[1])).slice(0, n);
}

export function createSeq2SeqBlock(host, app) {
  const shell = blockShell(host, app);
  const { body, section, check, strip } = shell;
  let last = null;

  function render() {
    const { t, state, info } = app;
    const r = app.result;
    const raw = r.seq2seq;
    const tr = raw.decoderTrace;
    if (!shell.begin(tr)) {
      last = null;
      return;
    }
    const cfg = info.config;
    const [L, H, T] = raw.decoderShape;
    const S = raw.crossShape[3];
    const C = cfg.hiddenSize, F = cfg.decoderFfnDim, dh = cfg.decoderHeadDim, eps = cfg.layerNormEps;
    const l = Math.min(state.layer, L - 1), i = Math.min(state.query, T - 1);
    const preNorm = cfg.modelType === 't5';
    const targets = raw.targetTokens.map(readable), sources = raw.sourceTokens.map(readable);
    const token = tokenName(i, targets[i]);
    const next = i + 1 < T ? targets[i + 1] : `${readable(raw.next?.[0]?.token ?? '')}?`;
    const row = (a, width = C) => a.subarray(i * width, (i + 1) * width);
    shell.start(seq2seqSelfChecks(tr, cfg, i));
    const layer = tr.layers[l];
    const norms = tr.norms.layers[l];
    const normStats = (s, x, n, out, step) => (n.beta
      ? shell.layerNormStats(s, x, n, out, step, eps)
      : shell.rmsNormStats(s, x, n.gamma, out, step, eps));
    // Head h's weights of this token over `keys` keys, from a run's [L][H][T][keys] attentions.
    const weightsOf = (data, keys, n) => Array.from({ length: H }, (_, h) =>
      Array.from(data.subarray(((l * H + h) * T + i) * keys, ((l * H + h) * T + i) * keys + n)));

    body.append(note(t('blockS2SIntro', { token, layer: l, layers: L, next })),
      note(preNorm ? t('blockS2SFamilyT5') : t('blockS2SFamilyPostLn', { family: FAMILY_NAMES[cfg.modelType] ?? cfg.modelType })));

    let x;
    if (l === 0) {
      const s = section('blockS2SEmbeddings', { token });
      s.append(note(t({ t5: 'blockS2SEmbT5', bart: 'blockS2SEmbBart' }[cfg.modelType] ?? 'blockS2SEmbMarian')));
      x = row(tr.embeddings);
      s.append(strip(x, 'x'));
    } else {
      x = row(tr.layers[l - 1].output);
      section('blockS2SInput', { layer: l, prev: l - 1 }).append(strip(x, 'x'));
    }
    const summary = [{ key: 'input', added: null, after: l2(x), top: [] }];

    // ① and ②: the same steps over different keys (the target so far; the source).
    const attention = (sub, titleKey, vars, weights, keyLabels, weightsKey, outKey, afterKey) => {
      const s = section(titleKey, vars);
      if (preNorm) {
        s.append(note(t('blockS2SPreNorm')));
        normStats(s, x, norms[sub], row(layer[`${sub}InputNorm`]), `layers.${l}.${sub}InputNorm`);
      }
      s.append(note(t(weightsKey)), weightsTable(t, keyLabels, weights, t('blockS2SWeightsAria', { token })));
      const out = row(layer[`${sub}Output`]);
      s.append(note(t('blockS2SHeadsOut', { H, dh })), strip(out, t(outKey)));
      const add = section('blockS2SAdd');
      add.append(strip(x, 'x'), strip(out, t(outKey)), strip(row(layer[`${sub}Residual`]), t(afterKey)));
      check(add, `layers.${l}.${sub}Residual`);
      x = row(layer[`${sub}Residual`]);
      if (!preNorm) {
        add.append(note(t('blockS2SPostNorm')));
        normStats(add, x, norms[sub], row(layer[`${sub}Norm`]), `layers.${l}.${sub}Norm`);
        x = row(layer[`${sub}Norm`]);
      }
      summary.push({ key: sub, added: l2(out), after: l2(x), top: largestEntries(out) });
    };
    const selfWeights = weightsOf(raw.decoderAttentions, T, i + 1);
    attention('selfAttention', 'blockS2SSelf', { token, i }, selfWeights, targets.slice(0, i + 1),
      'blockS2SSelfWeights', 'blockS2SSelfOut', 'blockS2SAfterSelf');
    const crossWeights = weightsOf(raw.crossAttentions, S, S);
    attention('crossAttention', 'blockS2SCross', { token, S }, crossWeights, sources,
      'blockS2SCrossWeights', 'blockS2SCrossOut', 'blockS2SAfterCross');

    // ③ The feed-forward network, on this token's vector alone.
    const sFfn = section('blockS2SFfn', { C, F });
    sFfn.classList.add('block-ffn');
    if (preNorm) {
      sFfn.append(note(t('blockS2SPreNorm')));
      normStats(sFfn, x, norms.ffn, row(layer.ffnInputNorm), `layers.${l}.ffnInputNorm`);
    }
    const act = cfg.activation;
    if (cfg.gatedFfn) {
      sFfn.append(note(t('blockS2SGatedWhy', { act, C })), strip(row(layer.ffnPreActivation, F), t('blockS2SFfnPreGated', { F })),
        strip(row(layer.ffnIntermediate, F), t('blockS2SFfnMidGated', { act, F })));
    } else {
      sFfn.append(strip(row(layer.ffnPreActivation, F), preNorm ? t('blockS2SFfnPreT5', { F }) : t('blockFfnPre', { F })),
        note(t('blockActApplied', { act, F, formula: ACTIVATION_FORMULA[activationKind(act)] })),
        strip(row(layer.ffnIntermediate, F), t('blockFfnMid', { F, act })));
      check(sFfn, `layers.${l}.ffnIntermediate`);
    }
    const ffnOut = row(layer.ffnOutput);
    sFfn.append(strip(ffnOut, t('blockFfnOut')));
    const sAdd = section('blockS2SAdd');
    sAdd.append(strip(x, 'x'), strip(ffnOut, t('blockFfnOut')), strip(row(layer.ffnResidual), t('blockS2SAfterFfn')));
    check(sAdd, `layers.${l}.ffnResidual`);
    if (!preNorm) {
      sAdd.append(note(t('blockS2SPostNorm')));
      normStats(sAdd, row(layer.ffnResidual), norms.ffn, row(layer.output), `layers.${l}.output`);
    }
    x = row(layer.output);
    summary.push({ key: 'ffn', added: l2(ffnOut), after: l2(x), top: largestEntries(ffnOut) });

    const sOut = section(l + 1 < L ? 'blockNext' : 'blockLast', { next: l + 1 });
    sOut.append(strip(x, t('blockLayerOut', { layer: l })));
    if (l + 1 === L && tr.finalNorm) {
      sOut.append(note(t('blockS2SFinalNorm')));
      normStats(sOut, x, tr.norms.final, row(tr.finalNorm), 'finalNorm');
    }
    const sSum = section('blockS2SSummary', { token, layer: l });
    sSum.classList.add('block-summary');
    sSum.append(summaryTable(t, summary), note(t(preNorm ? 'blockS2SSummaryNoteT5' : 'blockS2SSummaryNotePostLn')));

    last = { family: 'seq2seq', modelType: cfg.modelType, preNorm, layer: l, token: i, tokens: T, sourceTokens: S,
      C, H, dh, F, sourceIds: Array.from(raw.sourceIds), targetIds: Array.from(raw.targetIds),
      selfWeights, crossWeights, summary,
      checks: shell.shownChecks(), allChecks: shell.allChecks(),
      steps: [...body.querySelectorAll('.block-step')].map((s) => s.dataset.step),
      sections: body.querySelectorAll('.block-step').length };
  }

  return { render, get last() { return last; } };
}

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

// One row per step: ‖added‖, ‖x‖ after it, and the sublayer output's largest entries.
function summaryTable(t, summary) {
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
  const names = { input: 'blockS2SRowInput', selfAttention: 'blockS2SRowSelf', crossAttention: 'blockS2SRowCross', ffn: 'blockS2SRowFfn' };
  const tbody = table.createTBody();
  for (const s of summary) {
    const tr = tbody.insertRow();
    tr.dataset.step = s.key;
    const name = document.createElement('th');
    name.scope = 'row';
    name.textContent = t(names[s.key]);
    tr.append(name);
    for (const text of [s.added === null ? '' : s.added.toFixed(2), s.after.toFixed(2),
      s.top.map(([d, v]) => `${d}: ${v >= 0 ? '+' : ''}${v.toFixed(2)}`).join('\n')]) {
      tr.insertCell().textContent = text;
    }
  }
  wrap.append(table);
  return wrap;
}
