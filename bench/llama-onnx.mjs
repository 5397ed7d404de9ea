// The same random Llama as ONNX graphs (opset 17) for onnxruntime-web, op by op as the Hugging Face
// exporter writes LlamaModel: Gather embed_tokens, then per layer RMSNorm as
// Pow/ReduceMean/Add/Sqrt/Div/Mul, q/k/v MatMuls, Reshape/Transpose to heads, rotary as
// x·cos + rotate_half(x)·sin (Split/Neg/Concat), repeat_kv as Unsqueeze/Expand/Reshape, MatMul, Mul
// by 1/√dh, Add the causal bias, Softmax, MatMul, o_proj, residual Add; RMSNorm, gate/up MatMuls,
// SiLU as x·Sigmoid(x), Mul, down MatMul, residual Add; finally the norm. nn.Linear weights are
// transposed to MatMul's B [in, out]. ORT may fuse it. Two graphs: the prefill (llamaOnnx, cos and
// sin constants) and one generation step over the KV cache (llamaDecoderWithPastOnnx, cos and sin
// gathered by position, the cache holding the key/value heads after rotary, the tied head).
import { DataType, causalBias, graphParts, model, node, valueInfo } from './onnx-writer.mjs';
import { linearMatMul } from './onnx-linear.mjs';
import { lastPositionHead } from './gpt2-onnx.mjs';

// cos / sin of cat(freqs, freqs), freqs = position · θ^(−2i/dh), positions 0…T−1, [T, dh]
// (computed in double, as ours).
function ropeTables(T, dh, ropeTheta) {
  const cos = new Float32Array(T * dh), sin = new Float32Array(T * dh);
  for (let t = 0; t < T; t++) {
    for (let i = 0; i < dh / 2; i++) {
      const angle = t / ropeTheta ** (2 * i / dh);
      cos[t * dh + i] = cos[t * dh + i + dh / 2] = Math.cos(angle);
      sin[t * dh + i] = sin[t * dh + i + dh / 2] = Math.sin(angle);
    }
  }
  return { cos, sin };
}

// What both graphs share: the block's pieces. weights 'q8': every projection's MatMul as
// quantize_dynamic writes it (onnx-linear.mjs).
function llamaParts({ shape, tensors }, weights = 'f32') {
  const { hidden: C, heads: H, kvHeads: KV, eps, headDim: dh } = shape;
  const g = graphParts(tensors);
  const { nodes, f32, i64, op, W } = g;
  i64('shape_q', [4], [1, -1, H, dh]);
  i64('shape_kv', [4], [1, -1, KV, dh]);
  i64('shape_rep', [4], [1, H, -1, dh]);
  i64('shape_flat', [3], [1, -1, H * dh]);
  i64('split_half', [2], [dh / 2, dh / 2]);
  i64('axis_2', [1], [2]);
  f32('scale', [], Float32Array.of(1 / Math.sqrt(dh)));
  f32('two', [], Float32Array.of(2));
  f32('eps', [], Float32Array.of(eps));
  const parts = {
    g,
    rmsNorm(inp, weight, out) {
      f32(`${out}_w`, [C], W(weight));
      const ms = op('ReduceMean', [op('Pow', [inp, 'two'], `${out}_sq`)], `${out}_ms`, { axes: [-1], keepdims: 1 });
      const rms = op('Sqrt', [op('Add', [ms, 'eps'], `${out}_mse`)], `${out}_rms`);
      return op('Mul', [op('Div', [inp, rms], `${out}_n`), `${out}_w`], out);
    },
    linear: (inp, weight, outDim, inDim, out) => linearMatMul(g, inp, W(weight), outDim, inDim, out, weights),
    heads: (inp, shapeName, out) => op('Transpose', [op('Reshape', [inp, shapeName], `${out}_r`)], out, { perm: [0, 2, 1, 3] }),
    rotary(inp, cos, sin, out) {
      nodes.push(node('Split', [inp, 'split_half'], [`${out}_x1`, `${out}_x2`], { axis: -1 }));
      const rotated = op('Concat', [op('Neg', [`${out}_x2`], `${out}_nx2`), `${out}_x1`], `${out}_rot`, { axis: -1 });
      return op('Add', [op('Mul', [inp, cos], `${out}_c`), op('Mul', [rotated, sin], `${out}_s`)], out);
    },
    // [1, KV, keys, dh] → [1, H, keys, dh], each key/value head for its H/KV query heads.
    repeat(inp, expandShape, out) {
      return op('Reshape', [op('Expand', [op('Unsqueeze', [inp, 'axis_2'], `${out}_u`), expandShape], `${out}_e`), 'shape_rep'], out);
    },
    // softmax(q·kᵀ/√dh + bias)·v over the repeated heads, concatenated, then o_proj; [out, probs].
    attend(q, k, v, bias, expandShape, p, l, probsName) {
      const kT = op('Transpose', [parts.repeat(k, expandShape, `l${l}_kx`)], `l${l}_kt`, { perm: [0, 1, 3, 2] });
      const scores = op('Add', [op('Mul', [op('MatMul', [q, kT], `l${l}_s`), 'scale'], `l${l}_ss`), bias], `l${l}_sm`);
      const probs = op('Softmax', [scores], probsName, { axis: -1 });
      const ctx = op('Reshape', [op('Transpose', [op('MatMul', [probs, parts.repeat(v, expandShape, `l${l}_vx`)], `l${l}_c`)], `l${l}_ct`, { perm: [0, 2, 1, 3] }), 'shape_flat'], `l${l}_cf`);
      return [parts.linear(ctx, `${p}self_attn.o_proj.weight`, C, H * dh, `l${l}_o`), probs];
    },
    // post_attention_layernorm, SiLU-gated MLP, residual.
    mlp(x, p, F, l) {
      const h2 = parts.rmsNorm(x, `${p}post_attention_layernorm.weight`, `l${l}_ln2`);
      const gate = parts.linear(h2, `${p}mlp.gate_proj.weight`, F, C, `l${l}_gate`);
      const up = parts.linear(h2, `${p}mlp.up_proj.weight`, F, C, `l${l}_up`);
      const silu = op('Mul', [gate, op('Sigmoid', [gate], `l${l}_sig`)], `l${l}_silu`);
      return op('Add', [parts.linear(op('Mul', [silu, up], `l${l}_glu`), `${p}mlp.down_proj.weight`, C, F, `l${l}_down`), x], `l${l}_res2`);
    },
  };
  return parts;
}

