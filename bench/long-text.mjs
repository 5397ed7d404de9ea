// A text far longer than the model can take (50 MB), through tokenize() or run() on a
// bundled model: wall time, this process's peak RSS and the wasm heap's size afterwards. One
// measurement per process, so the peak is that call's. A figure to read, not a test. E.g.
//   node bench/long-text.mjs --model bundled --call run [--mb 50] [--threads N] [--root DIR]
// --threads: loadModel's threads (default its own default); CPU seconds are reported beside the
// wall time because the machine may be shared.
// --root: a tree with js/ and dist/ (default this one), to measure a build from before a change.
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const args = process.argv.slice(2);
const opt = (name, fallback) => { const i = args.indexOf(`--${name}`); return i >= 0 ? args[i + 1] : fallback; };
const root = path.resolve(opt('root', path.join(path.dirname(new URL(import.meta.url).pathname), '..')));
const modelName = opt('model', 'bundled');
const call = opt('call', 'tokenize');
const megabytes = Number(opt('mb', 50));
const threads = opt('threads', undefined) === undefined ? undefined : Number(opt('threads'));

const api = await import(pathToFileURL(path.join(root, 'js/index.js')).href);
// Prose with punctuation, numbers and a few non-ASCII words, repeated to the size asked for.
const unit = 'The quick brown fox jumps over the lazy dog, again and again (1999–2024); naïve café owners said “no”. ';
const text = unit.repeat(Math.ceil((megabytes * 1e6) / unit.length)).slice(0, megabytes * 1e6);

const model = await api.loadModel(api.bundledModelLocations[modelName], threads === undefined ? {} : { threads });
const cpuBefore = process.cpuUsage();
const started = performance.now();
let out = null;
let error = null;
try {
  out = call === 'run' ? await model.run(text) : model.tokenize(text);
} catch (e) {
  error = `${e.code ?? ''} ${e.message}`.trim();
}
const seconds = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpuBefore);
const heap = await api.heapStats(threads === undefined ? {} : { threads });
console.log(JSON.stringify({
  model: modelName, call, textMB: megabytes, threads: threads ?? 'default', seconds: Number(seconds.toFixed(2)),
  cpuSeconds: Number(((cpu.user + cpu.system) / 1e6).toFixed(2)),
  peakRssMB: Math.round(process.resourceUsage().maxRSS / 1024),
  wasmMemoryMB: Math.round(heap.memoryBytes / 1e6),
  ...(error ? { error } : { tokens: out.tokens.length, numTruncated: out.numTruncated }),
}));
model.dispose();
