// The element's "aggregates" view: mean over the layer's heads and attention rollout up to the
// layer, side by side. The page's aggregates view computes rollout in its own worker file
// (found next to the page bundle), which a single-file embed cannot have; rollout here runs
// in-thread, so it is limited to inputs short enough to multiply quickly.
import { createAggregatePanels } from '../src/views/aggregate-panels.js';
import { renderLegend } from '../src/legend.js';
import { sequential } from '../src/colormap.js';
import { headMeanMax, maxOf, restrict, rollout } from '../src/attention-math.js';
import { layerHeadPickers } from '../src/pickers.js';

const ROLLOUT_MAX_TOKENS = 160;   // L·T³ multiply-adds on the main thread: ~50 ms at 160 × 12 layers

export function createAggregateView(host, app) {
  const bar = document.createElement('div');
  bar.className = 'view-bar';
  const grid = document.createElement('div');
  grid.className = 'agg-grid';
  host.append(bar, grid);
  let labels = [], positions = [];
  const panels = createAggregatePanels(grid, ['mean', 'rollout'], () => ({ positions, labels }));

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
