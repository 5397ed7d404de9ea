// The same random GPT-2 as ONNX graphs (opset 17) for onnxruntime-web, op by op as the Hugging Face
// exporter writes GPT2Model: Gather wte + wpe, then per block (pre-LN) LayerNormalization, one
// MatMul+Add for the fused c_attn and a Split into q|k|v, Reshape/Transpose to heads, MatMul, Mul by
// 1/√dh, Add the causal bias, Softmax, MatMul, Transpose/Reshape, c_proj MatMul+Add, residual Add;
// LayerNormalization, c_fc MatMul+Add, gelu_new as Pow/Mul/Add/Mul/Tanh/Add/Mul/Mul, c_proj
// MatMul+Add, residual Add; finally ln_f. Conv1D weights are already [in, out], MatMul's B. ORT is
// free to fuse it. Two graphs: the prefill (gpt2Onnx) and one generation step over the KV cache
// (gpt2DecoderWithPastOnnx, as Optimum's decoder_with_past_model, with the tied head).
import { DataType, causalBias, floatAttr, graphParts, model, node, transposed, valueInfo } from './onnx-writer.mjs';
import { linearMatMul } from './onnx-linear.mjs';

// What both graphs share: the initializers every block uses and the block's pieces. weights 'q8':
// every Conv1D's MatMul as quantize_dynamic writes it (onnx-linear.mjs).
function gpt2Parts({ shape, tensors }, weights = 'f32') {
  const { hidden: C, heads: H, eps } = shape;
  const dh = C / H;
  const g = graphParts(tensors);
  const { f32, i64, op, W } = g;
  i64('shape_heads', [4], [1, -1, H, dh]);
  i64('shape_flat', [3], [1, -1, C]);
  i64('split_qkv', [3], [C, C, C]);
  f32('scale', [], Float32Array.of(1 / Math.sqrt(dh)));
  f32('half', [], Float32Array.of(0.5));
  f32('one', [], Float32Array.of(1));
  f32('three', [], Float32Array.of(3));
  f32('gelu_c', [], Float32Array.of(0.044715));
  f32('sqrt_2_over_pi', [], Float32Array.of(Math.sqrt(2 / Math.PI)));
  const parts = {
    g,
    layerNorm(inp, prefix, out) {
      f32(`${out}_g`, [C], W(`${prefix}.weight`));
      f32(`${out}_b`, [C], W(`${prefix}.bias`));
      return op('LayerNormalization', [inp, `${out}_g`, `${out}_b`], out, { axis: -1, epsilon: floatAttr(eps) });
    },
    conv1d(inp, name, inDim, outDim, out) {
      f32(`${out}_bias`, [outDim], W(`${name}.bias`));
      if (weights === 'q8') return op('Add', [linearMatMul(g, inp, transposed(W(`${name}.weight`), inDim, outDim), outDim, inDim, `${out}_mm`, 'q8'), `${out}_bias`], out);
      f32(`${out}_w`, [inDim, outDim], W(`${name}.weight`));
      return op('Add', [op('MatMul', [inp, `${out}_w`], `${out}_mm`), `${out}_bias`], out);
    },
    heads: (inp, perm, out) => op('Transpose', [op('Reshape', [inp, 'shape_heads'], `${out}_r`)], out, { perm }),
    // softmax(q·kᵀ/√dh + bias)·v with kT [1, H, dh, keys], heads concatenated; [context, probs].
    attend(q, kT, v, bias, out, probsName) {
      const scores = op('Add', [op('Mul', [op('MatMul', [q, kT], `${out}_s`), 'scale'], `${out}_ss`), bias], `${out}_sm`);
      const probs = op('Softmax', [scores], probsName, { axis: -1 });
      return [op('Reshape', [op('Transpose', [op('MatMul', [probs, v], `${out}_c`)], `${out}_ct`, { perm: [0, 2, 1, 3] }), 'shape_flat'], `${out}_cf`), probs];
    },
    // ln_2, c_fc, gelu_new: 0.5·f·(1 + tanh(√(2/π)·(f + 0.044715·f³))), c_proj, residual.
    mlp(x, p, F, out) {
      const h2 = parts.layerNorm(x, `${p}ln_2`, `${out}_ln2`);
      const f = parts.conv1d(h2, `${p}mlp.c_fc`, C, F, `${out}_fc`);
      const cubic = op('Mul', [op('Pow', [f, 'three'], `${out}_f3`), 'gelu_c'], `${out}_f3c`);
      const inner = op('Mul', [op('Add', [f, cubic], `${out}_fin`), 'sqrt_2_over_pi'], `${out}_fs`);
      const gate = op('Add', [op('Tanh', [inner], `${out}_ft`), 'one'], `${out}_fg`);
      const gelu = op('Mul', [op('Mul', [f, 'half'], `${out}_fh`), gate], `${out}_gelu`);
      return op('Add', [parts.conv1d(gelu, `${p}mlp.c_proj`, F, C, `${out}_mo`), x], `${out}_res2`);
    },
  };
  return parts;
}

