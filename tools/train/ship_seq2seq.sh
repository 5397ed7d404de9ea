#!/usr/bin/env bash
# Ships an exported encoder-decoder as bundled-seq2seq in one step, so new weights (a finished run,
# a continuation) replace the shipped ones with everything that depends on them:
#   1. the export is copied to a temporary folder first (a running training rewrites it every
#      4 minutes), then put in place as model-seq2seq/ by ship_seq2seq.py (fp16, heldout.jsonl
#      checked against MODEL.md's alignment definition, ≤ 8 MB or nothing moves);
#   2. the tokenizer and every held-out alignment are checked against the engine's `attnscope
#      tokenize` (check_seq2seq_tokenizer.py);
#   3. the golden fixture tests/fixtures/bundled-seq2seq/ is regenerated from the shipped weights
#      (float64 PyTorch reference) and the golden test run on it;
#   4. sizes are printed.
# The held-out evaluation (MODEL.md's figures) is separate: python3 tools/train/evaluate_seq2seq.py
# model-seq2seq (about 4 minutes on 500 pairs).
#   bash tools/train/ship_seq2seq.sh [EXPORT_DIR]   (default build/train-seq2seq/export)
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=/usr/bin/python3  # Debian's python with torch 1.13
EXPORT=${1:-build/train-seq2seq/export}
DEST=model-seq2seq
export OMP_NUM_THREADS=1

# The golden test runs the engine on the shipped model: a dist/ built before the encoder-decoders
# would fail it with E_CONFIG "unsupported model_type t5" after the folder has moved.
grep -q isSeq2SeqConfig dist/attnscope.wasm ||
  { echo "dist/attnscope.wasm predates the encoder-decoders: NODE_PATH=/usr/share/nodejs bash scripts/build.sh wasm first" >&2; exit 1; }

snapshot=$(mktemp -d)
trap 'rm -rf "$snapshot"' EXIT
for f in config.json model.safetensors tokenizer.json tokenizer_config.json heldout.jsonl; do
  [[ -f $EXPORT/$f ]] && cp "$EXPORT/$f" "$snapshot/"
done
$PY tools/train/ship_seq2seq.py "$snapshot" "$DEST"
$PY tools/train/check_seq2seq_tokenizer.py "$DEST"
$PY tests/fixtures/make_bundled_seq2seq_fixture.py
node --test tests/js/bundled-seq2seq.test.js
ls -l "$DEST"
du -sb "$DEST" tests/fixtures/bundled-seq2seq
