// The formula view's extra step for decoders: the causal mask. Before the softmax, −∞ is added to
// the score of every key after the query, so e^−∞ = 0 and those keys get no weight at all; this
// step names the keys it hides (or says that the last token sees every key).
import { tokenName } from '../draw/pickers.js';

const MAX_NAMED = 12;   // a long input names the first few hidden keys and counts the rest

/** A <p class="step mask-step"> explaining the mask for query `i` of the tokens `texts`. */
export function maskStep(app, i, texts) {
  const p = document.createElement('p');
  p.className = 'step mask-step';
  const hidden = [];
  for (let j = i + 1; j < texts.length; j++) hidden.push(j);
  p.dataset.hidden = hidden.join(',');
  const named = hidden.slice(0, MAX_NAMED).map((j) => tokenName(j, texts[j])).join(', ') +
    (hidden.length > MAX_NAMED ? ' ' + app.t('maskMore', { n: hidden.length - MAX_NAMED }) : '');
  p.textContent = hidden.length
    ? app.t('formulaMaskStep', { token: tokenName(i, texts[i]), keys: named, n: hidden.length })
    : app.t('formulaMaskNone', { token: tokenName(i, texts[i]) });
  return p;
}
