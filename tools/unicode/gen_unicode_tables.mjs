// Generates engine/tokenizer/unicode_tables.cpp: the Unicode data the BERT tokenizer needs (general
// category, canonical combining class, full canonical decompositions, NFC's primary composites,
// lowercase mappings, White_Space), read from the Unicode Character Database Debian ships in /usr/share/unicode.
// Not a general Unicode library: only the properties the tokenizer stages consult.
// Usage: node tools/unicode/gen_unicode_tables.mjs [UCD_DIR] [OUT_FILE]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const ucdDir = process.argv[2] ?? '/usr/share/unicode';
const outFile = process.argv[3] ?? path.join(here, '../../engine/tokenizer/unicode_tables.cpp');

// Must stay in the order of enum class Category in unicode_tables.h.
const CATEGORIES = ['Lu', 'Ll', 'Lt', 'Lm', 'Lo', 'Mn', 'Mc', 'Me', 'Nd', 'Nl', 'No', 'Pc', 'Pd',
  'Ps', 'Pe', 'Pi', 'Pf', 'Po', 'Sm', 'Sc', 'Sk', 'So', 'Zs', 'Zl', 'Zp', 'Cc', 'Cf', 'Cs', 'Co',
  'Cn'];
const MAX_CP = 0x10ffff;
const HANGUL_FIRST = 0xac00, HANGUL_LAST = 0xd7a3;

const read = (name) => fs.readFileSync(path.join(ucdDir, name), 'utf8');
const version = /DerivedAge-(\d+\.\d+\.\d+)\.txt/.exec(read('DerivedAge.txt'))?.[1];
if (!version) throw new Error('cannot find the Unicode version in DerivedAge.txt');

// --- UnicodeData.txt: category per code point, ccc, decompositions, simple lowercase.
const category = new Uint8Array(MAX_CP + 1).fill(CATEGORIES.indexOf('Cn'));
const ccc = new Uint8Array(MAX_CP + 1);
const decomposition = new Map();  // cp -> [cp...] (canonical only, one level)
const lowercase = new Map();      // cp -> [cp...]
let rangeStart = null;
for (const line of read('UnicodeData.txt').split('\n')) {
  if (!line.trim()) continue;
  const f = line.split(';');
  const cp = parseInt(f[0], 16);
  const cat = CATEGORIES.indexOf(f[2]);
  if (cat < 0) throw new Error(`unknown category ${f[2]} at ${f[0]}`);
  if (f[1].endsWith(', First>')) { rangeStart = cp; continue; }
  const first = f[1].endsWith(', Last>') ? rangeStart : cp;
  for (let c = first; c <= cp; c++) { category[c] = cat; ccc[c] = Number(f[3]); }
  if (f[5] && !f[5].startsWith('<')) decomposition.set(cp, f[5].split(' ').map((h) => parseInt(h, 16)));
  if (f[13]) lowercase.set(cp, [parseInt(f[13], 16)]);
}

// SpecialCasing.txt: unconditional lowercase mappings override the simple ones (U+0130 → i + U+0307),
// as Rust's char::to_lowercase does. Conditional (language/context) entries are ignored, as Rust does.
for (const line of read('SpecialCasing.txt').split('\n')) {
  const data = line.split('#')[0].trim();
  if (!data) continue;
  const f = data.split(';').map((s) => s.trim());
  if (f.length > 4 && f[4] !== '') continue;  // has a condition
  const cp = parseInt(f[0], 16);
  const lower = f[1].split(' ').map((h) => parseInt(h, 16));
  if (!(lower.length === 1 && lower[0] === cp)) lowercase.set(cp, lower);
  else if (lowercase.has(cp)) lowercase.delete(cp);
}

// PropList.txt: White_Space (what Rust's char::is_whitespace tests).
const whiteSpace = [];
for (const line of read('PropList.txt').split('\n')) {
  const m = /^([0-9A-F]+)(?:\.\.([0-9A-F]+))?\s*;\s*White_Space\b/.exec(line);
  if (m) whiteSpace.push([parseInt(m[1], 16), parseInt(m[2] ?? m[1], 16)]);
}

// DerivedNormalizationProps.txt: Full_Composition_Exclusion. The canonical pairs of the other
// characters are the primary composites NFC recomposes (Hangul is algorithmic in C++).
const excluded = new Set();
for (const line of read('DerivedNormalizationProps.txt').split('\n')) {
  const m = /^([0-9A-F]+)(?:\.\.([0-9A-F]+))?\s*;\s*Full_Composition_Exclusion\b/.exec(line);
  if (m) for (let c = parseInt(m[1], 16); c <= parseInt(m[2] ?? m[1], 16); c++) excluded.add(c);
}
const compositions = [...decomposition].filter(([cp, d]) => d.length === 2 && !excluded.has(cp))
  .map(([cp, d]) => [d[0], d[1], cp]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);

// Full (recursive) canonical decompositions; Hangul syllables are decomposed algorithmically in C++.
const fullDecomposition = (cp) => {
  const d = decomposition.get(cp);
  return d ? d.flatMap(fullDecomposition) : [cp];
};
const decompEntries = [...decomposition.keys()].sort((a, b) => a - b).map((cp) => [cp, fullDecomposition(cp)]);
const maxDecomposition = Math.max(...decompEntries.map(([, d]) => d.length));

