# Checks our Python tokenizer (wordpiece.py) against Hugging Face's @huggingface/tokenizers on the
# shipped vocab.txt: every held-out Brown sentence as detokenized text, sentence pairs, and some
# hand-picked edge cases. The training data and fixtures are only right if these agree exactly.
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import brown  # noqa: E402
from wordpiece import WordPiece  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
EDGE_CASES = [
    "The [MASK] of the river.", "Héllo, WÖRLD!  Naïve café déjà-vu", "e-mail: a.b@c.org ~ 50% $3.50",
    "unbelievably antidisestablishmentarianism", "tab\there\nnewline\u00a0nbsp", "日本語 text 中文",
    "x" * 120, "ﬁ ligature and ½ fraction", "“curly quotes” — dash", "", "   ", "don't won't it's",
]


def main():
    model_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "model")
    wp = WordPiece.from_file(os.path.join(model_dir, "vocab.txt"))
    _, held = brown.split_files()
    texts = [brown.detokenize([w for w, _ in s]) for n in held for s in brown.read_sentences(n)]
    cases = [{"text": t, "pair": None} for t in texts + EDGE_CASES]
    cases += [{"text": texts[i], "pair": texts[i + 1]} for i in range(0, 400, 2)]
    for c in cases:
        ids, types = wp.encode(c["text"], c["pair"])
        c["ids"], c["token_type_ids"] = ids, types
    path = os.path.join(ROOT, "build", "train", "tokenizer_check.json")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(cases, f, ensure_ascii=False)
    r = subprocess.run(["node", os.path.join(os.path.dirname(__file__), "check_tokenizer.mjs"),
                        os.path.join(model_dir, "vocab.txt"), path], cwd=ROOT)
    sys.exit(r.returncode)


if __name__ == "__main__":
    main()
