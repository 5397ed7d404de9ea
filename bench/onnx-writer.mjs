// The ONNX messages the benchmark needs, built as plain objects and encoded with onnx-proto (the
// protobufjs classes generated from onnx/onnx.proto). Only what the bench graphs use: tensors with
// raw little-endian data, nodes with int / ints / float attributes, typed graph inputs/outputs, and
// the pieces every graph builder shares (graphParts, transposed, causalBias).
import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;
const AttributeType = onnx.AttributeProto.AttributeType;

export const DataType = {
  FLOAT: onnx.TensorProto.DataType.FLOAT, INT32: onnx.TensorProto.DataType.INT32, INT64: onnx.TensorProto.DataType.INT64,
  INT8: onnx.TensorProto.DataType.INT8, UINT8: onnx.TensorProto.DataType.UINT8,  // the q8 graph (bert-onnx.mjs)
};

export function tensor(name, dataType, dims, typedArray) {
  return { name, dataType, dims, rawData: new Uint8Array(typedArray.buffer, typedArray.byteOffset, typedArray.byteLength) };
}

// Attribute values: an integer, an array of integers, or floatAttr(x) for a float.
export const floatAttr = (v) => ({ float: v });
function attribute(name, value) {
  if (Array.isArray(value)) return { name, ints: value, type: AttributeType.INTS };
  if (typeof value === 'object') return { name, f: value.float, type: AttributeType.FLOAT };
  return { name, i: value, type: AttributeType.INT };
}

export function node(opType, inputs, outputs, attrs = {}, domain = '') {
  return {
    input: inputs, output: outputs, name: `${opType}_${outputs[0]}`, opType,
    attribute: Object.entries(attrs).map(([k, v]) => attribute(k, v)),
    ...(domain ? { domain } : {}),
  };
}

// A dimension is a number, or a name for one that varies between runs (t5-onnx.mjs's past length).
export function valueInfo(name, elemType, dims) {
  const dim = dims.map((d) => (typeof d === 'string' ? { dimParam: d } : { dimValue: d }));
  return { name, type: { tensorType: { elemType, shape: { dim } } } };
}

/**
 * A graph under construction over a model's tensors ({name: {data}}): its initializer and node
 * lists, and helpers that add to them and return the new value's name (op) or the initializer's.
 */
export function graphParts(tensors) {
  const inits = [], nodes = [];
  const init = (name, type, dims, data) => { inits.push(tensor(name, type, dims, data)); return name; };
  return {
    inits, nodes, init,
    f32: (name, dims, data) => init(name, DataType.FLOAT, dims, data),
    i64: (name, dims, values) => init(name, DataType.INT64, dims, BigInt64Array.from(values.map(BigInt))),
    op: (type, inputs, out, attrs) => { nodes.push(node(type, inputs, [out], attrs)); return out; },
    W: (name) => tensors[name].data,
  };
}

/** (rows, cols) → (cols, rows): an nn.Linear weight [out, in] as MatMul's B [in, out]. */
export function transposed(data, rows, cols) {
  const out = new Float32Array(rows * cols);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[c * rows + r] = data[r * cols + c];
  return out;
}

/** [T, T] additive causal mask: 0 on and below the diagonal, −1e9 above it (exp() of it is an
 *  exact 0, as Hugging Face's float32 minimum). */
export function causalBias(T) {
  const bias = new Float32Array(T * T);
  for (let q = 0; q < T; q++) for (let k = q + 1; k < T; k++) bias[q * T + k] = -1e9;
  return bias;
}

export function model({ nodes, initializers, inputs, outputs, opset = 17, name = 'graph' }) {
  return onnx.ModelProto.encode({
    irVersion: 8,
    producerName: 'attnscope-bench',
    graph: { node: nodes, name, initializer: initializers, input: inputs, output: outputs },
    opsetImport: [{ domain: '', version: opset }],
  }).finish();
}
