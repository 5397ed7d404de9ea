// The same random T5 (bench/random-model.mjs randomT5) as the two ONNX graphs (opset 17) a
// generation runs in onnxruntime-web, split as Optimum's T5 export splits it:
//  - t5EncoderOnnx: the encoder over the source, and every decoder layer's cross-attention keys and
//    values of its output (computed once per source, as AttnScope's encode() does; Optimum's
//    decoder computes them in its first run and passes them on as past);
//  - t5DecoderWithPastOnnx: one target token through the decoder over the self-attention keys and
//    values of the earlier positions (the past, length P, 0 at the first step) and the cross ones,
//    returning the logits, the new "present" keys and values and the last hidden state.
// Op by op as the exporter writes T5: Gather shared; T5LayerNorm (RMSNorm, no mean, no bias) as
// Pow/ReduceMean/Add/Sqrt/Div/Mul; q/k/v MatMuls without bias; Reshape/Transpose to heads; scores
// q·kᵀ with NO 1/√d_kv; + position bias; Softmax; MatMul; o; residual Add; relu feed-forward;
// final norm; the tied head after the d_model^-0.5 rescale. nn.Linear weights are transposed to
// MatMul's B [in, out].
// The relative position bias is a graph INPUT, computed outside the graph in JavaScript
// (t5PositionBias, from the checkpoint's layer-0 tables and transformers' bucket rule), not
// in-graph: [1, H, S, S] for the encoder (bidirectional) and [1, H, 1, P+1] per decoder step (one
// direction). Cross-attention has none.
import { DataType, graphParts, model, transposed, valueInfo } from './onnx-writer.mjs';
import { linearMatMul } from './onnx-linear.mjs';

// transformers' T5Attention._relative_position_bucket, with its float32 logarithm (as
// engine/relative_position.cpp computes it). relative = key − query.
export function relativePositionBucket(relative, bidirectional, numBuckets, maxDistance) {
  let bucket = 0, distance;
  if (bidirectional) {
    numBuckets = numBuckets >> 1;
    if (relative > 0) bucket += numBuckets;
    distance = Math.abs(relative);
  } else {
    distance = -Math.min(relative, 0);
  }
  const maxExact = numBuckets >> 1;
  if (distance < maxExact) return bucket + distance;
  const f = Math.fround;
  const ratio = f(f(distance) / f(maxExact));
  const scale = f(Math.log(maxDistance / maxExact));
  const large = f(f(f(Math.log(ratio)) / scale) * f(numBuckets - maxExact));
  return bucket + Math.min(maxExact + Math.trunc(large), numBuckets - 1);
}

// The bias [H, queries, keys] for query positions `queryStart`… over keys 0…keys−1, from a
// (buckets, H) table.
export function t5PositionBias(table, { heads: H, buckets, maxDistance }, { queries, keys, queryStart = 0, bidirectional }) {
  const out = new Float32Array(H * queries * keys);
  for (let i = 0; i < queries; i++) {
    for (let j = 0; j < keys; j++) {
      const b = relativePositionBucket(j - (queryStart + i), bidirectional, buckets, maxDistance);
      for (let h = 0; h < H; h++) out[(h * queries + i) * keys + j] = table[b * H + h];
    }
  }
  return out;
}

