// The ONNX messages the benchmark needs, built as plain objects and encoded with onnx-proto (the
// protobufjs classes generated from onnx/onnx.proto). Only what bert-onnx.mjs uses: tensors with
// raw little-endian data, nodes with int / ints / float attributes, typed graph inputs/outputs.
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

export function model({ nodes, initializers, inputs, outputs, opset = 17, name = 'graph' }) {
  return onnx.ModelProto.encode({
    irVersion: 8,
    producerName: 'attnscope-bench',
    graph: { node: nodes, name, initializer: initializers, input: inputs, output: outputs },
    opsetImport: [{ domain: '', version: opset }],
  }).finish();
}
