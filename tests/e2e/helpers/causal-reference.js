// Calls causal-torch-reference.py (PyTorch via Debian's /usr/bin/python3) so the decoder tests
// check the page against the training code's own GPT-2, never against our engine's output.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('./causal-torch-reference.py', import.meta.url));

/** {attentions: L·H·T·T, next_by_position: [{position, top, probs, actual?, rank?, actual_prob?}]}. */
export function torchCausal(modelDir, ids, topK = 5) {
  const out = execFileSync('/usr/bin/python3', [SCRIPT], { input: JSON.stringify({ model: modelDir, ids: [...ids], top_k: topK }), maxBuffer: 1 << 28 });
  return JSON.parse(out);
}
