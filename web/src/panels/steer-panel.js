// The Steering panel (decoders and encoder–decoders; hidden for encoders, which cannot write):
// the prompt written twice from the same start, greedily, plain and with strength · v added to the
// residual stream entering one layer (the API's generate(…, { steer: { layer, from, to, strength } }),
// ActAdd), the two texts side by side with the first token where they part marked. Beside them,
// how big the push is (steer-size.js: ‖v‖, strength·‖v‖ and the residual stream's own length),
// since a strength means nothing without the direction's size. Each written token's attention row
// joins the views as it arrives, as in Generate (GenerationResult; an encoder–decoder's rows through
// target-stream.js); the reader picks which of the two texts the views show. The four settings live
// in the state (sf, st, sl, ss in the URL); Stop aborts the job between two steps.
import { addStrings } from '../i18n/i18n.js';
import { STEER_STRINGS } from '../i18n/i18n-steer.js';
import { isDecoderOnly } from '../model/causal-mask.js';
import { isSeq2Seq, kindShown } from '../model/seq2seq-run.js';
import { errorDetail, errorReason } from '../i18n/error-text.js';
import { GenerationResult } from '../model/generation-result.js';
import { createTargetStream } from '../model/target-stream.js';
import { refusalLine } from '../state/setting-check.js';
import { steeringSize } from '../math/steer-size.js';

addStrings(STEER_STRINGS);