// Input: input_ids int64 [1, T]. Outputs: last_hidden_state [1, T, C] (after the final norm) and,
// with { attentions: true }, attn_0 … attn_{L-1} [1, H, T, T] (per query head).
export function llamaOnnx(m, T, { attentions = true } = {}) {
  const { layers: L, hidden: C, heads: H, kvHeads: KV, ffn: F, vocab, ropeTheta, headDim: dh } = m.shape;
  const b = llamaParts(m);
  const { inits, nodes, f32, i64, op, W } = b.g;

  f32('embed', [vocab, C], W('model.embed_tokens.weight'));
  let x = op('Gather', ['embed', 'input_ids'], 'x_emb', { axis: 0 });
  f32('causal_bias', [1, 1, T, T], causalBias(T));
  const { cos, sin } = ropeTables(T, dh, ropeTheta);
  f32('rope_cos', [1, 1, T, dh], cos);
  f32('rope_sin', [1, 1, T, dh], sin);
  i64('expand_kv', [5], [1, KV, H / KV, T, dh]);

  const attentionOutputs = [];
  for (let l = 0; l < L; l++) {
    const p = `model.layers.${l}.`;
    const h = b.rmsNorm(x, `${p}input_layernorm.weight`, `l${l}_ln1`);
    const q = b.rotary(b.heads(b.linear(h, `${p}self_attn.q_proj.weight`, H * dh, C, `l${l}_q`), 'shape_q', `l${l}_qh`), 'rope_cos', 'rope_sin', `l${l}_qr`);
    const k = b.rotary(b.heads(b.linear(h, `${p}self_attn.k_proj.weight`, KV * dh, C, `l${l}_k`), 'shape_kv', `l${l}_kh`), 'rope_cos', 'rope_sin', `l${l}_kr`);
    const v = b.heads(b.linear(h, `${p}self_attn.v_proj.weight`, KV * dh, C, `l${l}_v`), 'shape_kv', `l${l}_vh`);
    const [o, probs] = b.attend(q, k, v, 'causal_bias', 'expand_kv', p, l, attentions ? `attn_${l}` : `l${l}_p`);
    if (attentions) attentionOutputs.push(probs);
    x = b.mlp(op('Add', [o, x], `l${l}_res1`), p, F, l);
  }
  x = b.rmsNorm(x, 'model.norm.weight', 'norm');
  nodes.push(node('Identity', [x], ['last_hidden_state']));
  return model({
    nodes,
    initializers: inits,
    inputs: [valueInfo('input_ids', DataType.INT64, [1, T])],
    outputs: [valueInfo('last_hidden_state', DataType.FLOAT, [1, T, C]),
      ...attentionOutputs.map((name) => valueInfo(name, DataType.FLOAT, [1, H, T, T]))],
  });
}

