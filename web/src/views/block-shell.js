// The frame every Block walk-through shares (block-bert-gpt2.js, block-llama.js, block-seq2seq.js): a
// bar for the pickers above a column of titled steps, each step's colour strips of the engine's
// numbers, and the "Check" line under a step that js/block-steps.js recomputed in float64. The
// walks differ only in which steps they draw; this is where a step looks the same in all three.
import { layerHeadPickers, queryPicker } from '../pickers.js';
import { vectorStrip } from '../vector-strip.js';

/** Largest float64-recomputed difference a check shows as agreeing (the engine is float32). */
export const CHECK_BOUND = 1e-4;

export function note(text) {
  const p = document.createElement('p');
  p.className = 'step';
  p.textContent = text;
  return p;
}

/**
 * Builds the bar and the body in `host`. begin(trace) puts the layer and query pickers in the bar
 * and, when the run kept no trace, says so in the body and returns false. start(checks) begins a new drawing with the checks of
 * the token shown ({step, maxDiff}[]); section() appends a titled step, check() its Check line
 * when `step` was recomputed, strip() a vector's colour strip, layerNormStats() / rmsNormStats() a
 * norm step; shownChecks() the checks drawn.
 */
export function blockShell(host, app) {
  const bar = document.createElement('div');
  bar.className = 'view-bar';
  const body = document.createElement('div');
  body.className = 'block-walk';
  host.append(bar, body);
  let checks = new Map(), shown = [];
  const strip = (values, label, extra = {}) => vectorStrip(values, { label, t: app.t, ...extra });
  function check(s, step) {
    const d = checks.get(step);
    if (d === undefined) return;
    shown.push({ step, maxDiff: d });
    const p = note(app.t('blockCheck', { err: d.toExponential(1) }));
    p.className = 'step check ' + (d <= CHECK_BOUND ? 'ok' : 'bad');
    p.dataset.step = step;
    p.dataset.maxError = String(d);
    s.append(p);
  }

  const shell = {
    bar, body,
    begin(trace) {
      bar.replaceChildren(layerHeadPickers(app, { head: false }), queryPicker(app));
      if (trace) return true;
      shell.start();
      body.append(note(app.t('blockNeedsTrace')));
      return false;
    },
    start(list = []) {
      body.replaceChildren();
      checks = new Map(list.map((c) => [c.step, c.maxDiff]));
      shown = [];
    },
    section(titleKey, vars) {
      const s = document.createElement('section');
      s.className = 'block-step';
      s.dataset.step = titleKey;   // the lesson's anchor
      const h = document.createElement('h4');
      h.textContent = app.t(titleKey, vars);
      s.append(h);
      body.append(s);
      return s;
    },
    check,
    strip,
    /** LayerNorm's statistics of x, its γ and β, the normalised vector `out`, and the check of `step`. */
    layerNormStats(s, x, { gamma, beta }, out, step, eps) {
      let mean = 0;
      for (const v of x) mean += v;
      mean /= x.length;
      let variance = 0;
      for (const v of x) variance += (v - mean) ** 2;
      variance /= x.length;
      s.append(note(app.t('blockNormStats', { mean: mean.toFixed(4), variance: variance.toFixed(4), eps })));
      s.append(strip(gamma, 'γ'), strip(beta, 'β'), strip(out, app.t('blockNormOut')));
      check(s, step);
    },
    /** RMSNorm (x / √(mean(x²) + ε) · γ; no centring, no β): the same for the Llama family and T5. */
    rmsNormStats(s, x, gamma, out, step, eps) {
      let meanSquare = 0;
      for (const v of x) meanSquare += v * v;
      meanSquare /= x.length;
      s.append(note(app.t('blockRmsStats', { n: x.length, ms: meanSquare.toFixed(4), rms: Math.sqrt(meanSquare + eps).toFixed(4), eps })));
      s.append(strip(gamma, 'γ'), strip(out, app.t('blockNormOut')));
      check(s, step);
    },
    shownChecks: () => shown,
    allChecks: () => [...checks].map(([step, maxDiff]) => ({ step, maxDiff })),
  };
  return shell;
}