const PACE_MS = 60;   // as Generate: the tiny bundled model writes a token in well under a millisecond
const WHICH = ['plain', 'steered'];

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * @param host the panel's element
 * @param app the view model
 * @param getClient () → the worker client of the model in use (or null)
 * @param runOptions () → the options of a full run (as the page's own runs)
 * @param textInput the prompt's textarea: typing stops a steering in progress
 * @param redraw () → the host redraws the views (an encoder–decoder's streamed row was added)
 */
export function createSteerPanel(host, app, { getClient, runOptions, textInput, redraw }) {
  const title = document.createElement('h2');
  title.id = 'steer-title';
  const intro = document.createElement('p');
  intro.className = 'hint';
  const texts = document.createElement('div');
  texts.className = 'row steer-texts';
  const controls = document.createElement('div');
  controls.className = 'row gen-controls';
  const labels = {};
  const textInputs = {};
  for (const key of ['steerFrom', 'steerTo']) {
    const { label, span } = field();
    const input = document.createElement('input');
    input.type = 'text';
    input.id = key === 'steerFrom' ? 'steer-from' : 'steer-to';
    input.maxLength = 500;
    input.spellcheck = false;
    input.addEventListener('change', () => app.set({ [key]: input.value }));
    label.append(span, input);
    texts.append(label);
    textInputs[key] = input;
    labels[key] = span;
  }
  // A number out of range is refused with the reason under the fields (setting-check.js).
  const fieldError = refusalLine(app);
  const numberInputs = {};
  for (const key of ['steerLayer', 'steerStrength']) {
    const { label, span } = field();
    const input = document.createElement('input');
    input.type = 'number';
    input.id = key === 'steerLayer' ? 'steer-layer' : 'steer-strength';
    fieldError.wire(input, key);
    label.append(span, input);
    controls.append(label);
    numberInputs[key] = input;
    labels[key] = span;
  }
  const startBtn = button('steer-start');
  const stopBtn = button('steer-stop');
  controls.append(startBtn, stopBtn);
  const problem = document.createElement('p');
  problem.className = 'error';
  problem.setAttribute('role', 'alert');
  problem.hidden = true;
  const size = document.createElement('p');
  size.id = 'steer-size';
  size.className = 'steer-size';
  size.hidden = true;
  const status = document.createElement('p');
  status.id = 'steer-status';
  status.className = 'muted';
  status.setAttribute('aria-live', 'polite');
  const columns = document.createElement('div');
  columns.className = 'steer-columns';
  columns.hidden = true;
  const column = Object.fromEntries(WHICH.map((which) => {
    const box = document.createElement('div');
    box.className = 'steer-col';
    box.dataset.which = which;
    const head = document.createElement('h3');
    const text = document.createElement('p');
    text.className = 'steer-text';
    const show = document.createElement('button');
    show.type = 'button';
    show.className = 'steer-show';
    show.addEventListener('click', () => showInViews(which));
    box.append(head, text, show);
    columns.append(box);
    return [which, { head, text, show }];
  }));
  const parting = document.createElement('p');
  parting.className = 'steer-parting';
  const hint = document.createElement('p');
  hint.className = 'hint';
  host.append(title, intro, texts, controls, fieldError.element, problem, status, size, columns, parting, hint);

  let running = null;  // { controller, stopped } while a steering job is in progress
  // The last steering (or the one in progress): its settings, each text's steps and result, the size.
  let last = null;
  let statusFor = null;
  let problemFor = null;

  function setStatus(make) {
    statusFor = make;
    status.textContent = make ? make() : '';
  }
  function setProblem(make) {
    problemFor = make;
    problem.hidden = !make;
    problem.textContent = make ? make() : '';
  }

  const layers = () => (isSeq2Seq(app.info) ? app.info.config.decoderLayers : app.info.config.numLayers);

  async function start() {
    const client = getClient();
    if (running || !client || !app.original || !(isDecoderOnly(app) || isSeq2Seq(app.info))) return;
    const s = app.state;
    setProblem(null);
    if (!s.steerFrom.trim() || !s.steerTo.trim()) return setProblem(() => app.t('steerNeedsTexts'));
    if (s.steerLayer >= layers()) return setProblem(() => app.t('steerBadLayer', { layer: s.steerLayer, last: layers() - 1 }));
    const controller = new AbortController();
    const run = { controller, stopped: false };
    running = run;
    const prompt = s.text;
    const steer = { layer: s.steerLayer, from: s.steerFrom, to: s.steerTo, strength: s.steerStrength };
    const n = s.genTokens;
    last = { prompt, steer, n, size: null, plain: null, steered: null, shown: null };
    document.body.dataset.steering = '';
    render();
    const stillCurrent = () => app.state.text === prompt && getClient() === client;
    try {
      const signal = controller.signal;
      if (isSeq2Seq(app.info)) await writeSeq2Seq(client, run, prompt, steer, n);
      else await writeDecoder(client, run, prompt, steer, n, signal, stillCurrent);
      setStatus(() => app.t('steerDone', { n: Math.max(...WHICH.map((w) => last[w]?.tokens.length ?? 0)) }));
    } catch (e) {
      if (run.stopped || e?.code === 'E_ABORTED') setStatus(() => app.t('steerStopped'));
      else {
        const error = { code: e?.code ?? 'E_INTERNAL', message: e?.message ?? String(e) };
        setStatus(() => app.t('steerFailed', { reason: errorReason(app.t, error), detail: errorDetail(error) }));
      }
    } finally {
      running = null;
      delete document.body.dataset.steering;
      render();
    }
  }

  // A decoder: the prompt's run (its rows start both texts' views) and the direction's size, then
  // the plain text and the steered one, each streamed into the views as Generate does.
  async function writeDecoder(client, run, prompt, steer, n, signal, stillCurrent) {
    setStatus(() => app.t('steerMeasuring'));
    const measure = (text) => client.run(text, { hiddenStates: true, topK: 0, signal });
    const [base, from, to] = await Promise.all([
      client.run(prompt, { ...runOptions(), hiddenStates: true, signal }), measure(steer.from), measure(steer.to)]);
    last.size = steeringSize({ from, to, prompt: base }, steer.layer, steer.strength);
    render();
    for (const which of WHICH) {
      const written = { tokens: [], ids: [], result: new GenerationResult(base) };
      last[which] = written;
      if (stillCurrent()) showResult(which);
      let shown = Promise.resolve();
      const show = (step) => {
        if (run.stopped || last[which] !== written) return;
        written.tokens.push(step.text);
        written.ids.push(step.id);
        written.result = written.result.withStep(step);
        if (stillCurrent() && last.shown === which) showResult(which);
        setStatus(() => app.t('steerRunning', { which: app.t('steerWhich_' + which), i: written.tokens.length, n }));
        renderColumns();
      };
      try {
        await client.generate(Array.from(base.ids), {
          maxNewTokens: n, temperature: 0, stopAtEos: true, candidates: 5, signal,
          ...(which === 'steered' ? {
            steer,
            // The steered prompt's own rows (the push reaches the prompt too), before any step;
            // its predictions are the plain run's, so none are shown for the prompt.
            onPrompt: ({ attentions }) => {
              if (last[which] === written) written.result = new GenerationResult({ ...base, attentions, nextByPosition: [] });
            },
          } : {}),
          onToken: (step) => { shown = shown.then(() => (run.stopped ? undefined : (show(step), sleep(PACE_MS)))); },
        });
      } finally {
        await shown;
      }
    }
  }

  // An encoder–decoder: the typed text is the source; each target's rows stream into the views
  // (target-stream.js), and stay there when it ends (app.endStream) until the next run.
  async function writeSeq2Seq(client, run, source, steer, n) {
    const { signal } = run.controller;
    const src = await client.tokenize(source, { signal });
    for (const which of WHICH) {
      const rows = createTargetStream({ source, src, config: app.info.config, before: app.original, kindOf: () => kindShown(app.state) });
      const written = { tokens: [], ids: [], rows };
      last[which] = written;
      last.shown = which;
      let shown = Promise.resolve();
      const show = (step) => {
        if (run.stopped) return;
        written.tokens.push(step.text ?? step.token);
        written.ids.push(step.id);
        rows.add(step);
        written.result = rows.result();
        written.result.steering = which;   // the views' note says whose rows these are
        if (last.shown === which) {
          app.showStream(written.result);
          redraw();
        }
        setStatus(() => app.t('steerRunning', { which: app.t('steerWhich_' + which), i: written.tokens.length, n }));
        renderColumns();
      };
      try {
        await client.generate(source, {
          maxNewTokens: n, temperature: 0, signal, ...(which === 'steered' ? { steer } : {}),
          onToken: (step) => { shown = shown.then(() => (run.stopped ? undefined : (show(step), sleep(PACE_MS)))); },
        });
      } finally {
        await shown;
        app.endStream();
      }
    }
  }

  // The views show one of the two texts (its rows as written, not a plain run of its tokens: a
  // full run would not be steered).
  function showResult(which) {
    last.shown = which;
    const result = last[which]?.result;
    if (!result) return;
    if (isSeq2Seq(app.info)) {
      app.showStream(result);
      app.endStream();
      redraw();
    } else {
      app.showRun(result);
      app.set({});
    }
  }

  function showInViews(which) {
    if (!last?.[which]?.result || app.state.text !== last.prompt) return;
    showResult(which);
    render();
  }

  function stop() {
    if (!running || running.stopped) return;
    running.stopped = true;
    running.controller.abort();
    render();
  }

  startBtn.addEventListener('click', start);
  stopBtn.addEventListener('click', stop);
  textInput?.addEventListener('input', stop);   // a new prompt: what was being written is another's

  function render() {
    const { t, state } = app;
    host.hidden = !(isDecoderOnly(app) || isSeq2Seq(app.info));
    if (host.hidden) return;
    title.textContent = t('steerTitle');
    intro.textContent = t('steerIntro');
    for (const [key, span] of Object.entries(labels)) span.textContent = t(key);
    for (const [key, input] of Object.entries(textInputs)) if (document.activeElement !== input) input.value = state[key];
    for (const [key, input] of Object.entries(numberInputs)) if (document.activeElement !== input) input.value = String(state[key]);
    numberInputs.steerLayer.max = String(app.info ? layers() - 1 : 999);
    startBtn.textContent = t('steerStart');
    stopBtn.textContent = t('steerStop');
    startBtn.disabled = Boolean(running) || !app.original;
    stopBtn.disabled = !running || running.stopped;
    fieldError.show();
    if (problemFor) problem.textContent = problemFor();
    if (statusFor) status.textContent = statusFor();
    hint.textContent = t(isSeq2Seq(app.info) ? 'steerHintSeq2Seq' : 'steerHint');
    renderSize();
    renderColumns();
  }

  function renderSize() {
    const z = last?.prompt === app.state.text ? last.size : null;
    size.hidden = !z;
    if (!z) return;
    const f = (x) => x.toFixed(2);
    size.replaceChildren(app.t('steerSize', { direction: f(z.direction), layer: last.steer.layer, push: f(z.push),
      residual: f(z.residual), pct: Math.round(100 * z.ratio) }), document.createElement('br'), app.t('steerSizeMeaning'));
  }

  function renderColumns() {
    const current = last && last.prompt === app.state.text && (last.plain || last.steered);
    columns.hidden = parting.hidden = !current;
    if (!current) return;
    const { t } = app;
    const plain = last.plain?.tokens ?? [], steered = last.steered?.tokens ?? [];
    // Where the two texts part: marked once both are written (before, the steered one is still
    // catching up with the plain one).
    const done = !running && last.plain && last.steered;
    let part = 0;
    while (part < plain.length && part < steered.length && plain[part] === steered[part]) part++;
    for (const which of WHICH) {
      const c = column[which];
      c.head.textContent = which === 'plain' ? t('steerPlain') : t('steerSteered', { strength: last.steer.strength, layer: last.steer.layer });
      const prompt = document.createElement('span');
      prompt.className = 'muted';
      // An encoder–decoder writes a separate target: the source, an arrow, the target's tokens.
      const seq2seq = isSeq2Seq(app.info);
      prompt.textContent = seq2seq ? `${last.prompt} → ` : last.prompt;
      if (seq2seq) c.text.dataset.tokens = 'spaced'; else delete c.text.dataset.tokens;
      const tokens = (which === 'plain' ? plain : steered).map((tok, i) => {
        const mark = document.createElement('mark');
        if (done && i >= part) mark.className = 'is-different';
        mark.textContent = String(tok).replace(/␣/g, ' ');   // read as text; the marks show the tokens
        return mark;
      });
      c.text.replaceChildren(prompt, ...tokens);
      const on = last.shown === which;
      c.show.textContent = on ? t('steerShown') : t('steerShow');
      c.show.setAttribute('aria-pressed', String(on));
      c.show.disabled = !last[which]?.result;
    }
    parting.hidden = !done;
    if (done) {
      parting.textContent = part >= Math.min(plain.length, steered.length) && plain.length === steered.length
        ? t('steerSame') : t('steerDiffers', { n: part + 1, total: Math.max(plain.length, steered.length) });
    }
  }

  function field() {
    const label = document.createElement('label');
    label.className = 'gen-field';
    const span = document.createElement('span');
    return { label, span };
  }

  return {
    render, start, stop,
    get running() { return Boolean(running); },
    /** For the test hook: the last steering's settings, texts, ids and size (copies). */
    get exposed() {
      if (!last) return null;
      const text = (w) => (last[w] ? { tokens: [...last[w].tokens], ids: [...last[w].ids] } : null);
      return { prompt: last.prompt, steer: { ...last.steer }, shown: last.shown, running: Boolean(running),
        plain: text('plain'), steered: text('steered'),
        size: last.size ? { ...last.size, vector: Array.from(last.size.vector) } : null };
    },
  };
}

function button(id) {
  const b = document.createElement('button');
  b.type = 'button';
  b.id = id;
  return b;
}
