// What the Patching view proposes when the link does not say: a corrupted prompt (the bundled
// example's own for its clean prompt, else the clean prompt with one content word replaced) and
// the two tokens compared (the clean run's top prediction; the corrupted run's top, or the clean
// run's second when both runs agree) and, for an encoder–decoder, the target the decoder has
// written so far. Suggestions only: the view says so and the reader can type their own. No DOM
// here (Node tests read it).

/** The bundled decoder's example: where the model sends "he" in the evening depends on one word
 *  earlier in the sentence (README, "Asking why"). */
export const PATCHING_EXAMPLE = Object.freeze({
  clean: 'In the morning he went to church, and in the evening he went to',
  corrupted: 'In the morning he went to school, and in the evening he went to',
  answer: ' church',
  wrong: ' school',
});

/** The bundled encoder–decoder's example (model-seq2seq/: English rewritten into subject–object–verb
 *  order, tools/train/seq2seq_data.py). A verb group moves to the end of its clause only when a
 *  noun follows it, so after the target's "the man" the model goes on with "a" ("the man a doctor
 *  was .") when the source ends in "a doctor", and with "was" when it ends in "a little": the grid
 *  of the encoder's residual stream shows where in the source that decision is read. */
export const PATCHING_SEQ2SEQ_EXAMPLE = Object.freeze({
  clean: 'The man was a doctor.',
  corrupted: 'The man was a little.',
  prefix: 'The man',
  answer: 'a',
  wrong: 'was',
  stack: 'encoder',
});

// Short words that rarely carry what a prediction depends on; replacing one says little.
const FUNCTION_WORDS = new Set(['the', 'and', 'was', 'were', 'his', 'her', 'she', 'they', 'them', 'that', 'this',
  'with', 'from', 'for', 'but', 'not', 'had', 'have', 'has', 'are', 'its', 'into', 'then', 'than', 'there',
  'their', 'when', 'what', 'which', 'who', 'would', 'could', 'been', 'will', 'because', 'mask', 'cls', 'sep']);
// Common nouns a small English model knows, tried in turn as the replacement.
const REPLACEMENTS = ['house', 'river', 'school', 'church', 'city', 'night', 'water', 'dog', 'man', 'car'];
// A word that splits into pieces cannot take a one-piece replacement: try a few words, a few each.
const CONTENT_WORDS_TRIED = 3;
const REPLACEMENTS_PER_WORD = 4;

/**
 * Corruptions of `text` to try, best first: { text, from, to, example } (from/to: the word
 * replaced and its replacement; example: the bundled example's own). The view keeps the first whose token count
 * matches the clean prompt's (patching needs two prompts of the same length).
 */
export function corruptionCandidates(text) {
  if (text === PATCHING_EXAMPLE.clean) return [{ text: PATCHING_EXAMPLE.corrupted, from: 'church', to: 'school', example: true }];
  if (text === PATCHING_SEQ2SEQ_EXAMPLE.clean) return [{ text: PATCHING_SEQ2SEQ_EXAMPLE.corrupted, from: 'doctor', to: 'little', example: true }];
  const words = [...text.matchAll(/\p{L}{3,}/gu)]
    .filter((m) => !FUNCTION_WORDS.has(m[0].toLowerCase()) && text[m.index - 1] !== '[')
    .slice(0, CONTENT_WORDS_TRIED);
  const out = [];
  for (const m of words) {
    const word = m[0];
    const upper = word[0] !== word[0].toLowerCase();
    for (const r of REPLACEMENTS.filter((x) => x !== word.toLowerCase()).slice(0, REPLACEMENTS_PER_WORD)) {
      const to = upper ? r[0].toUpperCase() + r.slice(1) : r;
      out.push({ text: text.slice(0, m.index) + to + text.slice(m.index + word.length), from: word, to, example: false });
    }
  }
  return out;
}

/** The top predictions of a run where patching reads its logits: after the last token (decoders)
 *  or at the first [MASK] (encoders), or null. */
export function topPredictions(run, decoder) {
  if (decoder) return run?.next ?? null;
  return run?.maskPredictions?.[0]?.top ?? null;
}

/**
 * The answer and wrong tokens when the link names none: the clean run's top prediction, and the
 * corrupted run's top unless it is the same token, then the clean run's second. The bundled
 * example's own prompts compare its own tokens (" church", " school"), which is what it is about.
 * Entries are { id, token, text, prob }; returns { answer, wrong } (either may be undefined).
 */
export function defaultAnswers(cleanTop, corruptedTop, clean = null, corrupted = null) {
  for (const ex of [PATCHING_EXAMPLE, PATCHING_SEQ2SEQ_EXAMPLE]) {
    if (clean === ex.clean && corrupted === ex.corrupted) return { answer: { token: ex.answer }, wrong: { token: ex.wrong } };
  }
  const answer = cleanTop?.[0];
  const other = corruptedTop?.[0];
  const wrong = other && other.id !== answer?.id ? other : cleanTop?.[1];
  return { answer, wrong };
}

/** Whether a prediction entry is the token a state value names (its vocabulary token or its text). */
export const namesToken = (value, entry) => Boolean(entry) && (value === entry.token || value === entry.text);

/**
 * An encoder–decoder's target so far when the link names none: the bundled example's own for its
 * source, else the run's target (`target`: its tokens after the decoder's start token, special
 * ones left out) up to the first token the corruption changed in the source — the answer is then
 * that word against the corrupted one's — or the whole target when it holds none of them (a
 * translation's words are not its source's). Returns { text } (the example's) or { length, word }
 * (how many of `target` it keeps; the changed word found, or null).
 */
export function defaultPrefix(cleanText, cleanSource, corruptedSource, target) {
  if (cleanText === PATCHING_SEQ2SEQ_EXAMPLE.clean) return { text: PATCHING_SEQ2SEQ_EXAMPLE.prefix };
  const changed = new Set(cleanSource.filter((tok, i) => tok !== corruptedSource[i]));
  const at = target.findIndex((tok) => changed.has(tok));
  return at < 0 ? { length: target.length, word: null } : { length: at, word: target[at] };
}