// The building blocks both graphs share, writing into one graph's node and initializer lists.
// weights 'q8': every MatMul with a weight as quantize_dynamic writes it (onnx-linear.mjs).
function graphBuilder({ shape, tensors }, weights = 'f32') {
  const { hidden: C, heads: H, dKv: dk, ffn: F, eps } = shape;
  const parts = graphParts(tensors);
  const { inits, nodes, f32, op, W } = parts;
  const i64 = (name, values) => parts.i64(name, [values.length], values);
  f32('two', [], Float32Array.of(2));
  f32('eps', [], Float32Array.of(eps));
  i64('shape_heads', [1, -1, H, dk]);   // [1, T, H·dk] → [1, T, H, dk]
  i64('shape_flat', [1, -1, H * dk]);
  const b = {
    inits, nodes, op, f32, parts,
    rmsNorm(inp, weight, out) {
      f32(`${out}_w`, [C], W(weight));
      const ms = op('ReduceMean', [op('Pow', [inp, 'two'], `${out}_sq`)], `${out}_ms`, { axes: [-1], keepdims: 1 });
      const rms = op('Sqrt', [op('Add', [ms, 'eps'], `${out}_mse`)], `${out}_rms`);
      return op('Mul', [op('Div', [inp, rms], `${out}_n`), `${out}_w`], out);
    },
    linear: (inp, weight, outDim, inDim, out) => linearMatMul(parts, inp, W(weight), outDim, inDim, out, weights),
    heads: (inp, out) => op('Transpose', [op('Reshape', [inp, 'shape_heads'], `${out}_r`)], out, { perm: [0, 2, 1, 3] }),
    // softmax(q·kᵀ (+ bias)) · v, heads concatenated, then o. Returns [output, probabilities].
    attend(q, k, v, bias, o, out, probsName) {
      const kT = op('Transpose', [k], `${out}_kt`, { perm: [0, 1, 3, 2] });
      let scores = op('MatMul', [q, kT], `${out}_s`);
      if (bias) scores = op('Add', [scores, bias], `${out}_sb`);
      const probs = op('Softmax', [scores], probsName ?? `${out}_p`, { axis: -1 });
      const ctx = op('Reshape', [op('Transpose', [op('MatMul', [probs, v], `${out}_c`)], `${out}_ct`, { perm: [0, 2, 1, 3] }), 'shape_flat'], `${out}_cf`);
      return [b.linear(ctx, o, C, H * dk, out), probs];
    },
    feedForward(x, p, out) {
      const h = b.rmsNorm(x, `${p}layer_norm.weight`, `${out}_ln`);
      const up = op('Relu', [b.linear(h, `${p}DenseReluDense.wi.weight`, F, C, `${out}_wi`)], `${out}_relu`);
      return op('Add', [b.linear(up, `${p}DenseReluDense.wo.weight`, C, F, `${out}_wo`), x], out);
    },
  };
  return b;
}

// Inputs: input_ids int64 [1, S], position_bias [1, H, S, S]. Outputs: last_hidden_state
// [1, S, C]; cross_k_l, cross_v_l [1, H, S, d_kv] per decoder layer; with { attentions: true }
// enc_attn_0 … [1, H, S, S]. weights 'q8': every MatMul with a weight as quantize_dynamic writes it.
export function t5EncoderOnnx(m, S, { attentions = true, weights = 'f32' } = {}) {
  const { layers: L, decoderLayers: Ld, hidden: C, heads: H, dKv: dk, vocab } = m.shape;
  const g = graphBuilder(m, weights);
  g.f32('shared', [vocab, C], m.tensors['shared.weight'].data);
  let x = g.op('Gather', ['shared', 'input_ids'], 'x_emb', { axis: 0 });
  const attentionOutputs = [];
  for (let l = 0; l < L; l++) {
    const p = `encoder.block.${l}.layer.`, a = `${p}0.SelfAttention.`;
    const h = g.rmsNorm(x, `${p}0.layer_norm.weight`, `l${l}_ln1`);
    const proj = (name) => g.heads(g.linear(h, `${a}${name}.weight`, H * dk, C, `l${l}_${name}`), `l${l}_${name}h`);
    const [o, probs] = g.attend(proj('q'), proj('k'), proj('v'), 'position_bias', `${a}o.weight`, `l${l}_o`, attentions ? `enc_attn_${l}` : null);
    if (attentions) attentionOutputs.push(probs);
    x = g.feedForward(g.op('Add', [o, x], `l${l}_res1`), `${p}1.`, `l${l}_res2`);
  }
  const hidden = g.rmsNorm(x, 'encoder.final_layer_norm.weight', 'last_hidden_state');
  const cross = [];
  for (let l = 0; l < Ld; l++) {
    const a = `decoder.block.${l}.layer.1.EncDecAttention.`;
    for (const kv of ['k', 'v']) {
      const name = `cross_${kv}_${l}`;
      g.heads(g.linear(hidden, `${a}${kv}.weight`, H * dk, C, `${name}_lin`), name);
      cross.push(name);
    }
  }
  return model({
    nodes: g.nodes, initializers: g.inits,
    inputs: [valueInfo('input_ids', DataType.INT64, [1, S]), valueInfo('position_bias', DataType.FLOAT, [1, H, S, S])],
    outputs: [valueInfo('last_hidden_state', DataType.FLOAT, [1, S, C]),
      ...cross.map((name) => valueInfo(name, DataType.FLOAT, [1, H, S, dk])),
      ...attentionOutputs.map((name) => valueInfo(name, DataType.FLOAT, [1, H, S, S]))],
  });
}

