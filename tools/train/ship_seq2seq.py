# Puts an exported encoder-decoder folder (train_seq2seq.py's export) in place as the bundled
# model: config.json, model.safetensors (fp16: converted if the export is not), tokenizer.json,
# tokenizer_config.json and heldout.jsonl (the export's, or written from WORK/held_out.jsonl as the
# training writes it). heldout.jsonl is checked against the alignment definition of MODEL.md (bundled encoder–decoder) before anything moves:
# ≥ 200 lines of exactly {"source", "target", "alignment"}, one alignment per target token (</s>
# included, counted after decoder_start_token_id), each an index into the source's tokens (</s>
# included) holding the same token, or null. The folder is replaced in one rename.
#   python3 ship_seq2seq.py EXPORT_DIR DEST [--work build/train-seq2seq]
import argparse
import json
import os
import shutil
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import safetensors_io  # noqa: E402
from seq2seq_tokenizer import SharedWordPiece  # noqa: E402
from train_seq2seq import TOKENIZER_FILES, heldout_lines  # noqa: E402

MIN_HELDOUT = 200
MAX_BYTES = 8_000_000  # the shipped folder's budget: ≤ 8 MB


def header(path):
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        return json.loads(f.read(n))


def ship_weights(src, dst):
    """Copies model.safetensors, converting float tensors to F16 where they are not already."""
    h = header(src)
    metadata = h.pop("__metadata__", {})
    if all(t["dtype"] == "F16" for t in h.values()):
        shutil.copyfile(src, dst)
        return "F16 as exported"
    tensors = {k: v.half() if v.is_floating_point() else v for k, v in safetensors_io.load(src).items()}
    safetensors_io.save(tensors, dst, metadata=metadata)
    return f"converted to F16 from {sorted({t['dtype'] for t in h.values()})}"


def check_heldout(lines, wp):
    held = [json.loads(line) for line in lines]
    if len(held) < MIN_HELDOUT:
        sys.exit(f"heldout.jsonl has {len(held)} examples, fewer than {MIN_HELDOUT}")
    for n, h in enumerate(held):
        if sorted(h) != ["alignment", "source", "target"]:
            sys.exit(f"heldout.jsonl line {n + 1}: keys {sorted(h)}, not source/target/alignment")
        src, tgt = wp.encode_text(h["source"]), wp.encode_text(h["target"])
        a = h["alignment"]
        if len(a) != len(tgt) or any(x is not None and not (isinstance(x, int) and 0 <= x < len(src) and src[x] == tgt[i])
                                     for i, x in enumerate(a)):
            sys.exit(f"heldout.jsonl line {n + 1}: alignment does not fit the tokens of {h['source']!r}")
    return len(held)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("export")
    p.add_argument("dest")
    p.add_argument("--work", default=os.path.join(HERE, "..", "..", "build", "train-seq2seq"))
    args = p.parse_args()
    with open(os.path.join(args.export, "config.json"), encoding="utf-8") as f:
        config = json.load(f)
    if config.get("model_type") != "t5":
        sys.exit(f"{args.export}/config.json: model_type {config.get('model_type')!r}, expected 't5'")
    with open(os.path.join(args.export, "tokenizer.json"), encoding="utf-8") as f:
        vocab = json.load(f)["model"]["vocab"]
    wp = SharedWordPiece([t for t, _ in sorted(vocab.items(), key=lambda kv: kv[1])])

    staging = args.dest.rstrip("/") + ".staging"
    shutil.rmtree(staging, ignore_errors=True)
    os.makedirs(staging)
    weights = ship_weights(os.path.join(args.export, "model.safetensors"), os.path.join(staging, "model.safetensors"))
    for name in ("config.json",) + TOKENIZER_FILES:
        shutil.copyfile(os.path.join(args.export, name), os.path.join(staging, name))
    exported = os.path.join(args.export, "heldout.jsonl")
    if os.path.exists(exported):
        with open(exported, encoding="utf-8") as f:
            lines = f.readlines()
        origin = "the export's"
    else:
        with open(os.path.join(args.work, "held_out.jsonl"), encoding="utf-8") as f:
            lines = heldout_lines([json.loads(line) for line in f])
        origin = f"written from {args.work}/held_out.jsonl"
    count = check_heldout(lines, wp)
    with open(os.path.join(staging, "heldout.jsonl"), "w", encoding="utf-8") as f:
        f.writelines(lines)

    total = sum(os.path.getsize(os.path.join(staging, n)) for n in os.listdir(staging))
    if total > MAX_BYTES:
        shutil.rmtree(staging)
        sys.exit(f"{total} bytes: over the {MAX_BYTES} byte budget; nothing shipped")
    old = args.dest.rstrip("/") + ".old"
    shutil.rmtree(old, ignore_errors=True)
    if os.path.isdir(args.dest):
        os.rename(args.dest, old)
    os.rename(staging, args.dest)
    shutil.rmtree(old, ignore_errors=True)
    meta = header(os.path.join(args.dest, "model.safetensors")).get("__metadata__", {})
    print(f"shipped {args.export} → {args.dest}: step {meta.get('step', '?')}, "
          f"{int(meta.get('train_seconds', 0)) / 60:.1f} min of training; weights {weights}; "
          f"heldout.jsonl {count} examples ({origin}); {total:,} bytes in all")


if __name__ == "__main__":
    main()
