// Pre-tokenization for learning the causal model's BPE: splits the Brown training documents with
// GPT-2's pattern (the one Hugging Face's ByteLevel pre-tokenizer applies with use_regex: true)
// and maps each piece's UTF-8 bytes through GPT-2's byte-to-unicode table. Writes
// {byte-level word: count}; learn_bpe.py learns the merges from it. Node, not Python: JavaScript's
// `u` regexes have \p{L}/\p{N} and look-ahead, and Debian's python lacks the `regex` module.
//   node tools/train/bpe_words.mjs build/train-causal/docs.json build/train-causal/words.json
import { readFileSync, writeFileSync } from 'node:fs';

export const GPT2_PATTERN = /'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu;

// GPT-2's bytes_to_unicode: printable Latin-1 bytes stand for themselves, the other 68 bytes map
// to U+0100 upwards in byte order, so every byte is a visible, non-space character.
export function bytesToUnicode() {
  const printable = [];
  for (const [lo, hi] of [[0x21, 0x7e], [0xa1, 0xac], [0xae, 0xff]]) {
    for (let b = lo; b <= hi; b += 1) printable.push(b);
  }
  const table = new Array(256);
  let next = 0;
  for (let b = 0; b < 256; b += 1) {
    table[b] = printable.includes(b) ? String.fromCodePoint(b) : String.fromCodePoint(256 + next++);
  }
  return table;
}

const BYTE_CHAR = bytesToUnicode();
const utf8 = new TextEncoder();
export const byteLevel = (piece) => Array.from(utf8.encode(piece), (b) => BYTE_CHAR[b]).join('');

if (import.meta.url === `file://${process.argv[1]}`) {
  const [docsPath, outPath] = process.argv.slice(2);
  const docs = JSON.parse(readFileSync(docsPath, 'utf8'));
  const counts = new Map();
  for (const { text } of docs.train) {
    for (const piece of text.match(GPT2_PATTERN) ?? []) {
      const w = byteLevel(piece);
      counts.set(w, (counts.get(w) ?? 0) + 1);
    }
  }
  writeFileSync(outPath, JSON.stringify(Object.fromEntries(counts)));
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  console.log(`bpe words: ${counts.size} distinct pieces, ${total} pieces in ${docs.train.length} training documents`);
}
