// How big a steering push is, in the units a reader can judge: the direction v (the mean residual
// stream entering the layer for the "to" text minus that for the "from" text, each run alone, as
// engine/steering.h defines it), the push strength · v, and beside it the length of the residual
// stream the push is added to (the prompt's, entering the same layer). Read from runs made with
// { hiddenStates: true }: hiddenStates[l] is the residual stream entering layer l for l < L.

/** The mean over positions of the residual stream entering `layer` (C values, float64). */
export function meanResidPre(run, layer) {
  const T = run.shape[2];
  const C = run.hidden.length / T;
  const states = run.hiddenStates;
  const mean = new Float64Array(C);
  for (let i = 0; i < T; i++) {
    const row = (layer * T + i) * C;
    for (let c = 0; c < C; c++) mean[c] += states[row + c];
  }
  for (let c = 0; c < C; c++) mean[c] /= T;
  return mean;
}

const norm = (v) => Math.sqrt(v.reduce((sum, x) => sum + x * x, 0));

/**
 * @param runs { from, to, prompt }: the three texts' runs, each with hiddenStates
 * @returns { vector (v, C floats), direction ‖v‖, push |strength|·‖v‖, residual (the prompt's mean
 *   ‖residual stream‖ entering the layer), ratio push / residual }
 */
export function steeringSize({ from, to, prompt }, layer, strength) {
  const a = meanResidPre(from, layer), b = meanResidPre(to, layer);
  const vector = b.map((x, c) => x - a[c]);
  const direction = norm(vector);
  const T = prompt.shape[2], C = prompt.hidden.length / T;
  let residual = 0;
  for (let i = 0; i < T; i++) {
    const start = (layer * T + i) * C;
    residual += norm(prompt.hiddenStates.subarray(start, start + C)) / T;
  }
  const push = Math.abs(strength) * direction;
  return { vector: Float32Array.from(vector), direction, push, residual, ratio: residual > 0 ? push / residual : 0 };
}
