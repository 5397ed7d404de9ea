# The Brown corpus as plain running text for the causal (GPT-2 style) model: one document per
# Brown file, its sentences detokenized (brown.detokenize) and joined by single spaces. Same
# train / held-out split as the bundled BERT (brown.split_files). Writes build/train-causal/docs.json,
# which the Node stages (BPE pre-tokenization, encoding with @huggingface/tokenizers) read.
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import brown  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
WORK = os.path.join(ROOT, "build", "train-causal")


def document(name):
    return " ".join(brown.detokenize([w for w, _ in s]) for s in brown.read_sentences(name))


def documents():
    """{"train": [{"name", "text"}], "held_out": [...]} in sorted file order."""
    train, held = brown.split_files()
    return {"train": [{"name": n, "text": document(n)} for n in train],
            "held_out": [{"name": n, "text": document(n)} for n in held]}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(WORK, "docs.json")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    docs = documents()
    with open(out, "w", encoding="utf-8") as f:
        json.dump(docs, f, ensure_ascii=False)
    chars = {k: sum(len(d["text"]) for d in v) for k, v in docs.items()}
    non_ascii = sorted({c for v in docs.values() for d in v for c in d["text"] if ord(c) > 127})
    print(f"docs: {len(docs['train'])} train / {len(docs['held_out'])} held-out files, chars {chars}, "
          f"non-ASCII characters {non_ascii}")


if __name__ == "__main__":
    main()
