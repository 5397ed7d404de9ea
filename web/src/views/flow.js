// The Flow view: the routes by which the tokens reached one position's prediction (Ferrando &
// Voita 2024, the LLM Transparency Tool's graph). Tokens along the bottom, layers upwards: a dot is
// a position's residual stream after the embeddings, after a layer's attention or after its
// feed-forward; a square is the feed-forward itself. Only the edges whose share is at least τ and
// that lead up to the prediction are drawn (js/analysis/flow-graph.js), their width the share. Pointing at
// an edge gives its share and its heads'; a click on a dot reads that stream with the logit lens.
// Reads result.flow and result.logitLens (run-controller.js asks for both while this view is shown).
import { flowGraph } from '../../../js/analysis/flow-graph.js';
import { addStrings } from '../i18n/i18n.js';
import { FLOW_STRINGS } from '../i18n/i18n-flow.js';
import { tokenRoute } from '../math/flow-route.js';
import { tokenName } from '../draw/pickers.js';
import { candidateItem, explainedLayout, heading, para } from './text-nodes.js';

addStrings(FLOW_STRINGS);

const SVG = 'http://www.w3.org/2000/svg';
const COL = 58, ROW = 22, LEFT = 74, TOP = 14, BOTTOM = 34;   // px: the layout of the graph
const TAU_MIN = 0.005, TAU_MAX = 0.3, TAU_STEP = 0.005;
const fmt = (x) => x.toFixed(3);
const short = (text) => (text.length > 7 ? text.slice(0, 6) + '…' : text);

