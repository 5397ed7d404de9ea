// The same random BERT / DistilBERT as an ONNX graph (opset 17) for onnxruntime-web, op by op as
// the Hugging Face exporters write it: Gather embeddings + LayerNormalization, then per layer
// MatMul+Add for Q/K/V, Reshape/Transpose to heads, MatMul, Mul by 1/√dh, Add mask, Softmax,
// MatMul, Transpose/Reshape, MatMul+Add, residual Add, LayerNormalization, MatMul+Add, GELU as
// Div/Erf/Add/Mul/Mul, MatMul+Add, residual Add, LayerNormalization. ORT is free to fuse it.
import { DataType, floatAttr, graphParts, model, node, valueInfo } from './onnx-writer.mjs';
import { linearMatMul } from './onnx-linear.mjs';


// Inputs: input_ids int64 [1, T], mask_bias float [1, 1, 1, T] (0 = attend, −inf/−1e4 = masked).
// Output: last_hidden_state [1, T, C].
// weights 'q8': every linear layer's MatMul as onnxruntime's quantize_dynamic writes it
// (onnx-linear.mjs), then the bias Add. Everything else stays f32.
export function bertOnnx({ shape, tensors }, T, { weights = 'f32' } = {}) {
  const { family, layers: L, hidden: C, heads: H, ffn: F, eps } = shape;
  const dh = C / H, distil = family === 'distilbert';
  const parts = graphParts(tensors);
  const { inits, nodes, f32, i64, op, W } = parts;

  const e = distil ? 'distilbert.embeddings.' : 'bert.embeddings.';
  f32('word', [30522, C], W(`${e}word_embeddings.weight`));
  f32('pos', [512, C], W(`${e}position_embeddings.weight`));
  i64('pos_ids', [1, T], Array.from({ length: T }, (_, i) => i));
  let x = op('Add', [op('Gather', ['word', 'input_ids'], 'we', { axis: 0 }), op('Gather', ['pos', 'pos_ids'], 'pe', { axis: 0 })], 'e0');
  if (!distil) {
    f32('type', [2, C], W(`${e}token_type_embeddings.weight`));
    i64('type_ids', [1, T], new Array(T).fill(0));
    x = op('Add', [x, op('Gather', ['type', 'type_ids'], 'te', { axis: 0 })], 'e1');
  }
  const layerNorm = (inp, prefix, out) => {
    f32(`${out}_g`, [C], W(`${prefix}.weight`));
    f32(`${out}_b`, [C], W(`${prefix}.bias`));
    return op('LayerNormalization', [inp, `${out}_g`, `${out}_b`], out, { axis: -1, epsilon: floatAttr(eps) });
  };
  x = layerNorm(x, `${e}LayerNorm`, 'x_emb');

  i64('shape_heads', [4], [1, T, H, dh]);
  i64('shape_flat', [3], [1, T, C]);
  f32('scale', [], Float32Array.of(1 / Math.sqrt(dh)));
  f32('sqrt2', [], Float32Array.of(Math.SQRT2));
  f32('one', [], Float32Array.of(1));
  f32('half', [], Float32Array.of(0.5));

  for (let l = 0; l < L; l++) {
    const p = distil ? `distilbert.transformer.layer.${l}.` : `bert.encoder.layer.${l}.`;
    const n = distil
      ? { q: 'attention.q_lin', k: 'attention.k_lin', v: 'attention.v_lin', o: 'attention.out_lin', ln1: 'sa_layer_norm', fi: 'ffn.lin1', fo: 'ffn.lin2', ln2: 'output_layer_norm' }
      : { q: 'attention.self.query', k: 'attention.self.key', v: 'attention.self.value', o: 'attention.output.dense', ln1: 'attention.output.LayerNorm', fi: 'intermediate.dense', fo: 'output.dense', ln2: 'output.LayerNorm' };
    const linear = (inp, key, inDim, outDim, out) => {
      f32(`${out}_bias`, [outDim], W(`${p}${n[key]}.bias`));
      return op('Add', [linearMatMul(parts, inp, W(`${p}${n[key]}.weight`), outDim, inDim, `${out}_mm`, weights), `${out}_bias`], out);
    };
    const heads = (inp, perm, out) => op('Transpose', [op('Reshape', [inp, 'shape_heads'], `${out}_r`)], out, { perm });
    const q = heads(linear(x, 'q', C, C, `l${l}_q`), [0, 2, 1, 3], `l${l}_qh`);
    const kT = heads(linear(x, 'k', C, C, `l${l}_k`), [0, 2, 3, 1], `l${l}_kt`);
    const v = heads(linear(x, 'v', C, C, `l${l}_v`), [0, 2, 1, 3], `l${l}_vh`);
    const scores = op('Add', [op('Mul', [op('MatMul', [q, kT], `l${l}_s`), 'scale'], `l${l}_ss`), 'mask_bias'], `l${l}_sm`);
    const probs = op('Softmax', [scores], `l${l}_p`, { axis: -1 });
    const ctx = op('Reshape', [op('Transpose', [op('MatMul', [probs, v], `l${l}_c`)], `l${l}_ct`, { perm: [0, 2, 1, 3] }), 'shape_flat'], `l${l}_cf`);
    const attnOut = op('Add', [linear(ctx, 'o', C, C, `l${l}_o`), x], `l${l}_res1`);
    const x1 = layerNorm(attnOut, `${p}${n.ln1}`, `l${l}_x1`);
    const f = linear(x1, 'fi', C, F, `l${l}_fi`);
    const erf = op('Erf', [op('Div', [f, 'sqrt2'], `l${l}_fd`)], `l${l}_fe`);
    const gelu = op('Mul', [op('Mul', [f, op('Add', [erf, 'one'], `l${l}_fa`)], `l${l}_fm`), 'half'], `l${l}_g`);
    const ffOut = op('Add', [linear(gelu, 'fo', F, C, `l${l}_fo`), x1], `l${l}_res2`);
    x = layerNorm(ffOut, `${p}${n.ln2}`, `l${l}_x2`);
  }
  nodes.push(node('Identity', [x], ['last_hidden_state']));
  return model({
    nodes,
    initializers: inits,
    inputs: [valueInfo('input_ids', DataType.INT64, [1, T]), valueInfo('mask_bias', DataType.FLOAT, [1, 1, 1, T])],
    outputs: [valueInfo('last_hidden_state', DataType.FLOAT, [1, T, C])],
  });
}
