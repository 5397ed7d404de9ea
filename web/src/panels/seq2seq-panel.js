// The page's target for an encoder–decoder (the source is the text box above): a target the
// reader types, or one the model writes greedily, streamed token by token (Stop keeps what was
// written). The typed target is never overwritten: a generated one is shown and run instead of it
// until the reader goes back to it (or types). While it is written, the views show the rows the
// generation carries (target-stream.js), a row per token shown. Also the source and target tokens
// as the model reads them, since the page's token chips follow one text only.
import { isSeq2Seq, kindShown } from '../model/seq2seq-run.js';
import { createTargetStream } from '../model/target-stream.js';

const PACE_MS = 60;   // a tiny model writes a token in well under a millisecond: one shown per PACE_MS

/** rerun(): the host runs the text when typing pauses (a slow model waits for it); runNow(): at
 *  once, for a click or a generation's end, where no typing is to be waited for. redraw(): the host
 *  redraws the views (a streamed row was added). */
export function createSeq2SeqPanel(host, app, { getClient, rerun, runNow, redraw, setStatus }) {
  const title = document.createElement('h2');
  title.id = 'target-title';
  const label = document.createElement('label');
  label.htmlFor = 'target-text';
  label.className = 'visually-hidden';
  const input = document.createElement('textarea');
  input.id = 'target-text';
  input.rows = 2;
  input.spellcheck = false;
  input.value = app.state.target;
  const row = document.createElement('div');
  row.className = 'row';
  const genBtn = button('gen-target');
  const stopBtn = button('stop-target');
  const typedBtn = button('typed-target');
  row.append(genBtn, stopBtn, typedBtn);
  const stream = document.createElement('p');
  stream.className = 'gen-stream';
  stream.setAttribute('aria-live', 'polite');
  const hint = document.createElement('p');
  hint.className = 'hint';
  const srcChips = chipsLine('src-chips'), tgtChips = chipsLine('tgt-chips');
  host.append(title, label, input, row, stream, hint, srcChips.box, tgtChips.box);
  let running = null;   // { controller, tokens }

  input.addEventListener('input', () => {
    stop({ discard: true });   // the reader's own target now: what was being written is dropped
    app.generated = null;
    app.set({ target: input.value });
    rerun();
  });
  genBtn.addEventListener('click', generate);
  stopBtn.addEventListener('click', () => stop());
  typedBtn.addEventListener('click', () => {
    app.generated = null;
    render();
    runNow();
  });

  async function generate() {
    const client = getClient();
    if (running || !client || !app.state.text.trim()) return;
    const controller = new AbortController();
    const run = { controller, tokens: [], ids: [], shown: Promise.resolve(), stopped: false, discarded: false };
    running = run;
    app.generated = null;
    document.body.dataset.generating = '';
    setStatus?.(app.t('genTargetRunning'));   // the last run's line would describe another target
    render();
    const source = app.state.text;
    // The source's tokens (queued before the generation in the worker), for the streamed rows.
    const stream = client.tokenize(source, { signal: controller.signal }).then((src) =>
      createTargetStream({ source, src, config: app.info.config, before: app.original, kindOf: () => kindShown(app.state) }));
    stream.catch(() => {});   // an abort: the generation reports it
    const show = (step) => {
      run.shown = run.shown.then(async () => {
        if (run.stopped) return;
        const rows = await stream;
        if (run.stopped) return;
        run.ids.push(step.id);
        run.tokens.push(step.token);
        rows.add(step);
        app.showStream(rows.result());
        render();
        redraw();
        await new Promise((r) => setTimeout(r, PACE_MS));
      });
    };
    let reason = null;
    try {
      const summary = await client.generate(source, { maxNewTokens: app.state.genTokens, temperature: 0, onToken: show,
        signal: controller.signal });
      reason = summary.stopReason;
    } catch (e) {
      if (e?.code !== 'E_ABORTED') reason = 'error';
    }
    await run.shown.catch((e) => {   // a step the stream could not take: the generation ends there
      if (reason !== 'error') console.warn('AttnScope: a generated step was not shown', e);
      reason = 'error';
    });
    app.endStream();
    if (running !== run) return;
    running = null;
    delete document.body.dataset.generating;
    // What was written (all of it, or up to Stop) becomes the target shown, if the source and the
    // model are the same.
    if (!run.discarded && app.state.text === source && getClient() === client && run.ids.length) app.generated = { targetIds: run.ids, tokens: run.tokens, reason };
    setStatus?.(app.t(reason === 'eos' ? 'genTargetEos' : reason === 'error' ? 'genTargetFailed' : 'genTargetDone', { n: run.ids.length }));
    render();
    // The full run starts now, in this same task: until it lands the views show the streamed rows,
    // one row short of the target (the row after its last token is not streamed), and a run put
    // off for typing would leave the page idle ("ready") meanwhile, showing them as if final.
    runNow();
  }

  /** Stops the generation; what was written becomes the target unless `discard`. */
  function stop({ discard = false } = {}) {
    if (!running) return;
    running.stopped = true;
    running.discarded ||= discard;
    running.controller.abort();
  }

  function render() {
    host.hidden = !isSeq2Seq(app.info);
    if (host.hidden) return;
    const { t } = app;
    title.textContent = t('targetTitle');
    label.textContent = t('targetTitle');
    input.placeholder = t('targetPlaceholder');
    if (document.activeElement !== input && input.value !== app.state.target) input.value = app.state.target;
    genBtn.textContent = t('genTarget');
    stopBtn.textContent = t('genStop');
    typedBtn.textContent = t('useTypedTarget');
    genBtn.disabled = Boolean(running) || !app.state.text.trim();
    stopBtn.disabled = !running;
    typedBtn.hidden = !app.generated;
    const tokens = running ? running.tokens : app.generated?.tokens;
    stream.hidden = !tokens;
    stream.textContent = tokens ? `${t(running ? 'genTargetWriting' : 'genTargetShown')} ${tokens.join(' ')}` : '';
    hint.textContent = t('targetHint');
    const r = app.original;
    srcChips.show(t('sourceTokens'), r?.sources?.tokens, r?.sources?.special);
    tgtChips.show(t('targetTokens'), r?.targets?.tokens, r?.targets?.special);
  }

  return { render, stop, generate, get running() { return Boolean(running); } };
}

function button(id) {
  const b = document.createElement('button');
  b.type = 'button';
  b.id = id;
  return b;
}

// One line of token chips (no offsets: the text boxes show the text itself).
function chipsLine(className) {
  const box = document.createElement('div');
  box.className = 'seq-chips ' + className;
  const head = document.createElement('span');
  head.className = 'muted';
  const list = document.createElement('span');
  list.className = 'chips';
  box.append(head, list);
  return {
    box,
    show(title, tokens, special) {
      box.hidden = !tokens;
      if (!tokens) return;
      head.textContent = title + ' ';
      list.replaceChildren(...tokens.map((tok, i) => {
        const c = document.createElement('span');
        c.className = 'chip' + (special?.[i] ? ' special' : '');
        c.textContent = tok;
        return c;
      }));
    },
  };
}
