// Diff view: after masking or dropping tokens, the chosen head's attention in the original run,
// in the edited run, and edited − original on the original's positions (a dropped token's row and
// column have nothing to compare and show grey).
import { Heatmap } from '../draw/heatmap.js';
import { renderLegend } from '../draw/legend.js';
import { sequential, diverging } from '../draw/colormap.js';
import { alignPositions, diffMatrix, maxOf, maxAbsOf, restrict, visiblePositions } from '../math/attention-math.js';
import { layerHeadPickers, tokenName } from '../draw/pickers.js';
import { isCausal } from '../model/causal-mask.js';
import { predictionDiff } from '../panels/ablation.js';

export function createDiff(host, app) {
  const bar = document.createElement('div');
  bar.className = 'view-bar';
  const empty = document.createElement('p');
  empty.className = 'hint';
  const grid = document.createElement('div');
  grid.className = 'agg-grid';
  const predictions = document.createElement('div');   // heads switched off: the guesses, intact vs ablated
  host.append(bar, empty, predictions, grid);
  const panels = {};
  const exposed = {};
  for (const key of ['original', 'edited', 'delta']) {
    const panel = document.createElement('section');
    panel.className = 'agg-panel';
    panel.dataset.kind = key;
    const h = document.createElement('h3');
    const mapHost = document.createElement('div');
    mapHost.className = 'map-host';
    const legend = document.createElement('div');
    panel.append(h, mapHost, legend);
    grid.append(panel);
    panels[key] = { panel, h, legend, labels: [], heatmap: null, mapHost };
    panels[key].heatmap = new Heatmap(mapHost, {
      labels: true,
      maxSize: 380,
      tooltip: (i, j, v) => `${tokenName(i, panels[key].labels[i])} → ${tokenName(j, panels[key].labels[j])}: ${Number.isNaN(v) ? '–' : (key === 'delta' && v > 0 ? '+' : '') + v.toFixed(4)}`,
    });
  }

  function render() {
    const { t, state, original, edited, edit } = app;
    bar.replaceChildren(layerHeadPickers(app));
    grid.hidden = !edited;
    predictions.replaceChildren(...(edit?.kind === 'heads' ? [predictionDiff(app)] : []));
    if (!edited) { empty.textContent = t('diffEmpty'); return; }
    const kind = edit.kind === 'mask' ? t('masked') : t('dropped');
    if (edit.kind === 'heads') empty.textContent = t('diffHeads', { heads: edit.heads.join(', ') });
    else empty.textContent = t('diffWhat', { kind, tokens: edit.positions.map((p) => tokenName(p, (original.tokenTexts ?? original.tokens)[p])).join(', ') });
    const T = original.shape[2], Te = edited.shape[2];
    const fullMap = alignPositions(T, edit);
    // With [CLS]/[SEP] hidden, both runs are restricted to the original's visible tokens (rows
    // renormalised, as in the other views) and compared position by position on those.
    const keep = visiblePositions(original, state.hideSpecial);
    const keepEdited = keep.map((p) => fullMap[p]).filter((q) => q >= 0);
    const a = restrict(original.attention(state.layer, state.head), T, keep, true);
    const b = restrict(edited.attention(state.layer, state.head), Te, keepEdited, true);
    const map = Int32Array.from(keep, (p) => (fullMap[p] < 0 ? -1 : keepEdited.indexOf(fullMap[p])));
    const n = keep.length, ne = keepEdited.length;
    const d = diffMatrix(a, b, n, map, ne);
    const labels = keep.map((p) => (original.tokenTexts ?? original.tokens)[p]);
    const set = (key, matrix, n, labels, scale, vmax, caption) => {
      const p = panels[key];
      p.labels = labels;
      p.h.textContent = t('diff_' + key);
      exposed[key] = matrix;
      p.heatmap.setData({ matrix, n, rowLabels: labels, colLabels: labels, scale, vmax, threshold: 0, causal: isCausal(app) });
      renderLegend(p.legend, { scale, vmax, caption });
    };
    const editedLabels = labels.filter((_, i) => map[i] >= 0);
    set('original', a, n, labels, sequential, maxOf(a), t('legendAttention'));
    set('edited', b, ne, editedLabels, sequential, maxOf(b), t('legendAttention'));
    set('delta', d, n, labels, diverging, Math.max(maxAbsOf(d.filter((v) => !Number.isNaN(v))), 1e-6), t('legendDelta'));
  }

  return { render, exposed };
}

export default createDiff;