// Input: input_ids int64 [1, T]. Outputs: last_hidden_state [1, T, C] (after ln_f) and, with
// { attentions: true }, attn_0 … attn_{L-1} [1, H, T, T], each layer's softmax probabilities (what
// AttnScope returns; the exporter's output_attentions).
export function gpt2Onnx(m, T, { attentions = true } = {}) {
  const { layers: L, hidden: C, heads: H, ffn: F, vocab, positions } = m.shape;
  const b = gpt2Parts(m);
  const { inits, nodes, f32, i64, op, W } = b.g;

  f32('wte', [vocab, C], W('transformer.wte.weight'));
  f32('wpe', [positions, C], W('transformer.wpe.weight'));
  i64('pos_ids', [1, T], Array.from({ length: T }, (_, i) => i));
  let x = op('Add', [op('Gather', ['wte', 'input_ids'], 'we', { axis: 0 }), op('Gather', ['wpe', 'pos_ids'], 'pe', { axis: 0 })], 'x_emb');
  f32('causal_bias', [1, 1, T, T], causalBias(T));

  const attentionOutputs = [];
  for (let l = 0; l < L; l++) {
    const p = `transformer.h.${l}.`;
    const h = b.layerNorm(x, `${p}ln_1`, `l${l}_ln1`);
    const qkv = b.conv1d(h, `${p}attn.c_attn`, C, 3 * C, `l${l}_qkv`);
    nodes.push(node('Split', [qkv, 'split_qkv'], [`l${l}_q`, `l${l}_k`, `l${l}_v`], { axis: 2 }));
    const q = b.heads(`l${l}_q`, [0, 2, 1, 3], `l${l}_qh`);
    const kT = b.heads(`l${l}_k`, [0, 2, 3, 1], `l${l}_kt`);
    const v = b.heads(`l${l}_v`, [0, 2, 1, 3], `l${l}_vh`);
    const [ctx, probs] = b.attend(q, kT, v, 'causal_bias', `l${l}`, attentions ? `attn_${l}` : `l${l}_p`);
    if (attentions) attentionOutputs.push(probs);
    x = op('Add', [b.conv1d(ctx, `${p}attn.c_proj`, C, C, `l${l}_o`), x], `l${l}_res1`);
    x = b.mlp(x, p, F, `l${l}`);
  }
  x = b.layerNorm(x, 'transformer.ln_f', 'ln_f');
  nodes.push(node('Identity', [x], ['last_hidden_state']));
  return model({
    nodes,
    initializers: inits,
    inputs: [valueInfo('input_ids', DataType.INT64, [1, T])],
    outputs: [valueInfo('last_hidden_state', DataType.FLOAT, [1, T, C]),
      ...attentionOutputs.map((name) => valueInfo(name, DataType.FLOAT, [1, H, T, T]))],
  });
}

