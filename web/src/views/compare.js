// Encoder vs decoder: the typed sentence through the bundled BERT (bidirectional: every token sees
// every token) and the bundled GPT-2-style decoder (causal: a token sees only itself and what came
// before), side by side at the same layer and head, each heatmap with its mask, and a short
// explanation of the difference. The two runs come from app.jobs.compare(text) (the bundled
// models, opened for this view, see run-controller.js), not from the model picked for the other
// views.
import { Heatmap } from '../draw/heatmap.js';
import { renderLegend } from '../draw/legend.js';
import { sequential } from '../draw/colormap.js';
import { maxOf } from '../math/attention-math.js';
import { layerHeadPickers, tokenName } from '../draw/pickers.js';

const SIDES = [
  { side: 'encoder', titleKey: 'compareEncoder', explainKey: 'compareBidirectional' },
  { side: 'decoder', titleKey: 'compareDecoder', explainKey: 'compareUnidirectional' },
];

export function createCompare(host, app) {
  const bar = document.createElement('div');
  bar.className = 'view-bar';
  const intro = document.createElement('p');
  intro.className = 'hint';
  const status = document.createElement('p');
  status.className = 'muted compare-status';
  const grid = document.createElement('div');
  grid.className = 'agg-grid compare-grid';
  host.append(bar, intro, status, grid);
  const exposed = {};
  const panels = {};
  for (const s of SIDES) {
    const panel = document.createElement('section');
    panel.className = 'agg-panel compare-panel';
    panel.dataset.side = s.side;
    const h = document.createElement('h3');
    const meta = document.createElement('p');
    meta.className = 'hint';
    const mapHost = document.createElement('div');
    mapHost.className = 'map-host';
    const legend = document.createElement('div');
    const explain = document.createElement('p');
    explain.className = 'compare-explain';
    panel.append(h, meta, mapHost, legend, explain);
    grid.append(panel);
    const p = { ...s, panel, h, meta, legend, explain, labels: [] };
    p.heatmap = new Heatmap(mapHost, { labels: true, maxSize: 380,
      tooltip: (i, j, v) => `${tokenName(i, p.labels[i])} → ${tokenName(j, p.labels[j])}: ${v.toFixed(4)}` });
    panels[s.side] = p;
  }
  let requested = null;   // the text whose runs were asked for last

  function render() {
    const { t, state } = app;
    bar.replaceChildren(layerHeadPickers(app));
    intro.textContent = t('compareIntro');
    for (const p of Object.values(panels)) {
      p.h.textContent = t(p.titleKey);
      p.explain.textContent = t(p.explainKey);
    }
    const text = state.text;
    requested = text;
    status.textContent = t('compareLoading');
    status.hidden = false;
    app.jobs.compare(text).then((runs) => {
      if (requested === text) draw(runs);
    });
  }

  function draw(runs) {
    const { t, state } = app;
    // One layer and head for both (the bundled decoder is deeper than the bundled BERT): the
    // pickers offer the layers and heads both models have, and the state follows, so the URL
    // says what is shown.
    const shapes = Object.values(runs).filter((run) => run.result).map((run) => run.result.shape);
    if (shapes.length) {
      const layers = Math.min(...shapes.map((s) => s[0])), heads = Math.min(...shapes.map((s) => s[1]));
      if (state.layer >= layers || state.head >= heads) {
        app.set({ layer: Math.min(state.layer, layers - 1), head: Math.min(state.head, heads - 1) });
        return;   // the host redraws
      }
      bar.replaceChildren(layerHeadPickers(app, { layers, heads }));
    }
    const failures = [];
    for (const p of Object.values(panels)) {
      const run = runs[p.side];
      if (run?.error?.code === 'E_ABORTED') continue;   // the view or the model changed: asked again
      if (!run || run.error) {
        p.panel.dataset.ready = '';
        failures.push(t('compareFailed', { name: run?.model ?? p.side, message: run?.error?.message ?? '?', code: run?.error?.code ?? 'E_INTERNAL' }));
        continue;
      }
      const r = run.result;
      const [L, H, T] = r.shape;
      const { layer, head } = state;
      const matrix = r.attention(layer, head);
      const causal = run.info.kind === 'decoder';
      p.labels = r.tokenTexts ?? r.tokens;
      p.meta.textContent = `${t(causal ? 'kindDecoder' : 'kindEncoder')} · ${t('compareHeads', { layers: L, heads: H })} · ${t('layerHead', { layer, head })}`;
      const vmax = maxOf(matrix);
      p.heatmap.setData({ matrix, n: T, rowLabels: p.labels, colLabels: p.labels, scale: sequential, vmax, threshold: 0, causal });
      renderLegend(p.legend, { scale: sequential, vmax, caption: causal ? `${t('legendAttention')} · ${t('legendMasked')}` : t('legendAttention') });
      exposed[p.side] = { layer, head, n: T, causal, tokens: [...p.labels], matrix };
      p.panel.dataset.ready = '1';
    }
    status.textContent = failures.join(' ');
    status.hidden = !failures.length;
  }

  return { render, exposed };
}

export default createCompare;
