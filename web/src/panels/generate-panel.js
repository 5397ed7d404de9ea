// The Generate panel (decoders): writes N tokens in the model's worker (temperature, top-k, top-p, seed),
// streaming. Each step's token joins the chips and its attention row joins every heatmap as it
// arrives (GenerationResult); Stop aborts between two steps and drops the steps the worker had
// already sent but the page had not shown yet (so it stops at once, not after the queue of paced
// steps), saying so while the tokens shown run in full. When the generation ends (or is
// stopped) the whole sequence runs once more from scratch, so the formula, aggregates and
// next-token views get q, k, v and predictions for every token, and the test hook can compare
// each streamed row (computed over the KV cache) with the full run's. The settings live in the
// state, hence in the permalink: the same prompt and seed write the same text.
import { isDecoderOnly } from '../model/causal-mask.js';
import { errorDetail, errorReason } from '../i18n/error-text.js';
import { GenerationResult } from '../model/generation-result.js';
import { createKvCacheStrip } from './kv-cache.js';
import { refusalLine } from '../state/setting-check.js';

// State key = label key; ranges and parsing: setting-check.js.
const FIELDS = ['genTokens', 'genTemperature', 'genTopK', 'genTopP', 'genSeed'];

const PACE_MS = 60;
const MAX_STREAMED_FLOATS = 32 * 1024 ** 2;   // 128 MB of attention per streamed step

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * @param host the panel's element (hidden for encoders)
 * @param app the view model
 * @param getClient () → the worker client of the model in use (or null)
 * @param runOptions () → the options of a full run (as the page's own runs)
 * @param textInput the prompt's textarea: typing stops a generation in progress
 * @param statusLine the run status under the chips: it says what Generate is doing too, beside
 *   the tokens it writes (the panel itself may be off screen)
 */
export function createGeneratePanel(host, app, { getClient, runOptions, textInput, statusLine }) {
  const title = document.createElement('h2');
  const controls = document.createElement('div');
  controls.className = 'row gen-controls';
  const inputs = {};
  const labels = {};
  // A value out of range is refused with the reason under the fields, until a value is taken.
  const fieldError = refusalLine(app, 'error gen-field-error');
  for (const key of FIELDS) {
    const label = document.createElement('label');
    label.className = 'gen-field';
    const span = document.createElement('span');
    const input = document.createElement('input');
    input.type = 'number';
    input.id = 'gen-' + key.slice(3).toLowerCase();
    fieldError.wire(input, key);
    label.append(span, input);
    controls.append(label);
    inputs[key] = input;
    labels[key] = [span, key];
  }
  const startBtn = document.createElement('button');
  startBtn.type = 'button';
  startBtn.id = 'gen-start';
  const stopBtn = document.createElement('button');
  stopBtn.type = 'button';
  stopBtn.id = 'gen-stop';
  controls.append(startBtn, stopBtn);
  const status = document.createElement('p');
  status.id = 'gen-status';
  status.className = 'muted';
  status.setAttribute('aria-live', 'polite');
  const hint = document.createElement('p');
  hint.className = 'hint';
  // The tokens written so far, in the panel itself: on a phone the chips they join are a screen
  // above the panel (the new tokens appeared off-screen).
  const written = document.createElement('p');
  written.id = 'gen-written';
  written.className = 'gen-written';
  written.hidden = true;
  host.append(title, controls, fieldError.element, status, written, hint);
  const kvCache = createKvCacheStrip(host, app);   // one key and one value row per new token, per layer

  let running = null;   // { controller, prompt, stopped } while a generation is in progress
  let statusFor = null; // () → the status text, re-made when the language changes
  let promptRun = null;  // { text, client, result }: the prompt's own run, the start of every generation

  // `line`: also on the status line (not once the page has moved on to another text).
  function setStatus(make, { line = true } = {}) {
    statusFor = make;
    status.textContent = make ? make() : '';
    if (statusLine && make && line) statusLine.textContent = status.textContent;
  }

  async function start() {
    const client = getClient();
    if (running || !client || !app.original || !isDecoderOnly(app)) return;
    // Always from the prompt (the typed text), never from the end of an earlier generation: the
    // permalink holds the prompt and the settings, and must write the same text again.
    let base = app.original;
    if (base.generatedFrom !== undefined) {
      base = promptRun && promptRun.text === app.state.text && promptRun.client === client ? promptRun.result : null;
      // On screen is text another panel wrote (Steering's): the prompt's own run is made again.
      if (!base) base = await client.run(app.state.text, runOptions()).catch(() => null);
      if (!base || running || getClient() !== client) return;
    }
    promptRun = { text: app.state.text, client, result: base };
    const controller = new AbortController();
    const prompt = app.state.text;
    // Stop: abort the worker between two steps and show no step that has not been shown yet.
    const run = { controller, prompt, stopped: false };
    running = run;
    const n = app.state.genTokens;
    const gen = { prompt, promptLength: base.shape[2], settings: settings(), steps: [], done: false, stopReason: null, ids: null, error: null };
    app.generation = gen;
    document.body.dataset.generating = '';
    render();
    let partial = new GenerationResult(base);
    const ids = Array.from(base.ids);   // prompt + every step shown so far
    let streaming = true;
    app.showRun(partial);
    app.set({});
    setStatus(() => app.t('genRunning', { i: 1, n }));
    const stillCurrent = () => app.state.text === prompt && getClient() === client;
    // The tiny bundled model writes a token in well under a millisecond: steps are put on screen
    // at most one per PACE_MS, so the reader can watch each row join the heatmaps.
    let shown = Promise.resolve();
    const show = (step) => {
      if (run.stopped || !stillCurrent()) return;
      gen.steps.push({ index: step.index, position: step.position, id: step.id, text: step.text, prob: step.prob,
        keys: step.keys, attention: Array.from(step.attention) });
      kvCache.render();
      showWritten();
      ids.push(step.id);
      // Each step copies every head (L·H·T² floats): past MAX_STREAMED_FLOATS (a 12×12-head
      // model at ~470 tokens) the rows are not streamed into the views, only the final full run.
      const [L, H, T] = partial.shape;
      if (streaming && L * H * (T + 1) ** 2 <= MAX_STREAMED_FLOATS) {
        partial = partial.withStep(step);
        app.showRun(partial);
        app.set({});   // redraw every view with the new row
      } else streaming = false;
      setStatus(() => app.t('genRunning', { i: Math.min(step.index + 2, n), n }));
      // For scripts (and tests) that follow the generation: which step just arrived.
      host.dispatchEvent(new CustomEvent('generation-step', { detail: { index: step.index, position: step.position } }));
    };
    let out = null, failure = null;
    try {
      out = await client.generate(Array.from(base.ids), {
        maxNewTokens: n, temperature: app.state.genTemperature, topK: app.state.genTopK, topP: app.state.genTopP, seed: app.state.genSeed,
        stopAtEos: true, candidates: 5, signal: controller.signal,
        // After Stop, steps still queued here are dropped without their pause.
        onToken: (step) => { shown = shown.then(() => (run.stopped ? undefined : (show(step), sleep(PACE_MS)))); },
      });
    } catch (e) {
      failure = e;
    }
    // A step the views could not take fails the generation like the worker's error would: left
    // to reject here, it skipped the end below and the panel stayed "running" (Generate disabled).
    await shown.catch((e) => { failure ??= e; });
    try {
      if (!failure && !run.stopped) {
        gen.stopReason = out.stopReason;
        gen.ids = Array.from(out.ids);
        gen.text = out.text;
        await finish(client, out.ids, base, stillCurrent);
        setStatus(() => app.t('genDone', { n: gen.steps.length, reason: app.t('reason_' + gen.stopReason) }));
      } else {
        // Stopped (or failed) part-way: the tokens shown so far stay, run in full like a finished one.
        const aborted = run.stopped || failure?.code === 'E_ABORTED';
        gen.stopReason = aborted ? 'aborted' : 'error';
        gen.ids = [...ids];
        if (!aborted) gen.error = { code: failure?.code ?? 'E_INTERNAL', message: failure?.message ?? String(failure) };
        const current = stillCurrent();
        if (current) await finish(client, ids, base, stillCurrent).catch(() => {});
        setStatus(aborted ? () => app.t('genStopped', { n: gen.steps.length })
          : () => app.t('genFailed', { reason: errorReason(app.t, gen.error), detail: errorDetail(gen.error) }), { line: current });
      }
    } finally {
      gen.done = true;
      running = null;
      delete document.body.dataset.generating;
      render();
    }
  }

  // The finished sequence in one full run (no KV cache): every view's data for every token.
  async function finish(client, ids, base, stillCurrent) {
    const full = await client.runIds(Array.from(ids), runOptions());
    if (!stillCurrent()) return;
    full.generatedFrom = base.shape[2];
    // Ids carry no text offsets: the prompt's tokens keep theirs (the highlight in the typed
    // text), the generated ones point nowhere in it.
    const offsets = new Int32Array(full.offsets?.length ?? 2 * full.shape[2]);
    offsets.set(base.offsets.subarray(0, Math.min(base.offsets.length, offsets.length)));
    full.offsets = offsets;
    app.showRun(full);
    app.set({});
  }

  function settings() {
    const s = app.state;
    return { maxNewTokens: s.genTokens, temperature: s.genTemperature, topK: s.genTopK, topP: s.genTopP, seed: s.genSeed };
  }

  function stop() {
    if (!running || running.stopped) return;
    running.stopped = true;
    running.controller.abort();
    const shownSteps = app.generation.steps.length;
    setStatus(() => app.t('genStopping', { n: shownSteps }));
    render();
  }

  startBtn.addEventListener('click', start);
  stopBtn.addEventListener('click', stop);
  // A new prompt makes the text being written someone else's: stop it.
  textInput?.addEventListener('input', stop);

  function render() {
    const { t, state } = app;
    host.hidden = !isDecoderOnly(app);
    if (host.hidden) return;
    title.textContent = t('genTitle');
    for (const [key, [span, labelKey]] of Object.entries(labels)) {
      span.textContent = t(labelKey);
      if (document.activeElement !== inputs[key]) inputs[key].value = String(state[key]);
    }
    startBtn.textContent = t('genStart');
    stopBtn.textContent = t('genStop');
    startBtn.disabled = Boolean(running) || !app.original;
    stopBtn.disabled = !running || running.stopped;
    hint.textContent = t('genHint');
    fieldError.show();   // re-worded in the UI's language
    if (statusFor) status.textContent = statusFor();
    kvCache.render();
    showWritten();
  }

  // The current prompt's generation: its label, then each new token marked (spaces shown as ␣).
  function showWritten() {
    const gen = app.generation;
    const steps = gen && gen.prompt === app.state.text ? gen.steps : [];
    written.hidden = !steps.length;
    if (!steps.length) return;
    const label = document.createElement('span');
    label.className = 'gen-written-label';
    label.textContent = app.t('genWritten');
    written.replaceChildren(label, ...steps.map((step) => {
      const mark = document.createElement('mark');
      mark.textContent = String(step.text ?? '').replace(/ /g, '␣') || '∅';
      return mark;
    }));
  }

  return { render, start, stop, get running() { return Boolean(running); } };
}
