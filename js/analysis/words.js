// Word-level attention: sub-word tokens merged back into the words a reader typed, so a split
// word ("em ##bed ##ding", "Ġemb edding", "▁em bed ding") reads as one row and one column.
// Clark et al. 2019 ("What does BERT look at?"): attention *to* a word is the sum over its
// pieces (the probability mass it receives), attention *from* a word the mean over its pieces'
// rows — so each word row still sums to 1. Not a tokenizer: it reads the offsets a run returns.

/**
 * A word is a maximal run of tokens whose character spans touch (or overlap: the byte tokens of
 * one character share its span) with no whitespace between them; every special token ([CLS],
 * <s>, …) and every token without a span (runIds has no text) is a word of its own.
 * @param {{tokens: string[], offsets: Int32Array, specialTokensMask: Uint8Array}} encoding
 * @param {string} text the text the offsets index (UTF-16)
 * @returns {{text: string, start: number, end: number, tokens: number[]}[]}
 */
export function findWords(encoding, text) {
  const { offsets, specialTokensMask } = encoding;
  const count = offsets.length / 2;
  const words = [];
  let current = null;  // the word the previous token belongs to, while it can still grow
  for (let t = 0; t < count; t++) {
    const start = offsets[2 * t], end = offsets[2 * t + 1];
    const alone = specialTokensMask[t] === 1 || end <= start;
    if (alone) {
      const label = encoding.tokenTexts?.[t] ?? encoding.tokens[t];
      words.push({ text: label, start, end, tokens: [t] });
      current = null;
      continue;
    }
    const joins = current !== null && start <= current.end && !isSpace(text[start]) && !isSpace(text[current.end - 1]);
    if (joins) {
      current.tokens.push(t);
      current.end = Math.max(current.end, end);
    } else {
      current = { start, end, tokens: [t] };
      words.push(current);
    }
  }
  // A byte-level token's span includes the space before it ("Ġworld" covers " world"): the word
  // is the text without that leading space.
  return words.map((word) => {
    if (word.text !== undefined) return word;
    let { start } = word;
    while (start < word.end && isSpace(text[start])) start++;
    const label = text.slice(start, word.end) || word.tokens.map((t) => encoding.tokenTexts?.[t] ?? encoding.tokens[t]).join('');
    return { text: label, start, end: word.end, tokens: word.tokens };
  });
}

/**
 * Merges one head's T×T probabilities into W×W: row a is the mean of the rows of a's pieces,
 * column b the sum of b's pieces' columns.
 * @param {Float32Array} attention T×T, row-major
 * @param {{tokens: number[]}[]} words from findWords
 * @param {number} tokenCount T
 * @param {Float32Array} [out] W×W to write into
 */
export function mergeHead(attention, words, tokenCount, out = new Float32Array(words.length ** 2)) {
  const W = words.length;
  const wordOf = new Int32Array(tokenCount);
  words.forEach((word, w) => { for (const t of word.tokens) wordOf[t] = w; });
  out.fill(0);
  for (let a = 0; a < W; a++) {
    const pieces = words[a].tokens;
    const row = out.subarray(a * W, (a + 1) * W);
    for (const i of pieces) {
      const from = attention.subarray(i * tokenCount, (i + 1) * tokenCount);
      for (let j = 0; j < tokenCount; j++) row[wordOf[j]] += from[j];
    }
    for (let b = 0; b < W; b++) row[b] /= pieces.length;
  }
  return out;
}

/**
 * Every head of a run merged: {words, wordAttentions} with wordAttentions [L][H][W][W] flat.
 * @param {{shape: number[], attentions: Float32Array, tokens: string[], offsets: Int32Array,
 *   specialTokensMask: Uint8Array}} result a RunResult (or its plain fields)
 * @param {string} text the text that was run
 */
export function wordAttentions(result, text) {
  const [L, H, T] = result.shape;
  const words = findWords(result, text);
  const W = words.length;
  const merged = new Float32Array(L * H * W * W);
  for (let lh = 0; lh < L * H; lh++) {
    mergeHead(result.attentions.subarray(lh * T * T, (lh + 1) * T * T), words, T, merged.subarray(lh * W * W, (lh + 1) * W * W));
  }
  return { words, wordAttentions: merged };
}

function isSpace(char) {
  return char !== undefined && /\s/u.test(char);
}
