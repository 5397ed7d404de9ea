// The element's "aggregates" view: mean over the layer's heads and attention rollout up to the
// layer, side by side. The page's aggregates view computes rollout in its own worker file
// (found next to the page bundle), which a single-file embed cannot have; rollout here runs
// in-thread, so it is limited to inputs short enough to multiply quickly.
import { Heatmap } from '../src/heatmap.js';
import { renderLegend } from '../src/legend.js';
import { sequential } from '../src/colormap.js';
import { headMeanMax, maxOf, restrict, rollout } from '../src/attention-math.js';
import { layerHeadPickers, tokenName } from '../src/pickers.js';

const ROLLOUT_MAX_TOKENS = 160;   // L·T³ multiply-adds on the main thread: ~50 ms at 160 × 12 layers

export function createAggregateView(host, app) {
  const bar = document.createElement('div');
  bar.className = 'view-bar';
  const grid = document.createElement('div');
  grid.className = 'agg-grid';
  host.append(bar, grid);
  const panels = {};
  let labels = [], positions = [];
  for (const key of ['mean', 'rollout']) {
    const panel = document.createElement('section');
    panel.className = 'agg-panel';
    panel.dataset.kind = key;
    const h = document.createElement('h3');
    const note = document.createElement('p');
    note.className = 'hint';
    const mapHost = document.createElement('div');
    mapHost.className = 'map-host';
    const legend = document.createElement('div');
    panel.append(h, note, mapHost, legend);
    grid.append(panel);
    const heatmap = new Heatmap(mapHost, {
      labels: true,
      maxSize: 380,
      tooltip: (i, j, v) => `${tokenName(positions[i], labels[i])} → ${tokenName(positions[j], labels[j])}: ${v.toFixed(4)}`,
    });
    panels[key] = { panel, h, note, heatmap, legend };
  }

  function show(key, matrix) {
    const p = panels[key];
    const m = restrict(matrix, app.result.shape[2], positions, true);
    const vmax = maxOf(m);
    p.heatmap.setData({ matrix: m, n: positions.length, rowLabels: labels, colLabels: labels, scale: sequential, vmax,
      threshold: app.state.threshold });
    renderLegend(p.legend, { scale: sequential, vmax, caption: app.t('legendAttention') });
  }

  function render() {
    const { t, state, result } = app;
    bar.replaceChildren(layerHeadPickers(app, { head: false }));
    ({ positions, labels } = app.display());
    for (const [key, p] of Object.entries(panels)) {
      p.h.textContent = t('agg_' + key, { layer: state.layer });
      p.note.textContent = t('aggNote_' + key);
    }
    show('mean', headMeanMax(result, state.layer).mean);
    const tooLong = result.shape[2] > ROLLOUT_MAX_TOKENS;
    panels.rollout.panel.hidden = tooLong;
    if (!tooLong) show('rollout', rollout(result, state.layer));
  }

  return { render };
}
