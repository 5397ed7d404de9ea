// Calls seq2seq-torch-reference.py (PyTorch via Debian's /usr/bin/python3) so the seq2seq Block
// view is checked against an independent float64 forward of the folder's weights, computed now.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('./seq2seq-torch-reference.py', import.meta.url));

/** One target token through one decoder layer: its attention rows and each sublayer's vectors;
 *  full: also every attention of the three kinds ([L][H][rows][keys] nested arrays). */
export function torchSeq2SeqBlock(modelDir, { sourceIds, decoderIds, layer = 0, token = 0, full = false }) {
  const input = JSON.stringify({ model: modelDir, source_ids: [...sourceIds], decoder_ids: [...decoderIds], layer, token, full });
  return JSON.parse(execFileSync('/usr/bin/python3', [SCRIPT], { input, maxBuffer: 1 << 26 }));
}
