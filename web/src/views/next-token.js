// The next-token panel (decoders): for the selected position, the model's top guesses for the
// token after it — what it expected at that point of the text — and the rank of the token that
// actually follows. Reads result.nextByPosition (a run with nextAll), or, while a generation is
// streaming, the entries built from each step's candidates. Hidden for encoders.
import { isDecoderOnly } from '../model/causal-mask.js';
import { tokenName } from '../draw/pickers.js';
import { createSamplingPreview } from './sampling-preview.js';
import { candidateItem } from './text-nodes.js';

export function createNextTokenPanel(host, app) {
  const title = document.createElement('h3');
  const lead = document.createElement('p');
  lead.className = 'next-lead';
  const list = document.createElement('ol');
  list.className = 'next-list';
  const actual = document.createElement('p');
  actual.className = 'next-actual';
  host.append(title, lead, list, actual);
  const sampling = createSamplingPreview(host, app);   // after the last position, with temperature, top-k, top-p

  function render() {
    sampling.render();
    const r = app.result;
    const entries = r?.nextByPosition;
    host.hidden = !isDecoderOnly(app) || !entries;
    if (host.hidden) return;
    const { t, state } = app;
    const texts = r.tokenTexts ?? r.tokens;
    const p = Math.min(state.query, texts.length - 1);
    const entry = entries.find((e) => e.position === p);
    title.textContent = t('nextTitle');
    host.dataset.position = String(p);
    list.replaceChildren();
    if (!entry) {
      lead.textContent = t('nextHint');
      actual.textContent = '';
      return;
    }
    lead.textContent = t('nextFor', { token: tokenName(p, texts[p]) });
    for (const [k, c] of entry.top.entries()) {
      const li = candidateItem(c, 'next-word');
      li.dataset.id = String(c.id);
      if (entry.actual && entry.actual.id === c.id) li.className = 'is-actual';
      li.title = `#${k + 1}`;
      list.append(li);
    }
    const a = entry.actual;
    actual.dataset.rank = a ? String(a.rank) : '';
    actual.textContent = a
      ? t('nextActual', { token: a.text ?? a.token, rank: a.rank === null || a.rank === undefined ? '?' : a.rank + 1, prob: fmtProb(a.prob) })
      : t('nextLast');
  }

  return { render };
}

function fmtProb(p) {
  return p >= 0.001 ? p.toFixed(3) : p.toExponential(1);
}
