// The block walk-through: one token's path through one layer with the engine's own
// numbers (the run's trace and q/k/v): layer input → Q, K, V split into H heads of d_k → each
// head's output → concatenated → W_O → Add → Norm → feed-forward → Add → Norm (post-LN encoders),
// or the pre-LN order of decoders (Norm first in each sublayer, ln_f after the last layer). Each
// step that is arithmetic on the step before (the residual sums, LayerNorms and the feed-forward's
// activation) shows the largest difference between js/block-steps.js's float64 recomputation and
// the engine. The Llama family's layer has its own walk (block-llama.js).
import { activationKind, blockSelfChecks } from '../../../js/block-steps.js';
import { formulaSteps, headVector } from '../attention-math.js';
import { causalKeyMask, isCausal } from '../causal-mask.js';
import { tokenName } from '../pickers.js';
import { headHue, l2 } from '../vector-strip.js';
import { blockShell, note } from './block-shell.js';

// Each activation as its formula (the same for every language).
export const ACTIVATION_FORMULA = {
  geluErf: 'x·Φ(x) = ½x(1 + erf(x/√2))',
  geluTanh: '½x(1 + tanh(√(2/π)(x + 0.044715x³)))',
  relu: 'max(0, x)',
  silu: 'x·σ(x)',
};

