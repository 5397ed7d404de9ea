// The next-token panel's sampling preview: temperature, top-k and top-p applied to the
// whole next-token distribution after the last position, before anything is sampled — the same
// rule js/analysis/sampling.js's sampleToken draws from: weights exp((z_i − z_max)/T) (T = 0: greedy),
// the k best kept (0: no limit), then the smallest prefix of them whose weight reaches top-p of
// theirs, renormalised. Shows the top tokens with what each would get, greying what is cut off.
// The settings are the Generate panel's (genTemperature, genTopK, genTopP: in the permalink).
import { isDecoderOnly } from '../model/causal-mask.js';
import { refusalLine } from '../state/setting-check.js';

const SHOWN = 10;
const DELAY_MS = 200;

/** {kept, keptMass, rows: [{id, text, tempered, final}]} for entries sorted most likely first. */
export function samplingPreview(entries, { temperature, topK, topP }) {
  const V = entries.length;
  let w;
  if (temperature === 0) w = entries.map((_, i) => (i === 0 ? 1 : 0));
  else {
    const top = Math.log(entries[0].prob);
    w = entries.map((e) => Math.exp((Math.log(e.prob) - top) / temperature));
  }
  const total = w.reduce((a, b) => a + b, 0);
  let kept = temperature === 0 ? 1 : (topK > 0 && topK < V ? topK : V);
  if (temperature !== 0 && topP < 1) {
    let keptTotal = 0;
    for (let i = 0; i < kept; i++) keptTotal += w[i];
    let mass = 0, k = 0;
    while (k < kept && mass < topP * keptTotal) mass += w[k++];
    kept = Math.max(k, 1);
  }
  let keptWeight = 0;
  for (let i = 0; i < kept; i++) keptWeight += w[i];
  const rows = entries.slice(0, SHOWN).map((e, i) => ({
    id: e.id, text: e.text ?? e.token, tempered: w[i] / total, final: i < kept ? w[i] / keptWeight : 0,
  }));
  return { kept, keptMass: keptWeight / total, rows };
}

export function createSamplingPreview(host, app) {
  const box = document.createElement('div');
  box.className = 'sampling';
  host.append(box);
  let full = null;      // { result, entries } the whole distribution of the run on screen
  let asked = null;     // the run it was asked for
  let job = null;       // its AbortController: a newer run on screen stops the older request
  let timer = 0;

  // The title, the three fields and the line saying why a value was refused (the Generate panel's
  // kind) are built once and only updated: a field rebuilt under the reader's cursor would lose its
  // focus, and the old one's pending change (its value reset by the refusal) could then take the
  // refusal back.
  const title = document.createElement('h4');
  const controls = document.createElement('div');
  controls.className = 'sampling-controls';
  const fieldError = refusalLine(app, 'error sampling-error');
  const fields = [['genTemperature', 'samplingTemperature'], ['genTopK', 'samplingTopK'], ['genTopP', 'samplingTopP']]
    .map(([key, label]) => {
      const l = document.createElement('label');
      const span = document.createElement('span');
      const input = document.createElement('input');
      input.type = 'number';
      input.id = 'sampling-' + key.slice(3).toLowerCase();
      fieldError.wire(input, key);
      l.append(span, input);
      controls.append(l);
      return { key, label, span, input };
    });
  const rest = document.createElement('div');   // the formula and the distribution, redrawn
  box.append(title, controls, fieldError.element, rest);

  // The whole distribution is one more run of the ids (topK = V): asked for once typing pauses
  // (DELAY_MS), and an older request still queued is cancelled, so typing never queues runs.
  function distribution(r) {
    if (full?.result === r) return full.entries;
    if (asked === r || !app.jobs?.runIds) return null;
    asked = r;
    job?.abort();
    clearTimeout(timer);
    const controller = new AbortController();
    job = controller;
    timer = setTimeout(() => {
      const V = app.info.config.vocabSize;
      app.jobs.runIds(Array.from(r.ids), { topK: V, signal: controller.signal }).then((whole) => {
        if (app.result !== r) return;
        full = { result: r, entries: whole.next };
        render();
      }, () => { if (asked === r) asked = null; });
    }, DELAY_MS);
    return null;
  }

  function render() {
    const r = app.result;
    box.hidden = !isDecoderOnly(app) || !r || Boolean(app.generation && !app.generation.done);
    if (box.hidden) return;
    const { t, state } = app;
    title.textContent = t('samplingTitle');
    for (const { key, label, span, input } of fields) {
      span.textContent = t(label);
      if (input !== document.activeElement) input.value = String(state[key]);
    }
    fieldError.show();   // re-worded in the UI's language
    const formula = document.createElement('p');
    formula.className = 'formula-text sampling-formula';
    formula.textContent = t('samplingFormula');
    rest.replaceChildren(formula);
    const entries = distribution(r);
    if (!entries) {
      const p = document.createElement('p');
      p.className = 'note';
      p.textContent = t('samplingNeedsRun');
      rest.append(p);
      return;
    }
    const preview = samplingPreview(entries, { temperature: state.genTemperature, topK: state.genTopK, topP: state.genTopP });
    const list = document.createElement('ol');
    list.className = 'sampling-list';
    box.dataset.kept = String(preview.kept);
    for (const row of preview.rows) {
      const li = document.createElement('li');
      li.dataset.id = String(row.id);
      li.dataset.final = String(row.final);
      if (!row.final) li.className = 'is-cut';
      const word = document.createElement('span');
      word.className = 'sampling-word';
      word.textContent = row.text;
      const track = document.createElement('span');
      track.className = 'sampling-track';
      const before = document.createElement('span');
      before.className = 'sampling-before';
      before.style.width = (row.tempered * 100).toFixed(1) + '%';
      const after = document.createElement('span');
      after.className = 'sampling-after';
      after.style.width = (row.final * 100).toFixed(1) + '%';
      track.append(before, after);
      const prob = document.createElement('span');
      prob.className = 'next-prob';
      prob.textContent = row.final ? (row.final * 100).toFixed(1) + '%' : '—';
      prob.title = (row.tempered * 100).toFixed(2) + '%';
      li.append(word, track, prob);
      list.append(li);
    }
    const note = document.createElement('p');
    note.className = 'sampling-note';
    note.textContent = state.genTemperature === 0 ? t('samplingGreedy')
      : t('samplingKept', { kept: preview.kept, mass: (preview.keptMass * 100).toFixed(1) + '%' });
    rest.append(list, note);
  }

  return { render };
}
