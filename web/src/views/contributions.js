// The Contributions view: direct logit attribution. The predicted token's logit after the
// last position split into what each head and MLP wrote into the residual stream (the final norm's
// scale held at its value there, so the parts add up to the logit); heads and MLPs ranked by the
// size of what they added, positive pushing the token up, negative down. Clicking a head opens it
// in the head view. Reads result.attribution (run-controller.js asks for it while this view is
// shown; decoders: GPT-2's final LayerNorm or the Llama family's RMSNorm).
import { isCausal } from '../model/causal-mask.js';
import { isRotary } from '../model/model-family.js';
import { VIEW } from './registry.js';
import { explainedLayout, heading, para } from './text-nodes.js';

const SHOWN = 16;
const fmt = (x) => (Math.abs(x) >= 0.01 || x === 0 ? x.toFixed(3) : x.toExponential(1));

export function createContributions(host, app) {
  const { main, explain } = explainedLayout(host, 'contrib-main');

  function render() {
    const { t } = app;
    main.replaceChildren();
    const rms = isRotary(app.info);  // the Llama family's final norm is an RMSNorm (engine/attribution.h)
    explain.replaceChildren(heading(t('contribName')), para(t(rms ? 'contribFormulaRms' : 'contribFormula'), 'formula-text'));
    if (!isCausal(app)) { main.append(para(t('contribEncoder'), 'note')); return; }
    // The run on screen when it has the attribution (heads switched off, an edit), else the typed text's.
    const shown = app.result?.attribution ? app.result : app.original;
    const a = shown?.attribution;
    main.dataset.run = shown === app.original ? 'typed' : 'edited';   // which run is drawn (tests read it)
    if (!a) { main.append(para(t('contribNeedsRun'), 'note')); return; }
    explain.append(para(t('contribIntro', { token: a.text ?? a.token, logit: fmt(a.logit), sum: fmt(a.sum) })));

    const ranked = a.parts.filter((p) => p.kind === 'head' || p.kind === 'mlp')
      .sort((x, y) => Math.abs(y.value) - Math.abs(x.value));
    const top = ranked.slice(0, SHOWN);
    const vmax = Math.max(1e-9, ...top.map((p) => Math.abs(p.value)));
    const texts = shown.tokenTexts ?? shown.tokens;
    const target = document.createElement('h4');
    target.className = 'contrib-target';
    target.textContent = t('contribTarget', { position: a.position, at: texts[a.position], token: a.text ?? a.token, logit: fmt(a.logit) });
    main.append(target, para(t('contribTop', { n: top.length, total: ranked.length }), 'contrib-lead'));
    const list = document.createElement('ol');
    list.className = 'contrib-list';
    list.setAttribute('aria-label', t('contribAria'));
    for (const p of top) {
      const li = document.createElement('li');
      li.dataset.kind = p.kind;
      li.dataset.layer = String(p.layer);
      if (p.kind === 'head') li.dataset.head = String(p.head);
      li.dataset.value = String(p.value);
      const name = p.kind === 'head' ? t('contribHead', { layer: p.layer, head: p.head }) : t('contribMlp', { layer: p.layer });
      const label = document.createElement(p.kind === 'head' ? 'button' : 'span');
      label.className = 'contrib-name';
      label.textContent = name;
      if (p.kind === 'head') {
        label.type = 'button';
        label.addEventListener('click', () => app.set({ view: VIEW.head, layer: p.layer, head: p.head }));
      }
      const track = document.createElement('span');
      track.className = 'contrib-track';
      const bar = document.createElement('span');
      bar.className = 'contrib-bar ' + (p.value >= 0 ? 'is-up' : 'is-down');
      const w = (Math.abs(p.value) / vmax) * 50;
      bar.style.width = w.toFixed(2) + '%';
      bar.style.left = (p.value >= 0 ? 50 : 50 - w).toFixed(2) + '%';
      track.append(bar);
      const value = document.createElement('span');
      value.className = 'contrib-value';
      value.textContent = (p.value >= 0 ? '+' : '') + fmt(p.value);
      li.append(label, track, value);
      list.append(li);
    }
    main.append(list);
    const sumOf = (kind) => a.parts.filter((p) => p.kind === kind).reduce((s, p) => s + p.value, 0);
    // Only the parts the model has: RMSNorm has no β, and Llama's o_proj has a bias only with attention_bias.
    const has = (kind) => a.parts.some((p) => p.kind === kind);
    const rest = has('final_norm_bias') ? 'contribRest' : has('attention_bias') ? 'contribRestRmsBias' : 'contribRestRms';
    main.append(para(t(rest, { emb: fmt(sumOf('embeddings')), bias: fmt(sumOf('attention_bias')), norm: fmt(sumOf('final_norm_bias')) }), 'contrib-rest'));
  }

  return { render };
}

export default createContributions;
