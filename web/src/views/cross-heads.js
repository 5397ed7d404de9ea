// The head table of an encoder–decoder: each cross-attention head's alignment accuracy on the run
// on screen when it is a pair of the model folder's heldout.jsonl (js/analysis/alignment-accuracy.js: the
// share of aligned target tokens whose strongest source token is the one they come from), beside
// the diagonal baseline (target token i ↔ source token i) and the heads averaged per layer and
// overall. Without a known pair it says how to get one. A row opens its head in the cross view.
import { knownAlignment } from '../model/heldout.js';
import { VIEW } from './registry.js';

const pct = (x) => (Number.isFinite(x) ? `${(100 * x).toFixed(1)}%` : '–');

export function createCrossHeads(host, app) {
  const intro = document.createElement('p');
  intro.className = 'hint';
  const status = document.createElement('p');
  status.className = 'cross-heads-status';
  const pairBtn = document.createElement('button');
  pairBtn.type = 'button';
  pairBtn.className = 'use-heldout';
  const table = document.createElement('table');
  table.className = 'cross-heads';
  host.append(intro, status, pairBtn, table);
  pairBtn.addEventListener('click', () => {
    const pair = app.heldout?.[0];
    if (pair) app.openPair?.(pair);
  });

  function render() {
    const { t } = app;
    intro.textContent = t('alignIntro');
    const known = knownAlignment(app);
    const pairs = app.heldout?.length ?? 0;
    pairBtn.hidden = Boolean(known) || !pairs || !app.openPair;
    pairBtn.textContent = t('alignUsePair');
    table.hidden = !known;
    if (!known) {
      status.textContent = pairs ? t('alignNoMatch', { n: pairs }) : t('alignNoFile');
      host.dataset.ready = '1';
      return;
    }
    const { score } = known;
    const [L, H] = app.original.seq2seq.crossShape;
    status.textContent = t('alignScored', { n: score.aligned, diag: pct(score.diagonal), all: pct(score.allMean) });
    const head = document.createElement('tr');
    for (const k of ['alignColHead', 'alignColAccuracy', 'alignColVsDiagonal']) {
      const th = document.createElement('th');
      th.scope = 'col';
      th.textContent = t(k);
      head.append(th);
    }
    const row = (name, x, { open, kind } = {}) => {
      const tr = document.createElement('tr');
      tr.dataset.kind = kind ?? 'head';
      const delta = 100 * (x - score.diagonal);
      for (const s of [name, pct(x), Number.isFinite(delta) ? `${delta >= 0 ? '+' : '−'}${Math.abs(delta).toFixed(1)}` : '–']) {
        const td = document.createElement('td');
        td.textContent = s;
        tr.append(td);
      }
      if (open) {
        tr.tabIndex = 0;
        tr.className = 'clickable';
        tr.addEventListener('click', open);
        tr.addEventListener('keydown', (e) => { if (e.key === 'Enter') open(); });
      }
      return tr;
    };
    // Heads, best first; then the baselines.
    const heads = [];
    for (let l = 0; l < L; l++) for (let h = 0; h < H; h++) heads.push({ l, h, x: score.heads[l * H + h] });
    heads.sort((a, b) => b.x - a.x);
    const body = heads.map(({ l, h, x }) => row(t('layerHead', { layer: l, head: h }), x,
      { open: () => app.set({ layer: l, head: h, view: VIEW.cross, kind: 'cross' }) }));
    for (let l = 0; l < L; l++) body.push(row(t('alignLayerMean', { layer: l }), score.layerMean[l], { kind: 'layer-mean' }));
    body.push(row(t('alignAllMean'), score.allMean, { kind: 'all-mean' }), row(t('alignDiagonal'), score.diagonal, { kind: 'diagonal' }));
    table.replaceChildren(head, ...body);
    host.dataset.ready = '1';
  }

  return { render };
}
