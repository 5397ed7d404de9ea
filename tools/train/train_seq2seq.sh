#!/usr/bin/env bash
# Builds the bundled encoder-decoder (bundled-seq2seq) end to end: Brown sentences reordered into
# subject-object-verb order (seq2seq_data.py) → shared WordPiece tokenizer.json and encoded pairs
# with token alignments (seq2seq_tokenizer.py) → T5 training on both cores (train_seq2seq.py, exports
# $OUT at every checkpoint) → held-out evaluation (evaluate_seq2seq.py). Logs and checkpoints go to
# $WORK (default build/train-seq2seq/).
#   OUT (default $WORK/export): the exported folder; model-seq2seq/ once it is good.
#   RESUME=1 continues from $WORK/checkpoint.pt or, where build/ did not survive,
#   from $OUT's weights and the step and time their metadata records (fresh optimizer moments).
#   TIME_BUDGET=<minutes> (default 60) is the training's wall-clock schedule; BATCH (default 64)
#   the pairs per step; D_MODEL, D_FF, LAYERS, DEC_LAYERS, HEADS, LR the shape and rate.
#   RANKS (default 2) the processes the batch is split over: 1 on a machine whose other core is
#   busy (two ranks wait for each other at every step, so one busy core stalls both).
#   SKIP_TRAIN=1 reruns data, tokenizer and evaluation only.
#   WORK (default build/train-seq2seq): data, logs and checkpoint; another one for a second model
#   (a grown one, grow_seq2seq.py) keeps the first's checkpoint.
# Run it niced on a shared machine:  setsid nohup nice -n 19 tools/train/train_seq2seq.sh &
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=/usr/bin/python3  # Debian's python with torch 1.13
WORK=${WORK:-build/train-seq2seq}
OUT=${OUT:-$WORK/export}
export OMP_NUM_THREADS=1
mkdir -p $WORK
log() { echo "[$(date -u +%H:%M:%S)] $*"; }
t0=$SECONDS

log "SOV pairs from Brown (train / held-out documents), WordPiece vocabulary of 4,096, token alignments"
$PY tools/train/seq2seq_data.py $WORK > $WORK/data.txt  # counts and ten held-out examples
head -n 2 $WORK/data.txt
$PY tools/train/seq2seq_tokenizer.py $WORK 4096

if [[ -z ${SKIP_TRAIN:-} ]]; then
  # T5 v1.0 (relu, tied), d_model 256, 4 heads of 64, d_ff 512, 2 + 2 blocks: 3.67 M parameters,
  # 7.35 MB in fp16 (the limit is 8 MB). 64 pairs per step, split over the ranks.
  log "training → $WORK/train.log"
  $PY tools/train/train_seq2seq.py --work $WORK --out "$OUT" --d-model "${D_MODEL:-256}" --d-ff "${D_FF:-512}" \
    --layers "${LAYERS:-2}" --decoder-layers "${DEC_LAYERS:-2}" --heads "${HEADS:-4}" --d-kv 64 \
    --batch "${BATCH:-64}" --lr "${LR:-1.5e-2}" --warmup 200 --dropout 0.1 --weight-decay 0.01 --steps 100000 \
    --time-budget "${TIME_BUDGET:-60}" --ranks "${RANKS:-2}" --threads 1 --checkpoint-minutes 4 --log-every 50 \
    ${RESUME:+--resume} >> $WORK/train.log 2>&1
  tail -n 2 $WORK/train.log
fi
log "tokenizer.json and heldout.jsonl vs the engine's tokenize (ATTNSCOPE_CLI: another checkout's js/cli/cli.js)"
$PY tools/train/check_seq2seq_tokenizer.py "$OUT" ${ATTNSCOPE_CLI:+--cli "$ATTNSCOPE_CLI"} | tee $WORK/tokenizer_check.txt
log "held-out evaluation"
$PY tools/train/evaluate_seq2seq.py "$OUT" | tee $WORK/eval.txt
ls -l "$OUT"
du -sb "$OUT"
log "done in $((SECONDS - t0)) s"
