// Reads and writes safetensors files for the tests, fixture scripts and benchmarks: a u64 LE
// header length, a JSON header (padded with spaces so the data starts 8-byte aligned), then each
// tensor's little-endian bytes in header order.
import { readFileSync } from 'node:fs';

const BYTES = { F32: 4, F16: 2, BF16: 2 };

/** Reads a file of F32 tensors (the fixtures' expected outputs): {name: {shape, data}}. */
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

/**
 * The header of a file holding `entries` ([name, dtype, shape] in file order; metadata, if given,
 * as __metadata__), length prefix included: write it, then the tensors' bytes in the same order
 * (writers of large files stream the data rather than build it in memory).
 */
export function safetensorsHeader(entries, metadata) {
  const header = metadata ? { __metadata__: metadata } : {};
  let offset = 0;
  for (const [name, dtype, shape] of entries) {
    const bytes = BYTES[dtype] * shape.reduce((a, b) => a * b, 1);
    header[name] = { dtype, shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (json.length % 8)) % 8);
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(json.length));
  return Buffer.concat([length, Buffer.from(json)]);
}

/** A whole file of F32 tensors from {name: {shape, data: Float32Array}}, in insertion order. */
export function safetensorsBytes(tensors, metadata) {
  const list = Object.entries(tensors);
  const head = safetensorsHeader(list.map(([name, t]) => [name, 'F32', t.shape]), metadata);
  return Buffer.concat([head, ...list.map(([, t]) => Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength))]);
}
