// Rotary positions (Su et al. 2021) as the views recompute them, in transformers' rotate_half
// layout: a head's dh values are pairs (d, d + dh/2), and at position p pair d is turned by the
// angle p · invFreq[d]. q at position i and k at position j then score
//   R(i)q · R(j)k = R(i − j)q · k,
// a function of the distance i − j alone: there is no position vector to add. The inverse
// frequencies are the engine's own (info.config.rotaryInverseFrequencies, scaling applied).

/** x (dh values) turned by `position` steps: pair d by position · invFreq[d]. */
export function rotate(x, position, invFreq) {
  const half = invFreq.length, out = new Float64Array(2 * half);
  for (let d = 0; d < half; d++) {
    const a = position * invFreq[d], c = Math.cos(a), s = Math.sin(a);
    out[d] = x[d] * c - x[d + half] * s;
    out[d + half] = x[d + half] * c + x[d] * s;
  }
  return out;
}

export function dot(a, b) {
  let s = 0;
  for (let d = 0; d < a.length; d++) s += a[d] * b[d];
  return s;
}

/** The scaled score q·k/√dh of the same (unrotated) q and k placed `distance` tokens apart
 *  (query after key), for distance = 0 … maxDistance. */
export function scoresByDistance(q, k, invFreq, maxDistance) {
  const scale = 1 / Math.sqrt(q.length), out = new Float64Array(maxDistance + 1);
  for (let delta = 0; delta <= maxDistance; delta++) out[delta] = dot(rotate(q, delta, invFreq), k) * scale;
  return out;
}

/** Angle of each pair after `distance` steps, in degrees in [0, 360). */
export function anglesDegrees(distance, invFreq) {
  return Array.from(invFreq, (f) => ((((distance * f) % (2 * Math.PI)) + 2 * Math.PI) % (2 * Math.PI)) * 180 / Math.PI);
}

/** Wavelength of each pair in tokens: how far apart two positions are when its rotation repeats. */
export function wavelengths(invFreq) {
  return Array.from(invFreq, (f) => 2 * Math.PI / f);
}
