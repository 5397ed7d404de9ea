// What differs between two sentences' token lists: the same tokens in another order (only the
// positions differ), or different tokens (the tokenizer split the words differently, as GPT-2's
// byte-level BPE does with "There is" / "Is there": T·here·␣is vs I·s·␣there). The positions
// views say which, rather than assume the words' embeddings are the same.

/** { sameTokens, onlyA, onlyB }: the tokens (as multisets) each list has that the other lacks. */
export function compareTokenLists(a, b) {
  const count = new Map();
  for (const t of a) count.set(t, (count.get(t) ?? 0) + 1);
  const onlyB = [];
  for (const t of b) {
    const n = count.get(t) ?? 0;
    if (n > 0) count.set(t, n - 1);
    else onlyB.push(t);
  }
  const onlyA = [];
  const left = new Map(count);
  for (const t of a) {
    if ((left.get(t) ?? 0) > 0) { onlyA.push(t); left.set(t, left.get(t) - 1); }
  }
  return { sameTokens: onlyA.length === 0 && onlyB.length === 0, onlyA, onlyB };
}

/** The sentence saying it, in the UI's language (keys in i18n-llama.js). */
export function tokenComparisonText(t, a, b) {
  const c = compareTokenLists(a, b);
  if (c.sameTokens) return t('tokensSameOrder', { n: a.length });
  return t('tokensDiffer', { a: a.join('·'), b: b.join('·'), onlyA: c.onlyA.join(' ') || '—', onlyB: c.onlyB.join(' ') || '—' });
}