// GPT2LMHeadModel over a KV cache: n new tokens after P cached positions (n = the prompt's length
// and P = 0 for the prompt, then n = 1 per generated token). Inputs: input_ids and position_ids
// int64 [1, n]; attention_bias [1, 1, n, P+n] (decoderBias: causal among the new tokens);
// past_k_l, past_v_l [1, H, P, dh]. Outputs: logits [1, 1, V] of the LAST new position only (the
// tied head, wteᵀ: a step needs no more, and the prompt pass skips n−1 rows of it);
// present_k_l, present_v_l [1, H, P+n, dh]; last_hidden_state [1, 1, C] (after ln_f).
// weights 'q8': every MatMul with a weight, the head too, as quantize_dynamic writes it.
export function gpt2DecoderWithPastOnnx(m, { weights = 'f32' } = {}) {
  const { layers: L, hidden: C, heads: H, ffn: F, vocab, positions } = m.shape;
  const dh = C / H;
  const b = gpt2Parts(m, weights);
  const { inits, nodes, f32, i64, op, W } = b.g;
  f32('wte', [vocab, C], W('transformer.wte.weight'));
  f32('wpe', [positions, C], W('transformer.wpe.weight'));
  let x = op('Add', [op('Gather', ['wte', 'input_ids'], 'we', { axis: 0 }), op('Gather', ['wpe', 'position_ids'], 'pe', { axis: 0 })], 'x_emb');
  const inputs = [valueInfo('input_ids', DataType.INT64, [1, 'new']), valueInfo('position_ids', DataType.INT64, [1, 'new']),
    valueInfo('attention_bias', DataType.FLOAT, [1, 1, 'new', 'total'])];
  const outputs = [valueInfo('logits', DataType.FLOAT, [1, 1, vocab])];
  for (let l = 0; l < L; l++) {
    const p = `transformer.h.${l}.`;
    for (const kind of ['past_k', 'past_v']) inputs.push(valueInfo(`${kind}_${l}`, DataType.FLOAT, [1, H, 'past', dh]));
    for (const kind of ['present_k', 'present_v']) outputs.push(valueInfo(`${kind}_${l}`, DataType.FLOAT, [1, H, 'total', dh]));
    const h = b.layerNorm(x, `${p}ln_1`, `l${l}_ln1`);
    const qkv = b.conv1d(h, `${p}attn.c_attn`, C, 3 * C, `l${l}_qkv`);
    nodes.push(node('Split', [qkv, 'split_qkv'], [`l${l}_q`, `l${l}_k`, `l${l}_v`], { axis: 2 }));
    const q = b.heads(`l${l}_q`, [0, 2, 1, 3], `l${l}_qh`);
    const k = op('Concat', [`past_k_${l}`, b.heads(`l${l}_k`, [0, 2, 1, 3], `l${l}_kh`)], `present_k_${l}`, { axis: 2 });
    const v = op('Concat', [`past_v_${l}`, b.heads(`l${l}_v`, [0, 2, 1, 3], `l${l}_vh`)], `present_v_${l}`, { axis: 2 });
    const kT = op('Transpose', [k], `l${l}_kt`, { perm: [0, 1, 3, 2] });
    const [ctx] = b.attend(q, kT, v, 'attention_bias', `l${l}`, `l${l}_p`);
    x = op('Add', [b.conv1d(ctx, `${p}attn.c_proj`, C, C, `l${l}_o`), x], `l${l}_res1`);
    x = b.mlp(x, p, F, `l${l}`);
  }
  lastPositionHead(b.g, x, (last) => b.layerNorm(last, 'transformer.ln_f', 'last_hidden_state'), W('transformer.wte.weight'), vocab, C, weights);
  outputs.push(valueInfo('last_hidden_state', DataType.FLOAT, [1, 1, C]));
  return model({ nodes, initializers: inits, inputs, outputs });
}

// The last new position's row of x [1, n, C] through the final norm (norm(row) names its output
// last_hidden_state) and the tied head W [V, C] into 'logits' [1, 1, V].
export function lastPositionHead(g, x, norm, W, vocab, C, weights) {
  g.i64('last_start', [1], [-1]);
  g.i64('last_end', [1], [2 ** 31 - 1]);
  g.i64('last_axis', [1], [1]);
  const hidden = norm(g.op('Slice', [x, 'last_start', 'last_end', 'last_axis'], 'x_last'));
  return linearMatMul(g, hidden, W, vocab, C, 'logits', weights);
}

/** [n, P+n] additive bias of n new positions after P cached ones: each sees the past and the new
 *  ones up to itself (−1e9 above, as causalBias). */
export function decoderBias(P, n) {
  const bias = new Float32Array(n * (P + n));
  for (let q = 0; q < n; q++) for (let k = P + q + 1; k < P + n; k++) bias[q * (P + n) + k] = -1e9;
  return bias;
}
