#!/usr/bin/python3
"""Writes web/data/corpus-sample.json: held-out Brown sentences (never trained on by either bundled
model) with each word's character span and part of speech, for the page's head table, its
query/key map and the per-head POS summary (issue "Probe the heads").

Deterministic: every 7th sentence of 6 to 30 words from the held-out files, in file order, until
COUNT. Brown's 80-odd tags are folded into the 12 coarse classes of Petrov et al. (2012), which a
reader can read (NOUN, VERB, ...). Compact, as the page ships it: {"classes": [...], "sentences":
[[text, [[start, end, class index], ...]], ...]} (character spans into the text).
Run: /usr/bin/python3 tools/corpus_sample.py
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "train"))
import brown  # noqa: E402

COUNT = 300
CLASSES = ["NOUN", "VERB", "ADJ", "ADV", "PRON", "DET", "ADP", "CONJ", "NUM", "PRT", "PUNCT", "X"]
OUT = os.path.join(os.path.dirname(__file__), "..", "web", "data", "corpus-sample.json")


def coarse(tag):
    """Brown tag → universal POS class (Petrov, Das & McDonald 2012, their Brown mapping, shortened)."""
    t = tag.lower().split("-")[0] if not tag.startswith("-") else tag.lower()
    t = t.rstrip("*$") or t
    if t in {".", ",", ":", "(", ")", "'", "''", "``", "--"}:
        return "PUNCT"
    if t.startswith(("nn", "np", "nr")):
        return "NOUN"
    if t.startswith(("vb", "be", "do", "hv", "md")):
        return "VERB"
    if t.startswith("jj") or t == "od":
        return "ADJ"
    if t.startswith(("rb", "wrb", "ql", "rn")):
        return "ADV"
    if t.startswith(("pp", "wp", "ex")):
        return "PRON"
    if t.startswith(("at", "dt", "ab", "ap", "wdt")):
        return "DET"
    if t in {"in"}:
        return "ADP"
    if t in {"cc", "cs"}:
        return "CONJ"
    if t == "cd":
        return "NUM"
    if t in {"to", "rp"}:
        return "PRT"
    return "X"


def with_spans(words):
    """brown.detokenize's text, with each word's [start, end) character span in it."""
    text, spans, glue_next = "", [], True
    for w in words:
        piece = brown.surface(w)
        if text and not glue_next and w not in brown._ATTACH_LEFT:
            text += " "
        spans.append([len(text), len(text) + len(piece)])
        text += piece
        glue_next = w in brown._ATTACH_RIGHT
    assert text == brown.detokenize(words)
    return text, spans


def main():
    _, held = brown.split_files()
    sample, seen = [], 0
    for name in held:
        for sentence in brown.read_sentences(name):
            if not 6 <= len(sentence) <= 30:
                continue
            seen += 1
            if seen % 7:
                continue
            words = [w for w, _ in sentence]
            text, spans = with_spans(words)
            sample.append([text, [[s[0], s[1], CLASSES.index(coarse(t))] for s, (_, t) in zip(spans, sentence)]])
            if len(sample) == COUNT:
                break
        if len(sample) == COUNT:
            break
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump({"source": "Brown corpus, held-out files (every 10th), every 7th sentence of 6-30 words",
                   "pos": "universal POS classes (Petrov et al. 2012) from the Brown tags",
                   "classes": CLASSES, "sentences": sample}, f, separators=(",", ":"))
    counts = {}
    for _, words in sample:
        for w in words:
            counts[CLASSES[w[2]]] = counts.get(CLASSES[w[2]], 0) + 1
    print(f"{len(sample)} sentences, {os.path.getsize(OUT)} bytes: {sorted(counts.items(), key=lambda x: -x[1])}")


if __name__ == "__main__":
    main()
