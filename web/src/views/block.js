// The Block tab: one token's path through one layer with the engine's own numbers, drawn from the
// loaded model's walk (js/formats/block-walks.js: each family's steps, written once as data) — BERT's
// post-LN layer, GPT-2's pre-LN one, the Llama family's, and either stack of an encoder–decoder
// (state.blockStack: the encoder's layers over the source, the decoder's over the target). Each
// step that is arithmetic on the ones before it shows js/formats/block-steps.js's float64 recomputation
// against the engine beside it. The families differ here only in what their run holds (walkedRun).
import { activationKind, appliesAt, itemChecks, normParams, stepName, traced, walkChecks } from '../../../js/formats/block-steps.js';
import { blockWalk, seq2seqBlockWalk } from '../../../js/formats/block-walks.js';
import { isCausal } from '../model/causal-mask.js';
import { tokenName } from '../draw/pickers.js';
import { isSeq2Seq, readable } from '../model/seq2seq-run.js';
import { l2 } from '../draw/vector-strip.js';
import { ACTIVATION_FORMULA, WIDGETS } from './block-widgets.js';
import { blockShell, note, stackSwitch } from './block-shell.js';

const FAMILY_NAMES = { bart: 'BART', marian: 'Marian', t5: 'T5' };

/** What the walk reads of the run on screen: the walk, the trace, the layer and token, their sizes. */
function walkedRun(app) {
  const { state, info, result } = app;
  const cfg = info.config;
  if (isSeq2Seq(info)) {
    const raw = result.seq2seq, stack = state.blockStack, encoder = stack === 'encoder';
    const [L, H, T] = encoder ? raw.encoderShape : raw.decoderShape;
    const l = Math.min(state.layer, L - 1), i = Math.min(state.query, T - 1);
    const targets = raw.targetTokens.map(readable), sources = raw.sourceTokens.map(readable);
    const token = tokenName(i, (encoder ? sources : targets)[i]);
    return {
      walk: seq2seqBlockWalk(cfg, stack), trace: raw[encoder ? 'encoderTrace' : 'decoderTrace'], run: undefined, bar: [stackSwitch(app)],
      vars: { L, H, T, l, i, token, S: raw.crossShape[3], C: cfg.hiddenSize, F: encoder ? cfg.encoderFfnDim : cfg.decoderFfnDim,
        dh: encoder ? cfg.encoderHeadDim : cfg.decoderHeadDim, act: cfg.activation, family: FAMILY_NAMES[cfg.modelType] ?? cfg.modelType,
        nextToken: i + 1 < T ? targets[i + 1] : `${readable(raw.next?.[0]?.token ?? '')}?` },
      // Each attention sublayer's table (block-widgets.js weights): [keys per row, keys read, their names].
      keys: { decoderAttentions: [T, i + 1, targets], crossAttentions: [raw.crossShape[3], raw.crossShape[3], sources],
        encoderAttentions: [T, T, sources] },
      expose: { modelType: cfg.modelType, sourceTokens: raw.crossShape[3], sourceIds: Array.from(raw.sourceIds),
        targetIds: Array.from(raw.targetIds), decoder: !encoder },
    };
  }
  const [L, H, T] = result.shape;
  const l = state.layer, i = state.query;
  const texts = result.tokenTexts ?? result.tokens;
  const C = cfg.hiddenSize, walk = blockWalk(cfg), grouped = walk.family === 'llama';
  return {
    walk, trace: result.trace, run: result, bar: [],
    vars: { L, H, T, l, i, token: tokenName(i, texts[i]), C, F: cfg.intermediateSize, act: cfg.hiddenAct,
      // The Llama family's heads: d_h each, KV key/value heads; BERT's and GPT-2's: C split into H of d_k.
      ...(grouped ? { dh: cfg.headDim, KV: cfg.numKeyValueHeads, Q: H * cfg.headDim } : { dk: C / H }) },
    expose: { decoder: grouped || isCausal(app) },
  };
}

