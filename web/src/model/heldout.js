// A model folder's heldout.jsonl (js/analysis/alignment-accuracy.js reads it): the known alignment of the
// run on screen when its source and typed target are one of the file's pairs. Read when a model
// loads: from the picked files, or beside a URL / bundled folder's config.json.
import { alignmentAccuracy, findHeldout, parseHeldout } from '../../../js/analysis/alignment-accuracy.js';

export const HELDOUT_FILE = 'heldout.jsonl';
const MAX_BYTES = 4 * 1024 * 1024;   // a bigger file is not a held-out sample: skipped

/** The pairs of the folder `source` came from ([] when it has none or it cannot be read). */
export async function readHeldout(source, baseUrl) {
  try {
    if (typeof source === 'string') {
      if (!baseUrl) return [];
      const response = await fetch(new URL(HELDOUT_FILE, baseUrl));
      if (!response.ok) return [];
      const text = await response.text();
      return text.length > MAX_BYTES ? [] : parseHeldout(text);
    }
    const file = [...(source ?? [])].find((f) => (f.webkitRelativePath || f.name).split('/').pop() === HELDOUT_FILE);
    return file && file.size <= MAX_BYTES ? parseHeldout(await file.text()) : [];
  } catch {
    return [];
  }
}

const scored = new WeakMap();   // result → { pair, score } | null

/** The run's pair in heldout.jsonl and its heads' alignment accuracy, or null (no pair, a
 *  generated target other than the pair's, a target still being written, or an alignment that
 *  does not fit the tokens). */
export function knownAlignment(app) {
  const r = app.original;
  // A target still being written (target-stream.js) is no pair's: it is scored once it is whole.
  if (!r?.seq2seq || r.streamed || !app.heldout?.length) return null;
  if (!scored.has(r)) {
    const pair = app.generated ? generatedPair(app, r) : findHeldout(app.heldout, app.state.text, app.state.target);
    const raw = r.seq2seq;
    const score = pair && alignmentAccuracy(raw.crossAttentions, raw.crossShape, pair.alignment);
    scored.set(r, score ? { pair, score } : null);
  }
  return scored.get(r);
}

// A generated target is scored only when the model wrote the held-out target itself: the same
// words once the tokenizer's normalisation (lowercase, accents off, punctuation split) is undone
// on both sides. Then the decoder ran the pair's tokens and its alignment applies row for row.
function generatedPair(app, r) {
  const pair = findHeldout(app.heldout, app.state.text);
  return pair && sameWords(wordsOfTokens(r.targets?.tokens, r.targets?.special), wordsOfText(pair.target)) ? pair : null;
}

// The words of WordPiece tokens: specials dropped, '##' pieces joined to the word before.
export function wordsOfTokens(tokens = [], special = []) {
  const words = [];
  tokens.forEach((tok, i) => {
    if (special[i]) return;
    if (tok.startsWith('##') && words.length) words[words.length - 1] += tok.slice(2);
    else words.push(tok);
  });
  return words;
}

// A text as BERT's normaliser and pre-tokenizer cut it: lowercase, accents stripped, split at
// spaces and around each punctuation character (ASCII symbols count as punctuation, as in BERT).
const PUNCT = String.raw`\p{P}!-\/:-@\[-\x60{-~`;
const WORD_OR_PUNCT = new RegExp(`[${PUNCT}]|[^\\s${PUNCT}]+`, 'gu');
export function wordsOfText(text) {
  return text.normalize('NFD').replace(/\p{Mn}/gu, '').toLowerCase().match(WORD_OR_PUNCT) ?? [];
}

const sameWords = (a, b) => a.length === b.length && a.every((w, i) => w === b[i]);
