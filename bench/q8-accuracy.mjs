// `node bench/q8-accuracy.mjs [--tokens 128] [--inputs 4]`: weightPrecision 'q8' against 'f32' on
// random checkpoints of real shapes (bench/random-model.mjs: bert-base, gpt2-small; the same
// weights for both), on random token ids: max and mean |Δ attention| over every map, the last
// hidden state's relative error and, for GPT-2 (tied LM head), how often the next-token top-1
// agrees. Random weights give near-flat next-token distributions, so their agreement is a harder
// test than a trained model's; the trained models' figures are tests/js/q8-accuracy.test.js's.
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import { loadModel } from '../js/index.js';
import { randomBert, randomGpt2, writeHfFolder } from './random-model.mjs';

const { values: args } = parseArgs({ options: { tokens: { type: 'string', default: '128' }, inputs: { type: 'string', default: '4' } } });
const T = Number(args.tokens), INPUTS = Number(args.inputs);
console.log(`CPU: ${cpus()[0].model}, load average ${loadavg()[0].toFixed(2)}; ${INPUTS} random inputs of ${T} tokens, 1 thread`);

let seed = 12345;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
const work = mkdtempSync(join(tmpdir(), 'attnscope-q8-accuracy-'));
try {
  for (const [name, m] of [['bert-base', randomBert('bert-base', 1)], ['gpt2-small', randomGpt2('gpt2-small', 1)]]) {
    const dir = join(work, name);
    writeHfFolder(dir, m);
    const f32 = await loadModel(dir, { weightPrecision: 'f32', threads: 1 });
    const q8 = await loadModel(dir, { weightPrecision: 'q8', threads: 1 });
    let max = 0, sum = 0, n = 0, agree = 0, positions = 0, hiddenErr = 0, hiddenNorm = 0;
    for (let i = 0; i < INPUTS; i++) {
      const ids = Array.from({ length: T }, () => 5 + Math.floor(rand() * (f32.config.vocabSize - 5)));
      const options = f32.config.isDecoder ? { topK: 1, nextAll: true } : {};
      const [a, b] = [await f32.runIds(ids, options), await q8.runIds(ids, options)];
      for (let j = 0; j < a.attentions.length; j++) {
        const d = Math.abs(a.attentions[j] - b.attentions[j]);
        max = Math.max(max, d);
        sum += d;
      }
      n += a.attentions.length;
      for (let j = 0; j < a.hidden.length; j++) { hiddenErr += (a.hidden[j] - b.hidden[j]) ** 2; hiddenNorm += a.hidden[j] ** 2; }
      if (a.nextByPosition) {
        a.nextByPosition.forEach((e, p) => { agree += Number(e.top[0].id === b.nextByPosition[p].top[0].id); positions++; });
      }
    }
    console.log(`${name}: |Δ attention| max ${max.toFixed(4)}, mean ${(sum / n).toExponential(2)}; last hidden state ` +
      `${(100 * Math.sqrt(hiddenErr / hiddenNorm)).toFixed(2)}% relative` +
      (positions ? `; next-token top-1 = f32's at ${agree}/${positions} (${(100 * agree / positions).toFixed(1)}%)` : '') +
      `; memory ${(f32.info.memoryBytes / 2 ** 20).toFixed(0)} MB f32, ${(q8.info.memoryBytes / 2 ** 20).toFixed(0)} MB q8`);
    f32.dispose();
    q8.dispose();
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
