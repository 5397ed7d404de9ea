// A minimal protobuf writer for the ONNX messages the benchmark needs (ModelProto, GraphProto,
// NodeProto, AttributeProto, TensorProto, ValueInfoProto), field numbers from onnx/onnx.proto.
// Messages are kept as lists of chunks so a 440 MB initializer is copied once, into the final
// buffer, not once per nesting level.

class Message {
  constructor() { this.chunks = []; this.length = 0; }
  push(bytes) { this.chunks.push(bytes); this.length += bytes.length; }
  varint(v) {
    let x = BigInt.asUintN(64, BigInt(v));  // negative int64 → two's complement, 10 bytes
    const out = [];
    do {
      let b = Number(x & 0x7fn);
      x >>= 7n;
      if (x) b |= 0x80;
      out.push(b);
    } while (x);
    this.push(Uint8Array.from(out));
  }
  tag(field, wire) { this.varint((field << 3) | wire); }
  int(field, v) { this.tag(field, 0); this.varint(v); return this; }
  float(field, v) {
    this.tag(field, 5);
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, v, true);
    this.push(b);
    return this;
  }
  bytes(field, bytes) { this.tag(field, 2); this.varint(bytes.length); this.push(bytes); return this; }
  string(field, s) { return this.bytes(field, new TextEncoder().encode(s)); }
  message(field, m) {
    this.tag(field, 2);
    this.varint(m.length);
    for (const c of m.chunks) this.push(c);
    return this;
  }
  toBytes() {
    const out = new Uint8Array(this.length);
    let o = 0;
    for (const c of this.chunks) { out.set(c, o); o += c.length; }
    return out;
  }
}

export const DataType = { FLOAT: 1, INT32: 6, INT64: 7 };

// TensorProto: dims = 1, data_type = 2, name = 8, raw_data = 9 (little-endian).
export function tensor(name, dataType, dims, typedArray) {
  const m = new Message();
  for (const d of dims) m.int(1, d);
  m.int(2, dataType);
  m.string(8, name);
  m.bytes(9, new Uint8Array(typedArray.buffer, typedArray.byteOffset, typedArray.byteLength));
  return m;
}

// AttributeProto: name = 1, f = 2, i = 3, ints = 8, type = 20 (FLOAT 1, INT 2, INTS 7).
// Values: an integer, an array of integers, or floatAttr(x) for a float.
export const floatAttr = (v) => ({ float: v });
function attribute(name, value) {
  const m = new Message().string(1, name);
  if (Array.isArray(value)) { for (const v of value) m.int(8, v); m.int(20, 7); }
  else if (typeof value === 'object') { m.float(2, value.float); m.int(20, 1); }
  else { m.int(3, value); m.int(20, 2); }
  return m;
}

// NodeProto: input = 1, output = 2, name = 3, op_type = 4, attribute = 5, domain = 7.
export function node(opType, inputs, outputs, attrs = {}, domain = '') {
  const m = new Message();
  for (const i of inputs) m.string(1, i);
  for (const o of outputs) m.string(2, o);
  m.string(3, `${opType}_${outputs[0]}`);
  m.string(4, opType);
  for (const [k, v] of Object.entries(attrs)) m.message(5, attribute(k, v));
  if (domain) m.string(7, domain);
  return m;
}

// ValueInfoProto: name = 1, type = 2 → TypeProto.tensor_type = 1 → elem_type = 1, shape = 2 →
// dim = 1 → dim_value = 1.
export function valueInfo(name, elemType, dims) {
  const shape = new Message();
  for (const d of dims) shape.message(1, new Message().int(1, d));
  const tensorType = new Message().int(1, elemType).message(2, shape);
  return new Message().string(1, name).message(2, new Message().message(1, tensorType));
}

// GraphProto: node = 1, name = 2, initializer = 5, input = 11, output = 12.
// ModelProto: ir_version = 1, producer_name = 2, graph = 7, opset_import = 8 (domain 1, version 2).
export function model({ nodes, initializers, inputs, outputs, opset = 17, name = 'graph' }) {
  const g = new Message();
  for (const n of nodes) g.message(1, n);
  g.string(2, name);
  for (const t of initializers) g.message(5, t);
  for (const i of inputs) g.message(11, i);
  for (const o of outputs) g.message(12, o);
  const m = new Message().int(1, 8).string(2, 'attnscope-bench').message(7, g);
  m.message(8, new Message().string(1, '').int(2, opset));
  return m.toBytes();
}