export function createBlock(host, app) {
  const shell = blockShell(host, app);
  const { body, section, check, strip } = shell;
  let last = null;

  function render() {
    const { t, state, result, info } = app;
    const tr = result.trace;
    if (!shell.begin(tr)) {
      last = null;
      return;
    }
    const cfg = info.config;
    const [L, H, T] = result.shape;
    const C = cfg.hiddenSize, F = cfg.intermediateSize, dk = C / H;
    const l = state.layer, i = state.query;
    const decoder = isCausal(app);
    const texts = result.tokenTexts ?? result.tokens;
    const row = (a, width = C) => a.subarray(i * width, (i + 1) * width);
    shell.start(blockSelfChecks(tr, cfg, i));
    const layer = tr.layers[l];
    const norms = tr.layerNorms.layers[l];
    const normStats = (s, x, ln, out, step) => shell.layerNormStats(s, x, ln, out, step, cfg.layerNormEps);

    body.append(note(t(decoder ? 'blockIntroDecoder' : 'blockIntroEncoder', { token: tokenName(i, texts[i]), layer: l, layers: L })));

    // The layer's input: the embeddings for layer 0 (with their own sum and, in encoders, Norm).
    let input;
    if (l === 0) {
      const s = section('blockEmbeddings');
      const e = tr.embeddings;
      s.append(strip(row(e.word), t('blockWord')), strip(row(e.position), t('blockPosition')));
      if (e.tokenType) s.append(strip(row(e.tokenType), t('blockTokenType')));
      s.append(strip(row(e.sum), t('blockSum')));
      check(s, 'embeddings.sum');
      if (!decoder) {
        s.append(note(t('blockEmbNorm')));
        normStats(s, row(e.sum), tr.layerNorms.embeddings, row(e.output), 'embeddings.output');
      }
      input = row(e.output);
    } else {
      input = row(tr.layers[l - 1].output);
    }
    const sIn = section('blockInput', { layer: l });
    sIn.append(strip(input, 'x'));

    let attnIn = input;
    if (decoder) {
      const s = section('blockPreNormAttn');
      attnIn = row(layer.attentionInputNorm);
      normStats(s, input, norms.attention, attnIn, `layers.${l}.attentionInputNorm`);
    }

    // Q, K, V of this token: the engine's per-head vectors laid side by side are the C-wide Q, K, V.
    const concat = (which) => {
      const out = new Float32Array(C);
      for (let h = 0; h < H; h++) out.set(headVector(result, which, l, h, i), h * dk);
      return out;
    };
    const haveQkv = Boolean(result.q && result.k && result.v);
    const sQkv = section('blockQkv', { C });
    const split = document.createElement('div');
    split.className = 'head-split';
    split.setAttribute('role', 'img');
    split.setAttribute('aria-label', t('blockSplit', { C, H, dk }));
    for (let h = 0; h < H; h++) {
      const cell = document.createElement('span');
      cell.style.background = headHue(h);
      cell.title = t('blockSlice', { head: h, from: h * dk, to: (h + 1) * dk - 1 });
      cell.textContent = H <= 16 ? String(h) : '';
      split.append(cell);
    }
    sQkv.append(note(t('blockSplit', { C, H, dk })), split);
    const heads = [];
    if (haveQkv) {
      sQkv.append(strip(concat('q'), 'Q', { groups: H }), strip(concat('k'), 'K', { groups: H }), strip(concat('v'), 'V', { groups: H }));
      // Each head's output Σ_j α_ij v_j, from the engine's attention row and v (as the formula view).
      const sHeads = section('blockHeads', { H, dk });
      for (let h = 0; h < H; h++) {
        const mask = decoder ? causalKeyMask(T, i, app.keyMask()) : app.keyMask();
        const f = formulaSteps(result, l, h, i, mask);
        heads.push(f.output);
        if (h < 4 || h === H - 1) sHeads.append(strip(f.output, t('blockHeadOut', { head: h, dk })));
        else if (h === 4) sHeads.append(note(t('blockMoreHeads', { n: H - 5 })));
      }
      const cat = new Float32Array(C);
      heads.forEach((o, h) => cat.set(o, h * dk));
      const sCat = section('blockConcat', { H, dk, C });
      sCat.append(strip(cat, t('blockConcatLabel'), { groups: H }));
    } else {
      sQkv.append(note(t('formulaNoQkv')));
    }

    const sWo = section('blockWo', { C });
    sWo.append(strip(row(layer.attentionOutput), t('blockAttnOut')));
    const sAdd1 = section('blockAdd');
    sAdd1.append(note(t('blockAddWhy')), strip(input, 'x'), strip(row(layer.attentionOutput), t('blockAttnOut')),
      strip(row(layer.attentionResidual), t('blockResidual')));
    check(sAdd1, `layers.${l}.attentionResidual`);
    let ffnIn, ffnResidualBase;
    if (decoder) {
      const s = section('blockPreNormFfn');
      ffnIn = row(layer.ffnInputNorm);
      ffnResidualBase = row(layer.attentionResidual);
      normStats(s, row(layer.attentionResidual), norms.ffn, ffnIn, `layers.${l}.ffnInputNorm`);
    } else {
      const s = section('blockNormTitle');
      ffnIn = row(layer.attentionNorm);
      ffnResidualBase = ffnIn;
      normStats(s, row(layer.attentionResidual), norms.attention, ffnIn, `layers.${l}.attentionNorm`);
    }
    const sFfn = section('blockFfn', { C, F, act: cfg.hiddenAct });
    sFfn.classList.add('block-ffn');
    const formula = ACTIVATION_FORMULA[activationKind(cfg.hiddenAct)];
    sFfn.append(strip(ffnIn, t('blockFfnIn')), strip(row(layer.ffnPreActivation, F), t('blockFfnPre', { F })),
      note(t('blockActApplied', { act: cfg.hiddenAct, F, formula })), strip(row(layer.ffnIntermediate, F), t('blockFfnMid', { F, act: cfg.hiddenAct })));
    check(sFfn, `layers.${l}.ffnIntermediate`);
    sFfn.append(strip(row(layer.ffnOutput), t('blockFfnOut')));
    const sAdd2 = section('blockAdd');
    sAdd2.append(strip(ffnResidualBase, decoder ? t('blockResidual') : t('blockNormOut')), strip(row(layer.ffnOutput), t('blockFfnOut')),
      strip(row(layer.ffnResidual), t('blockResidual2')));
    check(sAdd2, `layers.${l}.ffnResidual`);
    if (!decoder) {
      const s = section('blockNormTitle');
      normStats(s, row(layer.ffnResidual), norms.ffn, row(layer.output), `layers.${l}.output`);
    }
    const sOut = section(l + 1 < L ? 'blockNext' : 'blockLast', { next: l + 1 });
    sOut.append(strip(row(layer.output), t('blockLayerOut', { layer: l })));
    if (decoder && l + 1 === L && tr.finalNorm) {
      sOut.append(note(t('blockFinalNorm')));
      normStats(sOut, row(layer.output), tr.layerNorms.final, row(tr.finalNorm), 'finalNorm');
    }
    // How much each sublayer changed the token: ‖x‖ → ‖attention out‖ → ‖FFN out‖ → ‖output‖.
    body.append(note(t('blockNormsSummary', {
      input: l2(input).toFixed(2), attn: l2(row(layer.attentionOutput)).toFixed(2),
      ffn: l2(row(layer.ffnOutput)).toFixed(2), out: l2(row(layer.output)).toFixed(2),
    })));
    last = { layer: l, token: i, tokens: T, C, H, dk, F, decoder, checks: shell.shownChecks(),
      allChecks: shell.allChecks(),
      headsShown: heads.length, sections: body.querySelectorAll('.block-step').length };
  }

  return { render, get last() { return last; } };
}