// Runs of equal values are what keep the tables small: (first_cp << 8 | value), binary searched.
function runs(values) {
  const out = [];
  for (let c = 0; c <= MAX_CP; c++) if (c === 0 || values[c] !== values[c - 1]) out.push([c, values[c]]);
  return out;
}
const categoryRuns = runs(category);
const cccRuns = runs(ccc);

const hex = (n) => '0x' + n.toString(16).toUpperCase();
const wrap = (items, perLine) => {
  const lines = [];
  for (let i = 0; i < items.length; i += perLine) lines.push('    ' + items.slice(i, i + perLine).join(', ') + ',');
  return lines.join('\n');
};

const simpleLower = [...lowercase].filter(([, l]) => l.length === 1).sort((a, b) => a[0] - b[0]);
const multiLower = [...lowercase].filter(([, l]) => l.length > 1).sort((a, b) => a[0] - b[0]);
if (multiLower.some(([, l]) => l.length > 3)) throw new Error('lowercase mapping longer than 3');

// The larger tables are stored packed: rows of columns, each column as the difference from the
// row before (zigzag, LEB128 bytes). Sorted code points differ by little, so the bytes gzip to a
// third of plain 32-bit arrays (the wasm every embedded figure downloads); unicode_tables_lookup.cpp
// unpacks each table once, on first use.
function pack(rows) {
  const bytes = [];
  const previous = new Array(rows[0]?.length ?? 0).fill(0);
  for (const row of rows) {
    row.forEach((value, column) => {
      const delta = value - previous[column];
      previous[column] = value;
      let z = delta < 0 ? -2 * delta - 1 : 2 * delta;
      do {
        const low = z % 128;
        z = Math.floor(z / 128);
        bytes.push(z ? low + 128 : low);
      } while (z);
    });
  }
  return wrap(bytes.map(String), 24);
}

const out = `// GENERATED by tools/unicode/gen_unicode_tables.mjs from the Unicode Character Database
// ${version} (Debian unicode-data: UnicodeData.txt, SpecialCasing.txt, PropList.txt,
// DerivedNormalizationProps.txt). Do not edit;
// rerun the generator. Lookup code lives in unicode_tables_lookup.cpp.
// The *Packed tables are rows of columns, each column stored as the difference from the row
// before, zigzag-coded, in LEB128 bytes (unpacked once by unicode_tables_lookup.cpp).
#include "tokenizer/unicode_tables.h"

namespace attnscope::tok::unicode_data {

const char kUnicodeVersion[] = "${version}";

// Runs of equal category: {first code point, Category} (${categoryRuns.length} runs).
const uint8_t kCategoryRunsPacked[] = {
${pack(categoryRuns)}
};
const size_t kCategoryRunsCount = ${categoryRuns.length};

// Runs of equal canonical combining class: {first code point, class} (${cccRuns.length} runs).
const uint8_t kCombiningClassRunsPacked[] = {
${pack(cccRuns)}
};
const size_t kCombiningClassRunsCount = ${cccRuns.length};

// Full canonical decompositions (already recursive, not yet canonically ordered): {code point,
// length, its ${maxDecomposition} code points (0 past length)}, sorted. A column per position
// keeps À, Á, Â... (A + U+0300, U+0301, U+0302) a run of small differences. Hangul syllables are
// algorithmic.
const uint8_t kDecompositionsPacked[] = {
${pack(decompEntries.map(([cp, d]) => [cp, d.length, ...Array.from({ length: maxDecomposition }, (_, i) => d[i] ?? 0)]))}
};
const size_t kDecompositionsCount = ${decompEntries.length};

// Lowercase mappings to one code point: {from, to}, sorted by from.
const uint8_t kLowercaseSimplePacked[] = {
${pack(simpleLower.map(([c, l]) => [c, l[0]]))}
};
const size_t kLowercaseSimpleCount = ${simpleLower.length};

// Unconditional SpecialCasing lowercase mappings to several code points: {from, n, to...}.
const uint32_t kLowercaseMulti[][5] = {
${wrap(multiLower.map(([c, l]) => `{${hex(c)}, ${l.length}, ${[0, 1, 2].map((i) => hex(l[i] ?? 0)).join(', ')}}`), 2)}
};
const size_t kLowercaseMultiCount = ${multiLower.length};

// Primary composites for NFC: {first, second, composite}, sorted by (first, second).
const uint8_t kCompositionsPacked[] = {
${pack(compositions)}
};
const size_t kCompositionsCount = ${compositions.length};

// White_Space ranges {first, last}.
const uint32_t kWhiteSpace[][2] = {
${wrap(whiteSpace.map(([a, b]) => `{${hex(a)}, ${hex(b)}}`), 6)}
};
const size_t kWhiteSpaceCount = ${whiteSpace.length};

static_assert(${maxDecomposition} == kMaxDecomposition, "kDecompositionsPacked has kMaxDecomposition code points a row: set it to ${maxDecomposition} in unicode_tables.h");

}  // namespace attnscope::tok::unicode_data
`;
fs.writeFileSync(outFile, out);
console.log(`unicode ${version}: ${categoryRuns.length} category runs, ${cccRuns.length} ccc runs, ` +
  `${decompEntries.length} decompositions (max ${maxDecomposition}), ${simpleLower.length}+${multiLower.length} lowercase, ` +
  `${whiteSpace.length} White_Space ranges -> ${outFile}`);
