// The same random GPT-2 as an ONNX graph (opset 17) of its prefill for onnxruntime-web, op by op as
// the Hugging Face exporter writes GPT2Model: Gather wte + wpe, then per block (pre-LN)
// LayerNormalization, one MatMul+Add for the fused c_attn and a Split into q|k|v, Reshape/Transpose
// to heads, MatMul, Mul by 1/√dh, Add the causal bias, Softmax, MatMul, Transpose/Reshape, c_proj
// MatMul+Add, residual Add; LayerNormalization, c_fc MatMul+Add, gelu_new as
// Pow/Mul/Add/Mul/Tanh/Add/Mul/Mul, c_proj MatMul+Add, residual Add; finally ln_f. Conv1D weights are
// already [in, out], MatMul's B. ORT is free to fuse it.
import { DataType, causalBias, floatAttr, graphParts, model, node, valueInfo } from './onnx-writer.mjs';

// Input: input_ids int64 [1, T]. Outputs: last_hidden_state [1, T, C] (after ln_f) and, with
// { attentions: true }, attn_0 … attn_{L-1} [1, H, T, T], each layer's softmax probabilities (what
// AttnScope returns; the exporter's output_attentions).
export function gpt2Onnx({ shape, tensors }, T, { attentions = true } = {}) {
  const { layers: L, hidden: C, heads: H, ffn: F, eps, vocab, positions } = shape;
  const dh = C / H;
  const { inits, nodes, f32, i64, op, W } = graphParts(tensors);

  f32('wte', [vocab, C], W('transformer.wte.weight'));
  f32('wpe', [positions, C], W('transformer.wpe.weight'));
  i64('pos_ids', [1, T], Array.from({ length: T }, (_, i) => i));
  let x = op('Add', [op('Gather', ['wte', 'input_ids'], 'we', { axis: 0 }), op('Gather', ['wpe', 'pos_ids'], 'pe', { axis: 0 })], 'x_emb');

  f32('causal_bias', [1, 1, T, T], causalBias(T));
  i64('shape_heads', [4], [1, T, H, dh]);
  i64('shape_flat', [3], [1, T, C]);
  i64('split_qkv', [3], [C, C, C]);
  f32('scale', [], Float32Array.of(1 / Math.sqrt(dh)));
  f32('half', [], Float32Array.of(0.5));
  f32('one', [], Float32Array.of(1));
  f32('three', [], Float32Array.of(3));
  f32('gelu_c', [], Float32Array.of(0.044715));
  f32('sqrt_2_over_pi', [], Float32Array.of(Math.sqrt(2 / Math.PI)));

  const layerNorm = (inp, prefix, out) => {
    f32(`${out}_g`, [C], W(`${prefix}.weight`));
    f32(`${out}_b`, [C], W(`${prefix}.bias`));
    return op('LayerNormalization', [inp, `${out}_g`, `${out}_b`], out, { axis: -1, epsilon: floatAttr(eps) });
  };
  const attentionOutputs = [];
  for (let l = 0; l < L; l++) {
    const p = `transformer.h.${l}.`;
    const conv1d = (inp, name, inDim, outDim, out) => {
      f32(`${out}_w`, [inDim, outDim], W(`${p}${name}.weight`));
      f32(`${out}_bias`, [outDim], W(`${p}${name}.bias`));
      return op('Add', [op('MatMul', [inp, `${out}_w`], `${out}_mm`), `${out}_bias`], out);
    };
    const h = layerNorm(x, `${p}ln_1`, `l${l}_ln1`);
    const qkv = conv1d(h, 'attn.c_attn', C, 3 * C, `l${l}_qkv`);
    nodes.push(node('Split', [qkv, 'split_qkv'], [`l${l}_q`, `l${l}_k`, `l${l}_v`], { axis: 2 }));
    const heads = (inp, perm, out) => op('Transpose', [op('Reshape', [inp, 'shape_heads'], `${out}_r`)], out, { perm });
    const q = heads(`l${l}_q`, [0, 2, 1, 3], `l${l}_qh`);
    const kT = heads(`l${l}_k`, [0, 2, 3, 1], `l${l}_kt`);
    const v = heads(`l${l}_v`, [0, 2, 1, 3], `l${l}_vh`);
    const scores = op('Add', [op('Mul', [op('MatMul', [q, kT], `l${l}_s`), 'scale'], `l${l}_ss`), 'causal_bias'], `l${l}_sm`);
    const probs = op('Softmax', [scores], attentions ? `attn_${l}` : `l${l}_p`, { axis: -1 });
    if (attentions) attentionOutputs.push(probs);
    const ctx = op('Reshape', [op('Transpose', [op('MatMul', [probs, v], `l${l}_c`)], `l${l}_ct`, { perm: [0, 2, 1, 3] }), 'shape_flat'], `l${l}_cf`);
    x = op('Add', [conv1d(ctx, 'attn.c_proj', C, C, `l${l}_o`), x], `l${l}_res1`);
    const h2 = layerNorm(x, `${p}ln_2`, `l${l}_ln2`);
    const f = conv1d(h2, 'mlp.c_fc', C, F, `l${l}_fc`);
    // gelu_new: 0.5·f·(1 + tanh(√(2/π)·(f + 0.044715·f³)))
    const cubic = op('Mul', [op('Pow', [f, 'three'], `l${l}_f3`), 'gelu_c'], `l${l}_f3c`);
    const inner = op('Mul', [op('Add', [f, cubic], `l${l}_fin`), 'sqrt_2_over_pi'], `l${l}_fs`);
    const gate = op('Add', [op('Tanh', [inner], `l${l}_ft`), 'one'], `l${l}_fg`);
    const gelu = op('Mul', [op('Mul', [f, 'half'], `l${l}_fh`), gate], `l${l}_gelu`);
    x = op('Add', [conv1d(gelu, 'mlp.c_proj', F, C, `l${l}_mo`), x], `l${l}_res2`);
  }
  x = layerNorm(x, 'transformer.ln_f', 'ln_f');
  nodes.push(node('Identity', [x], ['last_hidden_state']));
  return model({
    nodes,
    initializers: inits,
    inputs: [valueInfo('input_ids', DataType.INT64, [1, T])],
    outputs: [valueInfo('last_hidden_state', DataType.FLOAT, [1, T, C]),
      ...attentionOutputs.map((name) => valueInfo(name, DataType.FLOAT, [1, H, T, T]))],
  });
}
