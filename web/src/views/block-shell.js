// The Block view's frame (views/block.js): a bar for the pickers above a column of titled steps,
// each step's colour strips of the engine's numbers, the norm steps' statistics, and the "Check"
// line under a step that js/formats/block-steps.js recomputed in float64; an encoder–decoder's stack switch.
import { layerHeadPickers, queryPicker } from '../draw/pickers.js';
import { SEQ2SEQ_STACKS } from '../model/seq2seq-run.js';
import { vectorStrip } from '../draw/vector-strip.js';

/** Largest float64-recomputed difference a check shows as agreeing (the engine is float32). */
export const CHECK_BOUND = 1e-4;

export function note(text) {
  const p = document.createElement('p');
  p.className = 'step';
  p.textContent = text;
  return p;
}

/** An encoder–decoder's choice of stack to walk (state.blockStack, ?stack= in the permalink): the
 *  encoder's layers over the source or the decoder's over the target, source side first. */
export function stackSwitch(app) {
  const box = document.createElement('div');
  box.className = 'stack-switch';
  box.setAttribute('role', 'radiogroup');
  box.setAttribute('aria-label', app.t('blockStackTitle'));
  const title = document.createElement('span');
  title.className = 'stack-title';
  title.textContent = app.t('blockStackTitle');
  box.append(title);
  for (const stack of [...SEQ2SEQ_STACKS].reverse()) {
    const b = document.createElement('button');
    b.type = 'button';
    b.setAttribute('role', 'radio');
    b.dataset.stack = stack;
    b.setAttribute('aria-checked', String(app.state.blockStack === stack));
    b.textContent = app.t(stack === 'encoder' ? 'blockStackEncoder' : 'blockStackDecoder');
    b.addEventListener('click', () => app.set({ blockStack: stack }));
    box.append(b);
  }
  return box;
}

/**
 * Builds the bar and the body in `host`. begin(trace, before) puts `before` (elements of the
 * model's own: the stack switch), the layer and query pickers in the bar
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
    begin(trace, before = []) {
      bar.replaceChildren(...before, layerHeadPickers(app, { head: false }), queryPicker(app));
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
    /** RMSNorm (x / √(mean(x²) + ε) · γ; no centring, no β): the Llama family's and T5's. */
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
