// `node bench/t5-q8.mjs`: weightPrecision 'q8' on an encoder–decoder — the t5-small-shaped random
// T5 of bench/t5.mjs loaded at f32, f16 and q8: the memory each takes, the top-1 agreement of q8
// with f32 at every position of random targets (teacher-forced: both see the same prefix), and one
// generation's time at each precision.
//   node bench/t5-q8.mjs [--sources 2] [--source-tokens 64] [--new-tokens 32] [--runs 3]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';

import { randomT5, writeHfFolder } from './random-model.mjs';
import { median, timed } from './clock.mjs';

const repo = resolve(import.meta.dirname, '..');
const { values: args } = parseArgs({
  options: {
    sources: { type: 'string', default: '2' },
    'source-tokens': { type: 'string', default: '64' },
    'new-tokens': { type: 'string', default: '32' },
    runs: { type: 'string', default: '3' },
  },
});
const SOURCES = Number(args.sources), S = Number(args['source-tokens']), NEW_TOKENS = Number(args['new-tokens']);
const RUNS = Math.max(1, Number(args.runs));
const { loadModel } = await import(pathToFileURL(join(repo, 'js/index.js')));
const cpu = (() => {
  try { return execFileSync('lscpu', { encoding: 'utf8' }).match(/Model name:\s*(.+)/)?.[1]?.trim() ?? 'unknown'; } catch { return 'unknown'; }
})();
const randomIds = (n, seed, V) => { let r = seed >>> 0; return Int32Array.from({ length: n }, () => 2 + ((r = (r * 1103515245 + 12345) >>> 0) % (V - 2))); };

const m = randomT5('t5-small', 1);
const work = mkdtempSync(join(tmpdir(), 'attnscope-bench-t5q8-'));
const load0 = loadavg();
try {
  writeHfFolder(join(work, 'model'), m);
  const models = {};
  for (const weightPrecision of ['f32', 'f16', 'q8']) models[weightPrecision] = await loadModel(join(work, 'model'), { threads: 1, weightPrecision });
  const sources = Array.from({ length: SOURCES }, (_, i) => {
    const ids = randomIds(S, 1000 + i, m.shape.vocab);
    ids[S - 1] = m.config.eos_token_id;
    return ids;
  });
  const generate = (model, ids) => model.generate(ids, { maxNewTokens: NEW_TOKENS, temperature: 0, stopAtEos: false, candidates: 0 });
  // Teacher-forced over a random target: at every position both precisions see the same prefix
  // (a random model's own greedy output repeats one token, which would make agreement trivial).
  let agree = 0, positions = 0;
  const distinct = new Set(), probs = [];
  for (const [i, ids] of sources.entries()) {
    const target = [...randomIds(NEW_TOKENS, 5000 + i, m.shape.vocab)];
    for (let k = 0; k < NEW_TOKENS; k++) {
      const options = { targetIds: target.slice(0, k), topK: 1 };
      const [a, b] = [await models.f32.runIds(ids, options), await models.q8.runIds(ids, options)];
      positions++;
      distinct.add(a.next[0].id);
      if (a.next[0].id === b.next[0].id) agree++;
      probs.push(a.next[0].prob);
    }
  }
  const times = { f32: [], f16: [], q8: [] };
  for (let i = 0; i < RUNS; i++) for (const p of Object.keys(times)) times[p].push(await timed(() => generate(models[p], sources[0])));
  console.log(`CPU: ${cpu}; 1 thread; load average ${load0.map((x) => x.toFixed(2)).join(' ')} → ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  console.log(`t5-small shape (random weights), ${SOURCES} sources of ${S} tokens, random targets of ${NEW_TOKENS}`);
  console.log(`q8 top-1 = f32 top-1 at ${agree}/${positions} target positions (${(100 * agree / positions).toFixed(1)}%, teacher-forced; ` +
    `${distinct.size} distinct f32 top-1 ids; median f32 top-1 probability ${median(probs).toFixed(4)})\n`);
  console.log('| weights | model memory MB | generation ms (cpu, median) |');
  console.log('|---|---|---|');
  for (const p of ['f32', 'f16', 'q8']) console.log(`| ${p} | ${(models[p].info.memoryBytes / 2 ** 20).toFixed(1)} | ${median(times[p].map((t) => t.cpu)).toFixed(0)} |`);
  for (const model of Object.values(models)) model.dispose();
} finally {
  rmSync(work, { recursive: true, force: true });
}
