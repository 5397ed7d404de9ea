// What the Patching view proposes when the link does not say: a corrupted prompt (the bundled
// example's own for its clean prompt, else the clean prompt with one content word replaced) and
// the two tokens compared (the clean run's top prediction; the corrupted run's top, or the clean
// run's second when both runs agree). Suggestions only: the view says so and the reader can type
// their own. No DOM here (Node tests read it).

/** The bundled decoder's example: where the model sends "he" in the evening depends on one word
 *  earlier in the sentence (README, "Asking why"). */
export const PATCHING_EXAMPLE = Object.freeze({
  clean: 'In the morning he went to church, and in the evening he went to',
  corrupted: 'In the morning he went to school, and in the evening he went to',
  answer: ' church',
  wrong: ' school',
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
  if (clean === PATCHING_EXAMPLE.clean && corrupted === PATCHING_EXAMPLE.corrupted) {
    return { answer: { token: PATCHING_EXAMPLE.answer }, wrong: { token: PATCHING_EXAMPLE.wrong } };
  }
  const answer = cleanTop?.[0];
  const other = corruptedTop?.[0];
  const wrong = other && other.id !== answer?.id ? other : cleanTop?.[1];
  return { answer, wrong };
}

/** Whether a prediction entry is the token a state value names (its vocabulary token or its text). */
export const namesToken = (value, entry) => Boolean(entry) && (value === entry.token || value === entry.text);
