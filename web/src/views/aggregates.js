// Aggregates for one layer: mean and max over heads, attention rollout from the embeddings up to
// this layer (Abnar & Zuidema 2020, computed in a worker), and for the chosen head its raw
// attention beside the value-norm-weighted α_ij·‖f(x_j)‖ (Kobayashi et al. 2020). The page and
// <attn-scope> both show this view.
import { createAggregatePanels } from './aggregate-panels.js';
import { renderLegend } from '../draw/legend.js';
import { sequential } from '../draw/colormap.js';
import { headMean, headMeanMax, normWeighted, restrict, maxOf } from '../math/attention-math.js';
import { layerHeadPickers } from '../draw/pickers.js';
import { startRolloutWorker } from '../math/rollout-worker.js';
import { isCausal } from '../model/causal-mask.js';

export function createAggregates(host, app) {
  const bar = document.createElement('div');
  bar.className = 'view-bar';
  const grid = document.createElement('div');
  grid.className = 'agg-grid';
  host.append(bar, grid);
  let labels = [], positions = [], worker = null, pendingId = 0, layerMean = null;
  const exposed = {};

  const panels = createAggregatePanels(grid, ['mean', 'max', 'rollout', 'raw', 'normWeighted'], () => ({ positions, labels }));

  function show(key, full, T, renormalise, captionKey) {
    const p = panels[key];
    const m = restrict(full, T, positions, renormalise);
    const vmax = maxOf(m);
    exposed[key] = m;
    p.heatmap.setData({ matrix: m, n: positions.length, rowLabels: labels, colLabels: labels, scale: sequential, vmax, threshold: app.state.threshold, causal: isCausal(app) });
    renderLegend(p.legend, { scale: sequential, vmax, caption: app.t(captionKey) });
    p.panel.dataset.ready = '1';
  }

  function render() {
    const { t, state, result } = app;
    const T = result.shape[2];
    bar.replaceChildren(layerHeadPickers(app));
    ({ positions, labels } = app.display());
    for (const [key, p] of Object.entries(panels)) {
      p.h.textContent = t('agg_' + key, { layer: state.layer, head: state.head });
      p.note.textContent = t('aggNote_' + key);
      p.panel.dataset.ready = '';
    }
    panels.rollout.note.textContent = t('computing');
    const last = state.layer, head = state.head;
    let mean, max;
    // One step per task: five 512×512 heatmaps drawn at once would block the page.
    const id = ++pendingId;
    const steps = [
      () => { ({ mean, max } = headMeanMax(result, last)); layerMean = mean; },
      () => show('mean', mean, T, true, 'legendAttention'),
      () => show('max', max, T, false, 'legendAttention'),
      () => show('raw', result.attention(last, head), T, true, 'legendAttention'),
      () => {
        if (result.valueNorms) show('normWeighted', normWeighted(result, last, head), T, false, 'legendNorm');
        else panels.normWeighted.note.textContent = t('aggNoNorms');
      },
    ];
    const next = () => {
      if (id !== pendingId) return;
      if (!steps.length) { startRollout(); return; }
      steps.shift()();
      setTimeout(next, 0);
    };
    next();
  }

  // Rollout after the panels: it needs this layer's mean (above) and every earlier layer's.
  function startRollout() {
    const { t, state, result } = app;
    const T = result.shape[2], last = state.layer, id = pendingId;
    const mean = layerMean;
    // Head means of layers 0..layer, one layer per task, then the products in a worker.
    worker ??= startRolloutWorker();
    worker.onmessage = (e) => {
      if (e.data.id !== pendingId) return;
      panels.rollout.note.textContent = t('aggNote_rollout');
      // Rollout rows sum to 1 over all tokens; hiding specials renormalises like the others.
      show('rollout', e.data.rollout, T, true, 'legendAttention');
    };
    const means = [];
    const collect = (l) => {
      if (id !== pendingId) return;
      means.push(l === last && mean ? mean.slice() : headMean(result, l));
      if (l < last) setTimeout(() => collect(l + 1), 0);
      else worker.postMessage({ id, means, T }, means.map((m) => m.buffer));
    };
    collect(0);
  }

  return {
    render,
    exposed,
    destroy() { worker?.terminate(); worker = null; },
  };
}

export default createAggregates;
