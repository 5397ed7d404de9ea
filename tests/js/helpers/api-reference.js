// Calls api-torch-reference.py (PyTorch, Debian's /usr/bin/python3) and compares arrays, so the
// API tests check run() against an independent implementation, never against our own output.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('./api-torch-reference.py', import.meta.url));

/** {attentions, hidden, mlm_logits?} as flat number arrays. f16Matrices: the reference rounds the
 *  weight matrices to f16 first (what weightPrecision 'f16' keeps). */
export function torchReference(modelDir, { ids, tokenTypes, maskPositions = [], f16Matrices = false }) {
  const request = JSON.stringify({
    model: modelDir, ids: [...ids], token_type_ids: tokenTypes ? [...tokenTypes] : null, mask_positions: maskPositions,
    f16_matrices: f16Matrices,
  });
  const out = execFileSync('/usr/bin/python3', [SCRIPT], { input: request, maxBuffer: 1 << 30 });
  return JSON.parse(out);
}

/** Largest |a[i] - b[i]| and where it is. */
export function maxAbsDiff(a, b) {
  if (a.length !== b.length) throw new Error(`length ${a.length} vs ${b.length}`);
  let max = 0;
  let at = -1;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i] - b[i]);
    if (!(d <= max)) { max = d; at = i; } // NaN counts as the worst
  }
  return { max, at };
}

/** Softmax probabilities of a logits row, in float64. */
export function softmax(logits) {
  const max = Math.max(...logits);
  const exps = logits.map((x) => Math.exp(x - max));
  const sum = exps.reduce((a, b) => a + b, 0);
  return exps.map((e) => e / sum);
}
