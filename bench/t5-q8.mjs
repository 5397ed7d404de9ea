// `node bench/t5-q8.mjs`: weightPrecision 'q8' on an encoder–decoder — the t5-small-shaped random
// T5 of bench/t5.mjs loaded at f32, f16 and q8: the memory each takes, the top-1 agreement of q8
// with f32 over f32's greedy targets (teacher-forced: at every position q8 sees f32's prefix, so
// one disagreement does not derail the rest), and one generation's time at each precision.
//   node bench/t5-q8.mjs [--sources 4] [--source-tokens 64] [--new-tokens 32] [--runs 3]
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
    sources: { type: 'string', default: '4' },
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
  const agreement = { f16: 0, q8: 0 }, probs = { f16: [], q8: [] };
  let positions = 0;
  const distinct = new Set();
  for (const ids of sources) {
    const target = [...(await generate(models.f32, ids)).ids];
    target.slice(1).forEach((id) => distinct.add(id));
    for (let k = 1; k < target.length; k++) {
      const prefix = target.slice(1, k);
      positions++;
      for (const p of ['f16', 'q8']) {
        const r = await models[p].runIds(ids, { targetIds: prefix, topK: 1 });
        if (r.next[0].id === target[k]) agreement[p]++;
        probs[p].push(r.next[0].prob);
      }
    }
  }
  const times = { f32: [], f16: [], q8: [] };
  for (let i = 0; i < RUNS; i++) for (const p of Object.keys(times)) times[p].push(await timed(() => generate(models[p], sources[0])));
  console.log(`CPU: ${cpu}; 1 thread; load average ${load0.map((x) => x.toFixed(2)).join(' ')} → ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  console.log(`t5-small shape (random weights), ${SOURCES} sources of ${S} tokens, ${NEW_TOKENS} greedy tokens each at f32 (${distinct.size} distinct ids)\n`);
  console.log('| weights | model memory MB | top-1 = f32 greedy (teacher-forced) | median top-1 prob | generation ms (cpu, median) |');
  console.log('|---|---|---|---|---|');
  for (const p of ['f32', 'f16', 'q8']) {
    const agree = p === 'f32' ? '(reference)' : `${agreement[p]}/${positions} (${(100 * agreement[p] / positions).toFixed(1)}%)`;
    const prob = p === 'f32' ? '' : median(probs[p]).toFixed(3);
    console.log(`| ${p} | ${(models[p].info.memoryBytes / 2 ** 20).toFixed(1)} | ${agree} | ${prob} | ${median(times[p].map((t) => t.cpu)).toFixed(0)} |`);
  }
  for (const model of Object.values(models)) model.dispose();
} finally {
  rmSync(work, { recursive: true, force: true });
}