// Inputs: input_ids int64 [1, 1]; position_bias [1, H, 1, P+1]; past_k_l, past_v_l [1, H, P, d_kv];
// cross_k_l, cross_v_l [1, H, S, d_kv]. Outputs: logits [1, 1, V]; present_k_l, present_v_l
// [1, H, P+1, d_kv]; last_hidden_state [1, 1, C] (after the final norm, before the rescale); with
// { attentions: true } self_attn_l [1, H, 1, P+1] and cross_attn_l [1, H, 1, S]. weights 'q8': every
// MatMul with a weight (the tied head too) as quantize_dynamic writes it.
export function t5DecoderWithPastOnnx(m, S, { attentions = true, weights = 'f32' } = {}) {
  const { decoderLayers: Ld, hidden: C, heads: H, dKv: dk, vocab } = m.shape;
  const g = graphBuilder(m, weights);
  const shared = m.tensors['shared.weight'].data;
  g.f32('shared', [vocab, C], shared);
  if (weights === 'f32') g.f32('head_w', [C, vocab], transposed(shared, vocab, C));
  g.f32('head_scale', [], Float32Array.of(C ** -0.5));
  let x = g.op('Gather', ['shared', 'input_ids'], 'x_emb', { axis: 0 });
  const inputs = [valueInfo('input_ids', DataType.INT64, [1, 1]), valueInfo('position_bias', DataType.FLOAT, [1, H, 1, 'past_plus_one'])];
  const outputs = [valueInfo('logits', DataType.FLOAT, [1, 1, vocab])];
  const attentionOutputs = [];
  for (let l = 0; l < Ld; l++) {
    const p = `decoder.block.${l}.layer.`, a = `${p}0.SelfAttention.`, xa = `${p}1.EncDecAttention.`;
    for (const kind of ['past_k', 'past_v']) inputs.push(valueInfo(`${kind}_${l}`, DataType.FLOAT, [1, H, 'past', dk]));
    for (const kind of ['cross_k', 'cross_v']) inputs.push(valueInfo(`${kind}_${l}`, DataType.FLOAT, [1, H, S, dk]));
    for (const kind of ['present_k', 'present_v']) outputs.push(valueInfo(`${kind}_${l}`, DataType.FLOAT, [1, H, 'past_plus_one', dk]));
    const h = g.rmsNorm(x, `${p}0.layer_norm.weight`, `l${l}_ln1`);
    const proj = (inp, base, name, tag) => g.heads(g.linear(inp, `${base}${name}.weight`, H * dk, C, `l${l}_${tag}${name}`), `l${l}_${tag}${name}h`);
    const k = g.op('Concat', [`past_k_${l}`, proj(h, a, 'k', 's')], `present_k_${l}`, { axis: 2 });
    const v = g.op('Concat', [`past_v_${l}`, proj(h, a, 'v', 's')], `present_v_${l}`, { axis: 2 });
    const [o, selfProbs] = g.attend(proj(h, a, 'q', 's'), k, v, 'position_bias', `${a}o.weight`, `l${l}_o`, attentions ? `self_attn_${l}` : null);
    x = g.op('Add', [o, x], `l${l}_res1`);
    const h2 = g.rmsNorm(x, `${p}1.layer_norm.weight`, `l${l}_ln2`);
    const [co, crossProbs] = g.attend(proj(h2, xa, 'q', 'x'), `cross_k_${l}`, `cross_v_${l}`, null, `${xa}o.weight`, `l${l}_xo`, attentions ? `cross_attn_${l}` : null);
    if (attentions) attentionOutputs.push([selfProbs, 'past_plus_one'], [crossProbs, S]);
    x = g.feedForward(g.op('Add', [co, x], `l${l}_res2`), `${p}2.`, `l${l}_res3`);
  }
  const hidden = g.rmsNorm(x, 'decoder.final_layer_norm.weight', 'last_hidden_state');
  const headIn = g.op('Mul', [hidden, 'head_scale'], 'head_in');
  if (weights === 'f32') g.op('MatMul', [headIn, 'head_w'], 'logits');
  else linearMatMul(g.parts, headIn, shared, vocab, C, 'logits', weights);
  outputs.push(valueInfo('last_hidden_state', DataType.FLOAT, [1, 1, C]),
    ...attentionOutputs.map(([name, keys]) => valueInfo(name, DataType.FLOAT, [1, H, 1, keys])));
  return model({ nodes: g.nodes, initializers: g.inits, inputs, outputs });
}
