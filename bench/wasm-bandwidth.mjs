// The memory bandwidth a WebAssembly module gets on this machine: the limit of a generation step,
// which reads every weight once (bench/decode.mjs divides the bytes of weights a token reads by it).
// A tiny module (wat below, compiled with wabt) on one shared WebAssembly.Memory, run by `threads`
// worker_threads at once, each on its own buffers of `megabytes` (far larger than any cache):
//  - copy: memory.copy of the buffer into a second one (V8 lowers it to a memmove); bandwidth =
//    bytes copied / time (each byte read once and written once);
//  - read: a SIMD128 loop of 16-byte loads into four xor accumulators (the weights' access: read
//    only); bandwidth = bytes read / time.
// Each pass is timed from the message that starts every worker to the last one's answer, in wall
// time (bytes / second) and in this process's CPU time (bytes / CPU-second of all its threads: what
// a pass costs when other processes share the cores, comparable with a token's CPU time); the first
// pass (page faults) is dropped and the best of `reps` is the figure (other processes' load only
// ever slows a pass down), the median next to it.
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import initWabt from 'wabt';

import { cpuMs, median } from './clock.mjs';

const WAT = `(module
  (import "env" "memory" (memory 1 65536 shared))
  (func (export "copy") (param $dst i32) (param $src i32) (param $n i32)
    (memory.copy (local.get $dst) (local.get $src) (local.get $n)))
  (func (export "read") (param $p i32) (param $n i32) (result i32)
    (local $end i32) (local $a v128) (local $b v128) (local $c v128) (local $d v128)
    (local.set $end (i32.add (local.get $p) (local.get $n)))
    (loop $l
      (local.set $a (v128.xor (local.get $a) (v128.load offset=0 (local.get $p))))
      (local.set $b (v128.xor (local.get $b) (v128.load offset=16 (local.get $p))))
      (local.set $c (v128.xor (local.get $c) (v128.load offset=32 (local.get $p))))
      (local.set $d (v128.xor (local.get $d) (v128.load offset=48 (local.get $p))))
      (local.set $p (i32.add (local.get $p) (i32.const 64)))
      (br_if $l (i32.lt_u (local.get $p) (local.get $end))))
    (i32x4.extract_lane 0 (v128.xor (v128.xor (local.get $a) (local.get $b)) (v128.xor (local.get $c) (local.get $d))))))`;

async function compiled() {
  const wabt = await initWabt();
  const parsed = wabt.parseWat('bandwidth.wat', WAT, { threads: true, bulk_memory: true, simd: true });
  try { return new WebAssembly.Module(parsed.toBinary({}).buffer); } finally { parsed.destroy(); }
}

/**
 * { threads, megabytes, copy, read }, each {wall: {best, median}, cpu: {best, median}} in GB/s for
 * `threads` workers at once (aggregate: all their bytes over the pass's time). GB = 1e9 bytes.
 */
export async function measureBandwidth({ threads = 1, megabytes = 128, reps = 7 } = {}) {
  const bytes = megabytes * 2 ** 20;
  const pages = Math.ceil((threads * 2 * bytes) / 65536) + 1;
  const memory = new WebAssembly.Memory({ initial: pages, maximum: pages, shared: true });
  new Uint8Array(memory.buffer).fill(1);  // real pages: a page never written reads as the one shared zero page
  const module = await compiled();
  const workers = Array.from({ length: threads }, (_, i) => new Worker(new URL(import.meta.url), {
    workerData: { module, memory, src: 65536 + 2 * i * bytes, dst: 65536 + (2 * i + 1) * bytes, bytes },
  }));
  const pass = async (kind) => {
    const t0 = performance.now(), c0 = cpuMs();
    await Promise.all(workers.map((w) => new Promise((resolve) => { w.once('message', resolve); w.postMessage(kind); })));
    const gb = threads * bytes / 1e9;
    return { wall: gb / ((performance.now() - t0) / 1e3), cpu: gb / ((cpuMs() - c0) / 1e3) };
  };
  try {
    const out = { threads, megabytes };
    for (const kind of ['copy', 'read']) {
      await pass(kind);  // page faults, first touch
      const rates = [];
      for (let i = 0; i < reps; i++) rates.push(await pass(kind));
      const summary = (clock) => ({ best: Math.max(...rates.map((r) => r[clock])), median: median(rates.map((r) => r[clock])) });
      out[kind] = { wall: summary('wall'), cpu: summary('cpu') };
    }
    return out;
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}

if (!isMainThread && workerData?.module) {
  const { module, memory, src, dst, bytes } = workerData;
  const { exports } = new WebAssembly.Instance(module, { env: { memory } });
  parentPort.on('message', (kind) => {
    if (kind === 'copy') exports.copy(dst, src, bytes);
    else exports.read(src, bytes);
    parentPort.postMessage(kind);
  });
}
