// Reads a safetensors file of F32 tensors (the fixtures' expected outputs): {name: {shape, data}}.
import { readFileSync } from 'node:fs';

export function readSafetensors(path) {
  const buf = readFileSync(path);
  const n = Number(buf.readBigUInt64LE(0));
  const header = JSON.parse(buf.subarray(8, 8 + n));
  const out = {};
  for (const [name, t] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const [b, e] = t.data_offsets;
    out[name] = { shape: t.shape, data: new Float32Array(buf.buffer.slice(buf.byteOffset + 8 + n + b, buf.byteOffset + 8 + n + e)) };
  }
  return out;
}