// LlamaForCausalLM over a KV cache, as gpt2DecoderWithPastOnnx (the same inputs and outputs):
// input_ids, position_ids [1, n]; attention_bias [1, 1, n, P+n]; past_k_l, past_v_l [1, KV, P, dh]
// (the key/value heads, keys after rotary, as transformers caches them). Outputs: logits [1, 1, V]
// of the last new position (tied head), present_k_l, present_v_l [1, KV, P+n, dh],
// last_hidden_state [1, 1, C]. cos and sin are gathered by position from tables of maxPositions
// rows. weights 'q8': every projection and the head as quantize_dynamic writes them.
export function llamaDecoderWithPastOnnx(m, { weights = 'f32', maxPositions = 1024 } = {}) {
  const { layers: L, hidden: C, heads: H, kvHeads: KV, ffn: F, vocab, ropeTheta, headDim: dh } = m.shape;
  const b = llamaParts(m, weights);
  const { inits, nodes, f32, i64, op, W } = b.g;
  f32('embed', [vocab, C], W('model.embed_tokens.weight'));
  let x = op('Gather', ['embed', 'input_ids'], 'x_emb', { axis: 0 });
  const { cos, sin } = ropeTables(maxPositions, dh, ropeTheta);
  f32('rope_cos_table', [maxPositions, dh], cos);
  f32('rope_sin_table', [maxPositions, dh], sin);
  i64('axis_1', [1], [1]);
  const gathered = (table, out) => op('Unsqueeze', [op('Gather', [table, 'position_ids'], `${out}_g`, { axis: 0 }), 'axis_1'], out);
  gathered('rope_cos_table', 'rope_cos');  // [1, 1, n, dh]
  gathered('rope_sin_table', 'rope_sin');
  i64('expand_kv', [5], [1, 1, H / KV, 1, 1]);  // broadcast: any number of keys
  const inputs = [valueInfo('input_ids', DataType.INT64, [1, 'new']), valueInfo('position_ids', DataType.INT64, [1, 'new']),
    valueInfo('attention_bias', DataType.FLOAT, [1, 1, 'new', 'total'])];
  const outputs = [valueInfo('logits', DataType.FLOAT, [1, 1, vocab])];
  for (let l = 0; l < L; l++) {
    const p = `model.layers.${l}.`;
    for (const kind of ['past_k', 'past_v']) inputs.push(valueInfo(`${kind}_${l}`, DataType.FLOAT, [1, KV, 'past', dh]));
    for (const kind of ['present_k', 'present_v']) outputs.push(valueInfo(`${kind}_${l}`, DataType.FLOAT, [1, KV, 'total', dh]));
    const h = b.rmsNorm(x, `${p}input_layernorm.weight`, `l${l}_ln1`);
    const q = b.rotary(b.heads(b.linear(h, `${p}self_attn.q_proj.weight`, H * dh, C, `l${l}_q`), 'shape_q', `l${l}_qh`), 'rope_cos', 'rope_sin', `l${l}_qr`);
    const kNew = b.rotary(b.heads(b.linear(h, `${p}self_attn.k_proj.weight`, KV * dh, C, `l${l}_k`), 'shape_kv', `l${l}_kh`), 'rope_cos', 'rope_sin', `l${l}_kr`);
    const vNew = b.heads(b.linear(h, `${p}self_attn.v_proj.weight`, KV * dh, C, `l${l}_v`), 'shape_kv', `l${l}_vh`);
    const k = op('Concat', [`past_k_${l}`, kNew], `present_k_${l}`, { axis: 2 });
    const v = op('Concat', [`past_v_${l}`, vNew], `present_v_${l}`, { axis: 2 });
    const [o] = b.attend(q, k, v, 'attention_bias', 'expand_kv', p, l, `l${l}_p`);
    x = b.mlp(op('Add', [o, x], `l${l}_res1`), p, F, l);
  }
  lastPositionHead(b.g, x, (last) => b.rmsNorm(last, 'model.norm.weight', 'last_hidden_state'), W('model.embed_tokens.weight'), vocab, C, weights);
  outputs.push(valueInfo('last_hidden_state', DataType.FLOAT, [1, 1, C]));
  return model({ nodes, initializers: inits, inputs, outputs });
}
