// The same random Llama as an ONNX graph (opset 17) of its prefill for onnxruntime-web, op by op
// as the Hugging Face exporter writes LlamaModel: Gather embed_tokens, then per layer RMSNorm as
// Pow/ReduceMean/Add/Sqrt/Div/Mul, q/k/v MatMuls, Reshape/Transpose to heads, rotary as
// x·cos + rotate_half(x)·sin (Split/Neg/Concat, cos and sin constants), repeat_kv as
// Unsqueeze/Expand/Reshape, MatMul, Mul by 1/√dh, Add the causal bias, Softmax, MatMul, o_proj,
// residual Add; RMSNorm, gate/up MatMuls, SiLU as x·Sigmoid(x), Mul, down MatMul, residual Add;
// finally the norm. nn.Linear weights are transposed to MatMul's B [in, out]. ORT may fuse it.
import { DataType, causalBias, graphParts, model, node, transposed, valueInfo } from './onnx-writer.mjs';

// Input: input_ids int64 [1, T]. Outputs: last_hidden_state [1, T, C] (after the final norm) and,
// with { attentions: true }, attn_0 … attn_{L-1} [1, H, T, T] (per query head).
export function llamaOnnx({ shape, tensors }, T, { attentions = true } = {}) {
  const { layers: L, hidden: C, heads: H, kvHeads: KV, ffn: F, eps, vocab, ropeTheta, headDim: dh } = shape;
  const { inits, nodes, f32, i64, op, W } = graphParts(tensors);

  f32('embed', [vocab, C], W('model.embed_tokens.weight'));
  let x = op('Gather', ['embed', 'input_ids'], 'x_emb', { axis: 0 });

  f32('causal_bias', [1, 1, T, T], causalBias(T));
  // cos / sin of cat(freqs, freqs), freqs = position · θ^(−2i/dh) (computed in double, as ours)
  const cos = new Float32Array(T * dh), sin = new Float32Array(T * dh);
  for (let t = 0; t < T; t++) {
    for (let i = 0; i < dh / 2; i++) {
      const angle = t / ropeTheta ** (2 * i / dh);
      cos[t * dh + i] = cos[t * dh + i + dh / 2] = Math.cos(angle);
      sin[t * dh + i] = sin[t * dh + i + dh / 2] = Math.sin(angle);
    }
  }
  f32('rope_cos', [1, 1, T, dh], cos);
  f32('rope_sin', [1, 1, T, dh], sin);
  i64('shape_q', [4], [1, T, H, dh]);
  i64('shape_kv', [4], [1, T, KV, dh]);
  i64('expand_kv', [5], [1, KV, H / KV, T, dh]);
  i64('shape_rep', [4], [1, H, T, dh]);
  i64('shape_flat', [3], [1, T, H * dh]);
  i64('split_half', [2], [dh / 2, dh / 2]);
  i64('axis_2', [1], [2]);
  f32('scale', [], Float32Array.of(1 / Math.sqrt(dh)));
  f32('two', [], Float32Array.of(2));
  f32('eps', [], Float32Array.of(eps));

  const rmsNorm = (inp, weight, out) => {
    f32(`${out}_w`, [C], W(weight));
    const ms = op('ReduceMean', [op('Pow', [inp, 'two'], `${out}_sq`)], `${out}_ms`, { axes: [-1], keepdims: 1 });
    const rms = op('Sqrt', [op('Add', [ms, 'eps'], `${out}_mse`)], `${out}_rms`);
    return op('Mul', [op('Div', [inp, rms], `${out}_n`), `${out}_w`], out);
  };
  const linear = (inp, weight, outDim, inDim, out) => {
    f32(`${out}_w`, [inDim, outDim], transposed(W(weight), outDim, inDim));
    return op('MatMul', [inp, `${out}_w`], out);
  };
  const rotary = (inp, out) => {
    nodes.push(node('Split', [inp, 'split_half'], [`${out}_x1`, `${out}_x2`], { axis: -1 }));
    const rotated = op('Concat', [op('Neg', [`${out}_x2`], `${out}_nx2`), `${out}_x1`], `${out}_rot`, { axis: -1 });
    return op('Add', [op('Mul', [inp, 'rope_cos'], `${out}_c`), op('Mul', [rotated, 'rope_sin'], `${out}_s`)], out);
  };
  const attentionOutputs = [];
  for (let l = 0; l < L; l++) {
    const p = `model.layers.${l}.`;
    const h = rmsNorm(x, `${p}input_layernorm.weight`, `l${l}_ln1`);
    const heads = (inp, shapeName, out) => op('Transpose', [op('Reshape', [inp, shapeName], `${out}_r`)], out, { perm: [0, 2, 1, 3] });
    const q = rotary(heads(linear(h, `${p}self_attn.q_proj.weight`, H * dh, C, `l${l}_q`), 'shape_q', `l${l}_qh`), `l${l}_qr`);
    const k = rotary(heads(linear(h, `${p}self_attn.k_proj.weight`, KV * dh, C, `l${l}_k`), 'shape_kv', `l${l}_kh`), `l${l}_kr`);
    const v = heads(linear(h, `${p}self_attn.v_proj.weight`, KV * dh, C, `l${l}_v`), 'shape_kv', `l${l}_vh`);
    const repeat = (inp, out) => op('Reshape', [op('Expand', [op('Unsqueeze', [inp, 'axis_2'], `${out}_u`), 'expand_kv'], `${out}_e`), 'shape_rep'], out);
    const kT = op('Transpose', [repeat(k, `l${l}_kx`)], `l${l}_kt`, { perm: [0, 1, 3, 2] });
    const scores = op('Add', [op('Mul', [op('MatMul', [q, kT], `l${l}_s`), 'scale'], `l${l}_ss`), 'causal_bias'], `l${l}_sm`);
    const probs = op('Softmax', [scores], attentions ? `attn_${l}` : `l${l}_p`, { axis: -1 });
    if (attentions) attentionOutputs.push(probs);
    const ctx = op('Reshape', [op('Transpose', [op('MatMul', [probs, repeat(v, `l${l}_vx`)], `l${l}_c`)], `l${l}_ct`, { perm: [0, 2, 1, 3] }), 'shape_flat'], `l${l}_cf`);
    x = op('Add', [linear(ctx, `${p}self_attn.o_proj.weight`, C, H * dh, `l${l}_o`), x], `l${l}_res1`);
    const h2 = rmsNorm(x, `${p}post_attention_layernorm.weight`, `l${l}_ln2`);
    const gate = linear(h2, `${p}mlp.gate_proj.weight`, F, C, `l${l}_gate`);
    const up = linear(h2, `${p}mlp.up_proj.weight`, F, C, `l${l}_up`);
    const silu = op('Mul', [gate, op('Sigmoid', [gate], `l${l}_sig`)], `l${l}_silu`);
    x = op('Add', [linear(op('Mul', [silu, up], `l${l}_glu`), `${p}mlp.down_proj.weight`, C, F, `l${l}_down`), x], `l${l}_res2`);
  }
  x = rmsNorm(x, 'model.norm.weight', 'norm');
  nodes.push(node('Identity', [x], ['last_hidden_state']));
  return model({
    nodes,
    initializers: inits,
    inputs: [valueInfo('input_ids', DataType.INT64, [1, T])],
    outputs: [valueInfo('last_hidden_state', DataType.FLOAT, [1, T, C]),
      ...attentionOutputs.map((name) => valueInfo(name, DataType.FLOAT, [1, H, T, T]))],
  });
}