export default function createBlock(host, app) {
  const shell = blockShell(host, app);
  const { body, section, check, strip } = shell;
  let last = null;

  function render() {
    const { t, info } = app;
    const walked = walkedRun(app);
    if (!shell.begin(walked.trace, walked.bar)) {
      last = null;
      return;
    }
    const { walk, trace, run, vars: v } = walked;
    const { L, T, l, i } = v;
    const cfg = info.config;
    // Every placeholder a walk's text may name (js/formats/block-walks.js gives keys, never values).
    const vars = { ...v, layer: l, layers: L, next: l + 1, prev: l - 1, position: i, pairs: v.dh / 2,
      formula: ACTIVATION_FORMULA[activationKind(v.act)], eps: cfg.layerNormEps };
    const flags = { qkv: Boolean(app.result.q && app.result.k && app.result.v) };
    const row = (array) => {
      const w = array.length / T;
      return array.subarray(i * w, (i + 1) * w);
    };
    const at = (ref) => row(traced(trace, ref, l));
    const exposed = {};
    const scratch = {};
    const applies = (e) => appliesAt(e, l, L) && (!e.when || traced(trace, e.when, l)) &&
      (!e.flag || (e.flag.startsWith('!') ? !flags[e.flag.slice(1)] : flags[e.flag]));
    const widgetContext = { app, t, vars, at, row, result: app.result, trace, walked, scratch, strip, note,
      expose: (fields) => Object.assign(exposed, fields) };

    // One item of a section: a note, a strip, a norm's statistics and check, a check, a widget.
    function drawItem(s, item) {
      if (item.note) s.append(note(t(item.note, vars)));
      else if (item.strip) {
        s.append(strip(at(item.strip), item.text ?? t(item.label, { ...vars, ...item.vars }), item.groups ? { groups: vars[item.groups] } : {}));
      } else if (item.norm) {
        const x = at(item.norm), p = normParams(trace, item.params, l), out = at(item.out), step = stepName(item.out, l);
        if (walk.norm === 'rms') shell.rmsNormStats(s, x, p.gamma, out, step, cfg.layerNormEps);
        else shell.layerNormStats(s, x, p, out, step, cfg.layerNormEps);
      } else if (item.check) {
        for (const c of itemChecks(item)) if (c.drawn) check(s, stepName(c.ref, l));
      } else {
        WIDGETS[item.widget](s, item, widgetContext);
      }
    }

    shell.start(walkChecks(walk, trace, cfg, i, run));
    for (const entry of walk.entries) {
      if (!applies(entry)) continue;
      if (entry.note) {
        body.append(note(t(entry.note, entry.sizes ? sizesOf(entry.sizes, at) : vars)));
        continue;
      }
      const s = section(entry.lastTitle && l === L - 1 ? entry.lastTitle : entry.section, vars);
      if (entry.className) s.classList.add(entry.className);
      for (const item of entry.items) if (applies(item)) drawItem(s, item);
    }
    const sections = [...body.querySelectorAll('.block-step')];
    last = { family: walk.family, stack: walk.stack, preNorm: walk.preNorm, layer: l, token: i, tokens: T,
      C: v.C, H: v.H, dk: v.dk, dh: v.dh, KV: v.KV, F: v.F, headsShown: 0, ...walked.expose, ...exposed,
      checks: shell.shownChecks(), allChecks: shell.allChecks(),
      steps: sections.map((s) => s.dataset.step), titles: sections.map((s) => s.querySelector('h4').textContent),
      sections: sections.length };
  }

  return { render, get last() { return last; } };
}

/** blockNormsSummary's lengths: ‖·‖ of each named row, to two decimals. */
function sizesOf(refs, at) {
  return Object.fromEntries(Object.entries(refs).map(([name, ref]) => [name, l2(at(ref)).toFixed(2)]));
}
