# Checks the shipped decoder's tokenizer three ways, on every held-out Brown sentence, every
# held-out document and hand-picked edge cases:
#  1. @huggingface/tokenizers on model-causal/tokenizer.json against an independent BPE written
#     here from merges.txt + vocab.json (GPT2Tokenizer's algorithm: repeatedly merge the adjacent
#     pair of lowest merge rank), on pieces from our own pre-tokenizer (bpe_words.mjs);
#  2. the held-out documents' ids against build/train-causal/held_out.bin, the evaluation stream
#     (so the shipped tokenizer is the one the model was trained and evaluated with);
#  3. decode: every id maps back through vocab.json and GPT-2's byte table to the text.
import json
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import brown  # noqa: E402
from learn_bpe import EOT, bytes_to_unicode  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
WORK = os.path.join(ROOT, "build", "train-causal")
EDGE_CASES = [
    "The river", " The river", "The  river\n\nflows.\t", "Héllo, WÖRLD! Naïve café déjà-vu",
    "e-mail: a.b@c.org ~ 50% $3.50 1961-62 ½ ²", "don't won't it's we'll I'd they're I'M",
    "日本語 text 中文 🙂 emoji", "   leading and trailing   ", "", "x" * 300,
    "The end.<|endoftext|>The river", "<|endoftext|>", "a<|endoftext|><|endoftext|>b",
    "“curly quotes” — dash … ellipsis", "tab\there\r\nCRLF\u00a0nbsp\u2003em-space",
]


class ReferenceBPE:
    def __init__(self, model_dir):
        with open(os.path.join(model_dir, "vocab.json"), encoding="utf-8") as f:
            self.vocab = json.load(f)
        with open(os.path.join(model_dir, "merges.txt"), encoding="utf-8") as f:
            lines = [ln.rstrip("\n") for ln in f if not ln.startswith("#version")]
        self.rank = {tuple(ln.split(" ")): i for i, ln in enumerate(lines) if ln}
        self.cache = {}

    def piece(self, word):
        if word not in self.cache:
            symbols = list(word)
            while len(symbols) > 1:
                pairs = [(self.rank.get(p, float("inf")), i) for i, p in enumerate(zip(symbols, symbols[1:]))]
                best, _ = min(pairs)
                if best == float("inf"):
                    break
                a, b = next(p for p in zip(symbols, symbols[1:]) if self.rank.get(p) == best)
                merged, i = [], 0
                while i < len(symbols):
                    if i + 1 < len(symbols) and symbols[i] == a and symbols[i + 1] == b:
                        merged.append(a + b)
                        i += 2
                    else:
                        merged.append(symbols[i])
                        i += 1
                symbols = merged
            self.cache[word] = [self.vocab[s] for s in symbols]
        return self.cache[word]

    def encode(self, parts):
        """parts: per segment between <|endoftext|>s, its byte-level pieces."""
        ids = []
        for k, pieces in enumerate(parts):
            if k:
                ids.append(self.vocab[EOT])
            for p in pieces:
                ids.extend(self.piece(p))
        return ids

    def decode(self, ids):
        inverse = {v: k for k, v in self.vocab.items()}
        byte_of = {c: b for b, c in bytes_to_unicode().items()}
        out, buf = [], bytearray()
        for i in ids:
            tok = inverse[i]
            if tok == EOT:
                out.append(buf.decode("utf-8", errors="replace") + EOT)
                buf = bytearray()
            else:
                buf.extend(byte_of[c] for c in tok)
        return "".join(out) + buf.decode("utf-8", errors="replace")


def main():
    model_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "model-causal")
    with open(os.path.join(WORK, "docs.json"), encoding="utf-8") as f:
        held_docs = json.load(f)["held_out"]
    _, held = brown.split_files()
    sentences = [brown.detokenize([w for w, _ in s]) for n in held for s in brown.read_sentences(n)]
    cases = sentences + [d["text"] for d in held_docs] + EDGE_CASES
    cases_path, out_path = os.path.join(WORK, "tokenizer_cases.json"), os.path.join(WORK, "tokenizer_hf.json")
    with open(cases_path, "w", encoding="utf-8") as f:
        json.dump(cases, f, ensure_ascii=False)
    subprocess.run(["node", os.path.join(os.path.dirname(__file__), "check_causal_tokenizer.mjs"),
                    model_dir, cases_path, out_path], cwd=ROOT, check=True)
    with open(out_path, encoding="utf-8") as f:
        hf = json.load(f)
    ref = ReferenceBPE(model_dir)
    bad_ids, bad_decode, tokens = 0, 0, 0
    for text, r in zip(cases, hf):
        ours = ref.encode(r["pieces"])
        tokens += len(r["hf"])
        if ours != r["hf"]:
            bad_ids += 1
            if bad_ids <= 5:
                print("MISMATCH", json.dumps(text)[:100], "\n  ours", ours[:40], "\n  hf  ", r["hf"][:40])
        if ref.decode(r["hf"]) != text:
            bad_decode += 1
            if bad_decode <= 5:
                print("DECODE DIFFERS", json.dumps(text)[:100])

    stream = np.fromfile(os.path.join(WORK, "held_out.bin"), dtype="<u2")
    with open(os.path.join(WORK, "held_out.json"), encoding="utf-8") as f:
        index = json.load(f)["documents"]
    first_doc = len(sentences)
    bad_stream = sum(1 for k, d in enumerate(index)
                     if hf[first_doc + k]["hf"] != stream[d["start"]:d["start"] + d["length"]].tolist())
    print(f"causal tokenizer check: {len(cases)} cases ({len(sentences)} held-out sentences, {len(index)} "
          f"held-out documents, {len(EDGE_CASES)} edge cases), {tokens} tokens: {bad_ids} id mismatches "
          f"(HF vs reference BPE), {bad_decode} decode mismatches, {bad_stream} documents differing from "
          f"the evaluation stream")
    sys.exit(1 if bad_ids or bad_decode or bad_stream else 0)


if __name__ == "__main__":
    main()
