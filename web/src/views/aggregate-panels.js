// Heatmap panels with a title, a note and a legend (one per aggregate: mean, max, rollout, ...;
// the formula view's scores and weights), each drawn by one Heatmap. `tokens()` returns the
// current { positions, labels } so tooltips name the tokens shown now, not the ones shown when
// the panel was built.
import { Heatmap } from '../draw/heatmap.js';
import { tokenName } from '../draw/pickers.js';

export function createAggregatePanels(grid, keys, tokens) {
  const panels = {};
  for (const key of keys) {
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
      tooltip: (i, j, v) => {
        const { positions, labels } = tokens();
        return `${tokenName(positions[i], labels[i])} → ${tokenName(positions[j], labels[j])}: ${Number.isNaN(v) ? '–' : v.toFixed(4)}`;
      },
    });
    panels[key] = { panel, h, note, heatmap, legend };
  }
  return panels;
}
