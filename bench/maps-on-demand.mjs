// Attention maps on demand (engine/attention_sources.h), measured: a 4-layer random-weight model of
// TinyLlama-1.1B's width (bench/random-model.mjs 'tinyllama-width-4l': 2,048 wide, 32 heads over 4
// key/value heads, FFN 5,632) runs 1,024 tokens with its maps kept on demand, then eagerly; prints
// what the result holds in wasm memory (r.memoryBytes) against the eager maps' 4·32·1,024²·4 B
// (512 MiB; the bar: at most a quarter of it), each run's time, the time to compute one
// map and all 128 of them, the wasm heap's peak and the process's, and checks every on-demand map
// equal to the eager one bit for bit.
//   node bench/maps-on-demand.mjs [--precision q8|f16|f32] [--tokens 1024] [--threads 1]
// The folder (~0.7 GB of f32 weights) is written once to $TMPDIR/attnscope-bench-tinyllama-width-4l.
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';

import { randomLlama, writeHfFolder } from './random-model.mjs';
import { timed } from './clock.mjs';

const repo = resolve(import.meta.dirname, '..');
const { values: args } = parseArgs({ options: {
  precision: { type: 'string', default: 'q8' },
  tokens: { type: 'string', default: '1024' },
  threads: { type: 'string', default: '1' },
} });
const T = Number(args.tokens), THREADS = Number(args.threads);
const { loadModel, heapStats } = await import(pathToFileURL(join(repo, 'js/index.js')));
const MiB = (bytes) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
const s = (ms) => `${(ms / 1000).toFixed(2)} s`;

const dir = join(tmpdir(), 'attnscope-bench-tinyllama-width-4l');
if (!existsSync(join(dir, 'model.safetensors'))) {
  console.log(`writing the random model to ${dir} …`);
  writeHfFolder(dir, randomLlama('tinyllama-width-4l'));
}
const load = await timed(() => loadModel(dir, { weightPrecision: args.precision, threads: THREADS }));
const model = load.value;
const { numLayers: L, numHeads: H } = model.config;
const ids = Int32Array.from({ length: T }, (_, t) => 5 + ((t * 7919) % (model.config.vocabSize - 5)));
const eagerMapsBytes = L * H * T * T * 4;

const lazy = await timed(() => model.runIds(ids, { maps: 'on-demand', topK: 0 }));
const r = lazy.value;
const heapAfterLazy = (await heapStats({ threads: THREADS })).memoryBytes;
const oneMap = await timed(() => r.attention(L - 1, H - 1));
const eager = await timed(() => model.runIds(ids, { maps: 'eager', topK: 0 }));
const e = eager.value;
let all = 0, differing = 0;
for (let l = 0; l < L; l++) {
  for (let h = 0; h < H; h++) {
    const t0 = performance.now();
    const map = r.attention(l, h);
    all += performance.now() - t0;
    const want = e.attention(l, h);
    if (!new Uint32Array(map.buffer, map.byteOffset, map.length).every((bits, i) => bits === new Uint32Array(want.buffer, want.byteOffset, want.length)[i])) differing++;
  }
}
const heapPeak = (await heapStats({ threads: THREADS })).memoryBytes;

console.log(`| ${L} layers × ${H} heads (KV ${model.config.numKeyValueHeads}), ${T} tokens, ${model.info.weightPrecision ?? args.precision}, ${THREADS} thread(s) | |`);
console.log('|---|---|');
console.log(`| r.memoryBytes (maps on demand) | ${MiB(r.memoryBytes)} = ${(r.memoryBytes / eagerMapsBytes).toFixed(3)} of the eager maps' ${MiB(eagerMapsBytes)} (bar: ≤ 0.25) |`);
console.log(`| load | ${s(load.wall)} wall |`);
console.log(`| run, maps on demand | ${s(lazy.wall)} wall, ${s(lazy.cpu)} CPU |`);
console.log(`| run, maps eager | ${s(eager.wall)} wall, ${s(eager.cpu)} CPU |`);
console.log(`| one map on demand (${T}×${T}) | ${oneMap.wall.toFixed(1)} ms |`);
console.log(`| all ${L * H} maps on demand | ${s(all)} |`);
console.log(`| wasm heap after the on-demand run | ${MiB(heapAfterLazy)} |`);
console.log(`| wasm heap peak (after the eager run) | ${MiB(heapPeak)} |`);
console.log(`| process peak RSS | ${MiB(process.resourceUsage().maxRSS * 1024)} |`);
console.log(`| maps differing from eager (bit for bit) | ${differing} of ${L * H} |`);
model.dispose();
if (differing || r.memoryBytes > eagerMapsBytes / 4) process.exitCode = 1;