export function createFlow(host, app) {
  const { main, explain } = explainedLayout(host, 'flow-main');

  // The slider is built once: a redraw while it is dragged must not replace it.
  const controls = document.createElement('label');
  controls.className = 'flow-tau';
  const tauText = document.createElement('span');
  const slider = document.createElement('input');
  slider.type = 'range';
  slider.min = String(TAU_MIN);
  slider.max = String(TAU_MAX);
  slider.step = String(TAU_STEP);
  slider.addEventListener('input', () => app.set({ flowTau: Number(slider.value) }));
  controls.append(tauText, slider);
  const summary = para('', 'flow-summary');
  const route = para('', 'flow-route');
  // The rows' names stay in view while a wide graph scrolls sideways under the phone's width.
  const frame = document.createElement('div');
  frame.className = 'flow-frame';
  const scroller = document.createElement('div');
  scroller.className = 'flow-scroll';
  const edgeDetail = para('', 'flow-edge-detail');
  edgeDetail.setAttribute('aria-live', 'polite');
  const lensDetail = document.createElement('div');
  lensDetail.className = 'flow-lens';
  main.append(controls, summary, route, frame, edgeDetail, lensDetail);

  let picked = null;   // the node clicked: {level, kind, layer, position}
  let drawnAtEnd = null;   // the last position, when the graph drawn last was the prediction there
  let scrolled = { result: null, left: 0 };

  function render() {
    const { t, state } = app;
    explain.replaceChildren(heading(t('flowName')), para(t('flowFormula'), 'formula-text'), para(t('flowShareMeans')),
      para(t('flowIntro')), para(t('flowLegend'), 'flow-legend'));
    tauText.textContent = t('flowTau', { tau: fmt(state.flowTau) });
    slider.value = String(state.flowTau);
    slider.setAttribute('aria-label', t('flowTauAria'));
    // The run on screen when it has the flow (heads switched off), else the typed text's.
    const r = app.result?.flow ? app.result : app.original;
    const shown = Boolean(r?.flow);
    for (const el of [summary, route, frame, edgeDetail, lensDetail]) el.hidden = !shown;
    if (!shown) {
      summary.hidden = false;
      summary.textContent = t('flowNeedsRun');
      return;
    }
    const texts = r.tokenTexts ?? r.tokens;
    // At the last position, the view stays at the end as the text grows: the prediction after it.
    const last = r.flow.queries - 1;
    const following = drawnAtEnd !== null && state.query === drawnAtEnd && last > drawnAtEnd;
    const position = following ? last : Math.min(state.query, last);
    drawnAtEnd = position === last ? last : null;
    if (following) queueMicrotask(() => app.set({ query: last }));   // the link says so too
    const graph = flowGraph(r.flow, { position, tau: state.flowTau });
    const at = tokenName(position, texts[position]);
    summary.textContent = t('flowSummary', { token: at, edges: graph.edges.length, tau: fmt(graph.tau) });
    const best = tokenRoute(graph);
    route.textContent = best ? routeText(best, texts) : t('flowRouteNone', { tau: fmt(graph.tau) });
    if (picked && !graph.nodes.some((n) => samePlace(picked, n))) picked = null;   // a dot no longer drawn
    drawGraph(r, graph, best, texts);
    edgeDetail.textContent = t('flowEdgeHint');
    showLens(r, texts);
  }

  function routeText(best, texts) {
    const { t } = app;
    const steps = best.edges.filter((e) => e.kind === 'token' && e.key !== e.query).map((e) =>
      t('flowRouteStep', { from: tokenName(e.key, texts[e.key]), to: tokenName(e.query, texts[e.query]), layer: e.layer, share: fmt(e.share) }));
    return t('flowRoute', { steps: steps.join(t('flowRouteThen')), strength: fmt(best.strength) });
  }

  function drawGraph(r, graph, best, texts) {
    const { t } = app;
    const T = r.flow.queries, levels = graph.levels;
    const width = T * COL, height = TOP + (levels - 1) * ROW + BOTTOM;
    const x = (p) => p * COL + COL / 2;
    const y = (level) => TOP + (levels - 1 - level) * ROW;
    // The feed-forward's square sits beside its column, between the two streams it joins.
    const where = (n) => (n.kind === 'ffn' ? [x(n.position) + COL * 0.3, y(n.level) - ROW / 2] : [x(n.position), y(n.level)]);
    const byId = new Map(graph.nodes.map((n) => [n.id, n]));
    const svg = el('svg', { class: 'flow-graph', width, height, viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': t('flowAria') });
    svg.dataset.edges = String(graph.edges.length);
    svg.dataset.position = String(graph.position);
    svg.dataset.tau = String(graph.tau);

    // Row labels: the embeddings, then each layer's attention and feed-forward.
    const labels = el('svg', { class: 'flow-rows', width: LEFT, height, 'aria-hidden': 'true' });
    for (let level = 0; level < levels; level++) {
      const layer = Math.ceil(level / 2) - 1;
      const label = level === 0 ? t('flowRowEmbeddings') : t(level % 2 ? 'flowRowAttention' : 'flowRowFfn', { layer });
      const text = el('text', { x: LEFT - 6, y: y(level) + 4, class: 'flow-row' + (level % 2 ? '' : ' is-layer') });
      text.textContent = label;
      labels.append(text);
      for (let p = 0; p < T; p++) svg.append(el('circle', { cx: x(p), cy: y(level), r: 1.6, class: 'flow-dot' }));
    }
    // Tokens along the bottom; a click follows that position's prediction instead.
    for (let p = 0; p < T; p++) {
      const text = el('text', { x: x(p), y: y(0) + 24, class: 'flow-token' + (p === graph.position ? ' is-query' : ''), tabindex: 0, role: 'button' });
      text.textContent = short(texts[p]);
      text.dataset.position = String(p);
      const name = el('title');
      name.textContent = t('flowFollow', { token: tokenName(p, texts[p]) });
      text.append(name);
      const follow = () => app.set({ query: p });
      text.addEventListener('click', follow);
      text.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); follow(); } });
      svg.append(text);
    }

    const onRoute = new Set(best?.edges ?? []);
    const edges = [...graph.edges].sort((a, b) => onRoute.has(a) - onRoute.has(b));   // the named route on top
    for (const e of edges) {
      const [x1, y1] = where(byId.get(e.from)), [x2, y2] = where(byId.get(e.to));
      const line = el('line', { x1, y1, x2, y2, class: `flow-edge is-${e.kind}` + (onRoute.has(e) ? ' is-route' : ''),
        'stroke-width': (0.8 + 7 * e.share).toFixed(2) });
      line.dataset.share = String(e.share);
      const tip = edgeText(e, texts);
      const title = el('title');
      title.textContent = tip;
      line.append(title);
      line.addEventListener('pointerenter', () => { edgeDetail.textContent = tip; });
      svg.append(line);
    }
    for (const n of graph.nodes) {
      const [cx, cy] = where(n);
      const shape = n.kind === 'ffn' ? el('rect', { x: cx - 4, y: cy - 4, width: 8, height: 8 }) : el('circle', { cx, cy, r: 4.5 });
      shape.setAttribute('class', `flow-node is-${n.kind}` + (picked && samePlace(picked, n) ? ' is-picked' : ''));
      shape.setAttribute('tabindex', '0');
      shape.setAttribute('role', 'button');
      shape.dataset.level = String(n.level);
      shape.dataset.position = String(n.position);
      const title = el('title');
      title.textContent = `${nodeName(n)}, ${tokenName(n.position, texts[n.position])}`;
      shape.append(title);
      const pick = () => { picked = { level: n.level, kind: n.kind, layer: n.layer, position: n.position }; render(); };
      shape.addEventListener('click', pick);
      shape.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); pick(); } });
      svg.append(shape);
    }
    scroller.replaceChildren(svg);
    frame.replaceChildren(labels, scroller);
    // Wider than its box: open on the prediction's column; a redraw of the same run keeps the place.
    requestAnimationFrame(() => {
      const more = scroller.scrollWidth - scroller.clientWidth;
      if (more <= 1) return;
      const left = scrolled.result === r ? scrolled.left : Math.min(more, Math.max(0, x(graph.position) - scroller.clientWidth / 2));
      scroller.scrollLeft = left;
      scrolled = { result: r, left };
    });
    scroller.onscroll = () => { scrolled.left = scroller.scrollLeft; };
  }

  function edgeText(e, texts) {
    const { t } = app;
    const token = (p) => tokenName(p, texts[p]);
    if (e.kind === 'residual') return t('flowEdgeResidual', { layer: e.layer, token: token(e.query), share: fmt(e.share),
      part: t(Number(e.from.split(':')[1]) % 2 ? 'flowPartFfn' : 'flowPartAttention') });
    if (e.kind === 'ffn') return t('flowEdgeFfn', { layer: e.layer, token: token(e.query), share: fmt(e.share) });
    const heads = [...e.heads].map((s, h) => t('flowHead', { head: h, share: fmt(s) })).join(', ');
    return `${t('flowEdgeToken', { layer: e.layer, from: token(e.key), to: token(e.query), share: fmt(e.share) })} ${t('flowEdgeHeads', { heads })}`;
  }

  function nodeName(n) {
    const { t } = app;
    if (n.kind === 'ffn') return t('flowNodeFfn', { layer: n.layer });
    if (n.level === 0) return t('flowRowEmbeddings');
    return t(n.level % 2 ? 'flowNodeAttention' : 'flowNodeLayer', { layer: n.layer });
  }

  // The lens reads the stream between layers (row 0 the embeddings, row l + 1 after layer l):
  // a node inside layer l (after its attention, or its feed-forward) is read after the layer.
  function showLens(r, texts) {
    const { t } = app;
    lensDetail.replaceChildren();
    if (!picked) return;   // the hint above the graph says a click opens it
    const row = picked.level === 0 ? 0 : picked.layer + 1;
    const e = r.logitLens?.[row]?.[picked.position];
    lensDetail.dataset.row = String(row);
    lensDetail.dataset.position = String(picked.position);
    lensDetail.append(heading(t('flowLensTitle', { node: nodeName(picked), token: tokenName(picked.position, texts[picked.position]) }), 'h4'));
    if (!e) { lensDetail.append(para(t('flowLensNone'), 'note')); return; }
    if (picked.kind === 'ffn' || picked.level % 2) lensDetail.append(para(t('flowLensAfter', { layer: picked.layer }), 'note'));
    const list = document.createElement('ol');
    list.className = 'next-list lens-top';
    list.append(...e.top.map((c) => candidateItem(c)));
    lensDetail.append(list);
  }

  return { render };
}

const samePlace = (a, b) => a.level === b.level && a.kind === b.kind && a.position === b.position;

function el(name, attrs = {}) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

export default createFlow;
