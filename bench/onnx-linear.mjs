// One nn.Linear-style MatMul (no bias) in a bench ONNX graph, f32 or int8 the way onnxruntime's
// quantize_dynamic writes it — the one place the bench graphs (BERT, GPT-2, Llama, T5) get their
// int8 MatMul from, so every ORT q8 peer quantizes alike.
import { DataType, node, transposed } from './onnx-writer.mjs';

// Quantizes W (rows = output channels, cols = inputs) as AttnScope's q8 does: int8, symmetric, one
// scale per output channel (max |w| / 127, round to nearest). Returns B = Wᵀ (cols, rows) as int8
// and the scales (rows).
export function quantizeWeightT(w, rows, cols) {
  const q = new Int8Array(w.length), scale = new Float32Array(rows);
  for (let r = 0; r < rows; r++) {
    let amax = 0;
    for (let c = 0; c < cols; c++) amax = Math.max(amax, Math.abs(w[r * cols + c]));
    const s = Math.fround(amax / 127);
    scale[r] = s;
    if (s > 0) for (let c = 0; c < cols; c++) q[c * rows + r] = Math.max(-127, Math.min(127, Math.round(w[r * cols + c] / s)));
  }
  return { q, scale };
}

/**
 * inp · Wᵀ for W [outDim, inDim] (nn.Linear's layout), added to graph parts g (graphParts of
 * onnx-writer.mjs); returns the output's name. weights 'f32': MatMul with B = Wᵀ. weights 'q8':
 * quantize_dynamic's MatMul — DynamicQuantizeLinear (the activations to uint8, one scale and zero
 * point per tensor) → MatMulInteger with the int8 weight (here per output channel, zero points 0,
 * like AttnScope's) → Cast to float → Mul by (activation scale · weight scales); ORT fuses the
 * pattern into its DynamicQuantizeMatMul kernel.
 */
export function linearMatMul(g, inp, w, outDim, inDim, out, weights = 'f32') {
  if (weights === 'q8') {
    const { q, scale } = quantizeWeightT(w, outDim, inDim);
    const n = `${out}_dq`;  // every name of the pattern under one prefix the caller's names do not use
    g.init(`${n}_w`, DataType.INT8, [inDim, outDim], q);
    g.init(`${n}_wz`, DataType.INT8, [outDim], new Int8Array(outDim));
    g.f32(`${n}_ws`, [outDim], scale);
    g.nodes.push(node('DynamicQuantizeLinear', [inp], [`${n}_x`, `${n}_xs`, `${n}_xz`]));
    const mm = g.op('MatMulInteger', [`${n}_x`, `${n}_w`, `${n}_xz`, `${n}_wz`], `${n}_mm`);
    return g.op('Mul', [g.op('Cast', [mm], `${n}_mmf`, { to: DataType.FLOAT }), g.op('Mul', [`${n}_xs`, `${n}_ws`], `${n}_s`)], out);
  }
  if (weights !== 'f32') throw new Error(`weights must be 'f32' or 'q8', got ${weights}`);
  g.f32(`${out}_w`, [inDim, outDim], transposed(w, outDim, inDim));
  return g.op('MatMul', [inp, `${out}_w`], out);
}
