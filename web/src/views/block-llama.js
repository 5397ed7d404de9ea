// The block walk-through for the Llama family (Llama, Mistral, Qwen2, Qwen3): one token
// through one layer with the engine's traced numbers, in the order the layer runs them:
//   RMSNorm (input_layernorm) → q, k, v projections (k, v: the key/value heads) → Qwen3's per-head
//   q/k RMSNorms → rotation of q and k by the token's position → grouped-query attention (which
//   K/V head each query head reads) → o_proj → Add → RMSNorm (post_attention_layernorm) → SwiGLU
//   (gate, act(gate), up, act(gate) · up, down) → Add; model.norm after the last layer.
// No position table: the embeddings are the word vector alone. Each step that is arithmetic on the
// ones before it shows js/block-steps.js's float64 recomputation against the engine.
import { blockSelfChecks } from '../../../js/block-steps.js';
import { kvGroups } from '../model-family.js';
import { tokenName } from '../pickers.js';
import { headHue, l2 } from '../vector-strip.js';
import { blockShell, note } from './block-shell.js';

const HEADS_SHOWN = 4;  // heads drawn one by one before "… n more"

export function createLlamaBlock(host, app) {
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
    const C = cfg.hiddenSize, F = cfg.intermediateSize, dh = cfg.headDim, KV = cfg.numKeyValueHeads;
    const l = state.layer, i = state.query;
    const texts = result.tokenTexts ?? result.tokens;
    const row = (a, width = C) => a.subarray(i * width, (i + 1) * width);
    shell.start(blockSelfChecks(tr, cfg, i, result));
    const layer = tr.layers[l];
    const norms = tr.layerNorms.layers[l];
    const rmsStats = (s, x, gamma, out, step) => shell.rmsNormStats(s, x, gamma, out, step, cfg.layerNormEps);

    body.append(note(t('blockIntroLlama', { token: tokenName(i, texts[i]), layer: l, layers: L })));

    let input;
    if (l === 0) {
      const s = section('blockEmbeddingsRotary');
      s.append(strip(row(tr.embeddings.word), t('blockWord')));
      check(s, 'embeddings.sum');
      input = row(tr.embeddings.output);
    } else {
      input = row(tr.layers[l - 1].output);
    }
    section('blockInput', { layer: l }).append(strip(input, 'x'));

    const sNorm1 = section('blockRmsAttn');
    rmsStats(sNorm1, input, norms.attention.gamma, row(layer.attentionInputNorm), `layers.${l}.attentionInputNorm`);

    const Q = H * dh, KVW = KV * dh;
    const sQkv = section('blockQkvLlama', { C, H, KV, dh });
    sQkv.append(strip(row(layer.qProjection, Q), 'q', { groups: H }), strip(row(layer.kProjection, KVW), 'k', { groups: KV }),
      strip(row(layer.vProjection, KVW), 'v', { groups: KV }));

    let qBefore = row(layer.qProjection, Q), kBefore = row(layer.kProjection, KVW);
    if (layer.qHeadNorm) {
      const s = section('blockHeadNorms', { dh });
      s.append(strip(row(layer.qHeadNorm, Q), t('blockQNormed'), { groups: H }), strip(row(layer.kHeadNorm, KVW), t('blockKNormed'), { groups: KV }));
      check(s, `layers.${l}.qHeadNorm`);
      check(s, `layers.${l}.kHeadNorm`);
      qBefore = row(layer.qHeadNorm, Q);
      kBefore = row(layer.kHeadNorm, KVW);
    }

    // The rotation turns pairs of numbers: lengths stay, directions change with the position.
    const sRot = section('blockRotation', { position: i });
    const qAfter = row(layer.qRotated, Q), kAfter = row(layer.kRotated, KVW);
    sRot.append(note(t('blockRotationWhy', { position: i, pairs: dh / 2 })),
      strip(qBefore, t('blockBeforeRotation', { x: 'q' }), { groups: H }), strip(qAfter, t('blockAfterRotation', { x: 'q' }), { groups: H }));
    check(sRot, `layers.${l}.qRotated`);
    sRot.append(strip(kBefore, t('blockBeforeRotation', { x: 'k' }), { groups: KV }), strip(kAfter, t('blockAfterRotation', { x: 'k' }), { groups: KV }));
    check(sRot, `layers.${l}.kRotated`);
    sRot.append(note(t('blockRotationLengths', { before: l2(qBefore.subarray(0, dh)).toFixed(3), after: l2(qAfter.subarray(0, dh)).toFixed(3) })));

    // Grouped-query attention: which key/value head each query head reads.
    const sGqa = section('blockGqa', { H, KV });
    const groups = kvGroups(cfg);
    sGqa.append(note(groups.length
      ? t('blockGqaShared', { H, KV, per: H / KV })
      : t('blockGqaOwn', { H })));
    const split = document.createElement('div');
    split.className = 'head-split';
    split.setAttribute('role', 'img');
    split.setAttribute('aria-label', t('blockGqaMap', { map: cfg.kvHeads.map((g, h) => `${h}→${g}`).join(', ') }));
    cfg.kvHeads.forEach((g, h) => {
      const cell = document.createElement('span');
      cell.style.background = headHue(g);
      cell.title = t('blockGqaCell', { head: h, kv: g });
      cell.textContent = H <= 16 ? String(h) : '';
      split.append(cell);
    });
    sGqa.append(split);
    const context = row(layer.attentionContext, Q);
    for (let h = 0; h < H; h++) {
      if (h < HEADS_SHOWN || h === H - 1) {
        sGqa.append(strip(context.subarray(h * dh, (h + 1) * dh), t('blockGqaHeadOut', { head: h, kv: cfg.kvHeads[h], dh })));
      } else if (h === HEADS_SHOWN) {
        sGqa.append(note(t('blockMoreHeads', { n: H - HEADS_SHOWN - 1 })));
      }
    }
    check(sGqa, `layers.${l}.attentionContext`);

    const sWo = section('blockWoLlama', { Q, C });
    sWo.append(strip(context, t('blockConcatLabel'), { groups: H }), strip(row(layer.attentionOutput), t('blockAttnOut')));
    const sAdd1 = section('blockAdd');
    sAdd1.append(note(t('blockAddWhy')), strip(input, 'x'), strip(row(layer.attentionOutput), t('blockAttnOut')),
      strip(row(layer.attentionResidual), t('blockResidual')));
    check(sAdd1, `layers.${l}.attentionResidual`);

    const sNorm2 = section('blockRmsFfn');
    rmsStats(sNorm2, row(layer.attentionResidual), norms.ffn.gamma, row(layer.ffnInputNorm), `layers.${l}.ffnInputNorm`);

    const sFfn = section('blockSwiglu', { C, F, act: cfg.hiddenAct });
    sFfn.classList.add('block-ffn');
    sFfn.append(note(t('blockSwigluWhy', { act: cfg.hiddenAct })), strip(row(layer.ffnInputNorm), t('blockFfnIn')),
      strip(row(layer.ffnGate, F), t('blockGate', { F })), strip(row(layer.ffnGateActivated, F), t('blockGateAct', { act: cfg.hiddenAct, F })));
    check(sFfn, `layers.${l}.ffnGateActivated`);
    sFfn.append(strip(row(layer.ffnUp, F), t('blockUp', { F })), strip(row(layer.ffnIntermediate, F), t('blockGateTimesUp', { act: cfg.hiddenAct, F })));
    check(sFfn, `layers.${l}.ffnIntermediate`);
    sFfn.append(strip(row(layer.ffnOutput), t('blockDown', { C })));
    const sAdd2 = section('blockAdd');
    sAdd2.append(strip(row(layer.attentionResidual), t('blockResidual')), strip(row(layer.ffnOutput), t('blockFfnOut')),
      strip(row(layer.ffnResidual), t('blockResidual2')));
    check(sAdd2, `layers.${l}.ffnResidual`);

    const sOut = section(l + 1 < L ? 'blockNext' : 'blockLast', { next: l + 1 });
    sOut.append(strip(row(layer.output), t('blockLayerOut', { layer: l })));
    if (l + 1 === L) {
      sOut.append(note(t('blockFinalRmsNorm')));
      rmsStats(sOut, row(layer.output), tr.layerNorms.final.gamma, row(tr.finalNorm), 'finalNorm');
    }
    body.append(note(t('blockNormsSummary', {
      input: l2(input).toFixed(2), attn: l2(row(layer.attentionOutput)).toFixed(2),
      ffn: l2(row(layer.ffnOutput)).toFixed(2), out: l2(row(layer.output)).toFixed(2),
    })));
    last = { family: 'llama', layer: l, token: i, tokens: T, C, H, KV, dh, F, decoder: true, checks: shell.shownChecks(),
      // Head 0's q before and after the rotation (a test turns `before` itself and compares).
      rotation: { position: i, before: Array.from(qBefore.subarray(0, dh)), after: Array.from(qAfter.subarray(0, dh)) },
      kvMap: split.getAttribute('aria-label'),
      allChecks: shell.allChecks(),
      steps: [...body.querySelectorAll('.block-step')].map((s) => s.dataset.step),
      titles: [...body.querySelectorAll('.block-step h4')].map((h) => h.textContent),
      sections: body.querySelectorAll('.block-step').length };
  }

  return { render, get last() { return last; } };
}
