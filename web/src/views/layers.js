// The Layers view: the logit lens. Rows are the residual stream after the embeddings and
// after each layer, columns the positions; each cell shows the top token the model's own output head
// reads there, shaded by its probability. Clicking a cell opens its top-k with the rank of the last
// layer's choice (and, for decoders, of the token that actually follows). Reads result.logitLens
// (run-controller.js asks for it while this view is shown).
import { visiblePositions } from '../math/attention-math.js';
import { hasHead, isCausal } from '../model/causal-mask.js';
import { cssColour, sequential } from '../draw/colormap.js';
import { LENS_TOP_K } from '../../../js/formats/figure-views.js';
import { lensMaxTokens } from '../model/model-family.js';
import { tokenName } from '../draw/pickers.js';
import { candidateItem, explainedLayout, heading, para } from './text-nodes.js';

const fmtProb = (p) => (p >= 0.001 ? p.toFixed(3) : p.toExponential(1));

export function createLayers(host, app) {
  // A table wider than its box starts scrolled to its end, the prediction after the reader's text
  // (at 1,280 px the last column was hidden); a redraw of the same run keeps the place.
  let scrolled = { result: null, left: 0 };

  const { main, explain } = explainedLayout(host, 'lens-main');

  function render() {
    const { t, state } = app;
    // The run on screen when it has the lens (heads switched off, an edit), else the typed text's.
    const r = app.result?.logitLens ? app.result : app.original;
    const decoder = isCausal(app);
    main.replaceChildren();
    explain.replaceChildren(heading(t('lensName')), para(decoder ? t('lensFormulaDecoder') : t('lensFormulaEncoder'), 'formula-text'),
      para(`${t('lensIntro', { k: LENS_TOP_K })} ${decoder ? t('lensIntroDecoder') : t('lensIntroEncoder')}`));
    if (!hasHead(app)) { main.append(para(t('lensNoHead'), 'note')); return; }
    const lens = r?.logitLens;
    if (!lens) {
      const max = lensMaxTokens(app.info);
      main.append(para(r && r.shape[2] > max ? t('lensTooLong', { tokens: r.shape[2], max }) : t('lensNeedsRun'), 'note'));
      return;
    }
    const texts = r.tokenTexts ?? r.tokens;
    const positions = visiblePositions(r, state.hideSpecial);
    const rows = lens.length;
    // Row l is the stream after layer l − 1: layers are named from 0 here as in every view (L0 = the first).
    const rowName = (l) => (l === 0 ? t('lensEmbeddings') : t('lensLayer', { layer: l - 1 }));

    const scroller = document.createElement('div');
    scroller.className = 'lens-scroll';
    const table = document.createElement('table');
    table.className = 'lens-grid';
    table.setAttribute('aria-label', t('lensAria'));
    const head = table.createTHead().insertRow();
    head.append(document.createElement('th'));
    for (const p of positions) {
      const th = document.createElement('th');
      th.scope = 'col';
      th.textContent = texts[p];
      th.title = tokenName(p, texts[p]);
      head.append(th);
    }
    const body = table.createTBody();
    const open = state.lensRow >= 0 && state.lensRow < rows ? state.lensRow : -1;
    for (let l = 0; l < rows; l++) {
      const tr = body.insertRow();
      const th = document.createElement('th');
      th.scope = 'row';
      th.textContent = rowName(l);
      if (l > 0) th.title = t('lensLayerTitle', { layer: l - 1 });
      tr.append(th);
      for (const p of positions) {
        const e = lens[l][p];
        const top = e.top[0];
        const td = tr.insertCell();
        const b = document.createElement('button');
        b.type = 'button';
        b.className = 'lens-cell';
        b.dataset.row = String(l);
        b.dataset.position = String(p);
        b.dataset.prob = String(top.prob);
        b.textContent = top.text ?? top.token;
        b.style.background = cssColour(sequential, top.prob);
        if (top.prob > 0.55) b.classList.add('is-dark');
        if (e.finalRank === 1) b.classList.add('is-final');
        if (l === open && p === state.query) b.classList.add('is-open');
        b.title = `${rowName(l)}, ${tokenName(p, texts[p])}: ${top.text ?? top.token} ${fmtProb(top.prob)}`;
        b.addEventListener('click', () => app.set({ lensRow: l, query: p }));
        td.append(b);
      }
    }
    scroller.append(table);
    const wide = para('', 'scroll-hint');
    wide.hidden = true;
    main.append(wide, scroller, para(t('lensLegend'), 'lens-legend'));
    scroller.addEventListener('scroll', () => { scrolled.left = scroller.scrollLeft; }, { passive: true });
    requestAnimationFrame(() => {
      const more = scroller.scrollWidth - scroller.clientWidth;
      wide.hidden = more <= 1;
      if (more <= 1) return;
      wide.textContent = t('lensScrolled');
      const left = scrolled.result === r ? scrolled.left : more;
      scroller.scrollLeft = left;
      scrolled = { result: r, left };
    });

    const detail = document.createElement('div');
    detail.className = 'lens-detail';
    main.append(detail);
    if (open < 0 || !lens[open][state.query]) { detail.append(para(t('lensPickCell'), 'note')); return; }
    const p = state.query, e = lens[open][p];
    detail.dataset.row = String(open);
    detail.dataset.position = String(p);
    detail.append(heading(t('lensCellTitle', { row: rowName(open), token: tokenName(p, texts[p]), k: e.top.length }), 'h4'));
    const list = document.createElement('ol');
    list.className = 'next-list lens-top';
    const finalTop = lens[rows - 1][p].top[0];
    for (const c of e.top) {
      const li = candidateItem(c);
      li.dataset.id = String(c.id);
      if (c.id === finalTop.id) li.className = 'is-actual';
      list.append(li);
    }
    detail.append(list, para(t('lensFinal', { token: finalTop.text ?? finalTop.token, rank: e.finalRank, prob: fmtProb(e.finalProb) }), 'lens-final'));
    if (decoder && e.nextRank) {
      const next = texts[p + 1];
      detail.append(para(t('lensNext', { token: next, rank: e.nextRank, prob: fmtProb(e.nextProb) }), 'lens-next'));
    }
  }

  return { render };
}

export default createLayers;
