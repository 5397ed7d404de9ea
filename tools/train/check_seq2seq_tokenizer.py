# Checks an exported encoder-decoder folder's tokenizer.json and heldout.jsonl against the engine:
# every source and target goes through `attnscope tokenize` (one JSON string per stdin line) and
# must give the ids seq2seq_tokenizer.py's Python WordPiece gives (so alignment indices count the
# tokens the engine shows, </s> included), every target must have one alignment per token, and
# each aligned target token must be the same token as its source token.
#   python3 check_seq2seq_tokenizer.py FOLDER [--cli js/cli/cli.js]
# (--cli /work/main/js/cli/cli.js where this checkout has no dist/ built.)
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
from seq2seq_tokenizer import SharedWordPiece  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("folder")
    p.add_argument("--cli", default=os.path.join(ROOT, "js", "cli", "cli.js"))
    args = p.parse_args()
    with open(os.path.join(args.folder, "tokenizer.json"), encoding="utf-8") as f:
        vocab = json.load(f)["model"]["vocab"]
    wp = SharedWordPiece([t for t, _ in sorted(vocab.items(), key=lambda kv: kv[1])])
    with open(os.path.join(args.folder, "heldout.jsonl"), encoding="utf-8") as f:
        held = [json.loads(line) for line in f]
    texts = [t for h in held for t in (h["source"], h["target"])]
    with tempfile.TemporaryDirectory() as tmp:  # the tokenizer alone: the CLI's tokenize needs no model
        shutil.copyfile(os.path.join(args.folder, "tokenizer.json"), os.path.join(tmp, "tokenizer.json"))
        run = subprocess.run(["node", args.cli, "tokenize", "--model", tmp],
                             input="".join(json.dumps(t) + "\n" for t in texts), capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"attnscope tokenize failed: {run.stderr[:500]}")
    engine = [json.loads(line)["ids"] for line in run.stdout.splitlines() if line.strip()]
    if len(engine) != len(texts):
        sys.exit(f"{len(texts)} texts, {len(engine)} answers")
    bad_ids = bad_align = 0
    for n, h in enumerate(held):
        src, tgt = engine[2 * n], engine[2 * n + 1]
        if src != wp.encode_text(h["source"]) or tgt != wp.encode_text(h["target"]):
            bad_ids += 1
            if bad_ids <= 3:
                print(f"ids differ: {h['source']!r}")
        a = h["alignment"]
        if len(a) != len(tgt) or any(x is not None and not (0 <= x < len(src) and src[x] == tgt[i])
                                     for i, x in enumerate(a)):
            bad_align += 1
            if bad_align <= 3:
                print(f"alignment wrong: {h['source']!r}")
    tokens = sum(len(t) for t in engine)
    unk = sum(t.count(vocab["<unk>"]) for t in engine)
    moved = sum(x != i for h in held for i, x in enumerate(h["alignment"]))
    total = sum(len(h["alignment"]) for h in held)
    print(f"seq2seq tokenizer check: {len(held)} held-out pairs, {tokens} engine tokens ({unk} <unk>), "
          f"{bad_ids} id mismatches, {bad_align} bad alignments; {moved} of {total} target tokens "
          f"({moved / total:.1%}) align off the diagonal")
    sys.exit(1 if bad_ids or bad_align else 0)


if __name__ == "__main__":
    main()
