# What the shipped model's attention heads do, measured on the held-out Brown files with Brown's
# POS tags (which the model never saw): attention to the previous / next token, to [CLS] / [SEP]
# (attention sinks), and between determiners (tag AT) and the head noun (NN*/NP*) of their phrase.
# Each sentence runs alone as [CLS] sentence [SEP]; numbers are means over query tokens.
import argparse
import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
import brown  # noqa: E402
import shipped  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# Brown tags carry suffixes: -tl (title), -hl (headline), -nc (cited); '$' marks possessives.
NOUN = {"nn", "nns", "np", "nps", "nr", "nrs"}
# Words that may stand between a determiner and its noun ("the widespread public interest").
MODIFIER = {"jj", "jjr", "jjs", "jjt", "cd", "od", "ap", "ql", "vbn", "vbg", "abn"}


def base_tag(tag):
    t = tag.split("-")[0] if not tag.startswith("-") else tag
    return t.rstrip("$")


def det_noun_pairs(tags):
    """(determiner word index, head noun word index): for each AT word, skip modifiers, then
    take the LAST noun of the first run of nouns ('the primary election' → 'election')."""
    pairs = []
    for i, t in enumerate(tags):
        if base_tag(t) != "at":
            continue
        j = i + 1
        while j < len(tags) and base_tag(tags[j]) in MODIFIER:
            j += 1
        if j < len(tags) and base_tag(tags[j]) in NOUN:
            while j + 1 < len(tags) and base_tag(tags[j + 1]) in NOUN and not tags[j].endswith("$"):
                j += 1
            pairs.append((i, j))
    return pairs


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model", default=os.path.join(ROOT, "model"))
    p.add_argument("--out", default=os.path.join(ROOT, "build", "train", "heads.json"))
    p.add_argument("--max-sentences", type=int, default=3000)
    args = p.parse_args()
    torch.set_num_threads(1)
    model, wp = shipped.load(args.model)
    L, H = model.config.num_hidden_layers, model.config.num_attention_heads
    _, held = brown.split_files()

    prev = torch.zeros(L, H); nxt = torch.zeros(L, H); self_ = torch.zeros(L, H)
    # Two tokens ahead: a head at this offset lands on the noun of "the old man", so its
    # determiner→noun score must be read against the +2 baseline, not only the +1 one.
    next2 = torch.zeros(L, H); n_next2 = 0
    to_cls = torch.zeros(L, H); to_sep = torch.zeros(L, H)
    n_queries = 0
    d2n_mass = torch.zeros(L, H); d2n_top = torch.zeros(L, H)
    n2d_mass = torch.zeros(L, H); n2d_top = torch.zeros(L, H)
    n_pairs = 0
    offset_hits = [0] * 6  # baseline: "the noun is k tokens after its determiner", k = 0..5
    n_sent = 0
    with torch.no_grad():
        for name in held:
            for sent in brown.read_sentences(name):
                if n_sent >= args.max_sentences:
                    break
                pieces, word_of = [], []  # word_of[token] = Brown word index (-1 for specials)
                for wi, (word, _tag) in enumerate(sent):
                    ids = wp.encode_words(brown.surface(word))
                    pieces += ids
                    word_of += [wi] * len(ids)
                if len(pieces) < 2 or len(pieces) > model.config.max_position_embeddings - 2:
                    continue
                n_sent += 1
                ids = [wp.ids["[CLS]"]] + pieces + [wp.ids["[SEP]"]]
                word_of = [-1] + word_of + [-1]
                T = len(ids)
                _, atts = model(torch.tensor([ids]), torch.zeros(1, T, dtype=torch.long),
                                torch.ones(1, T, dtype=torch.long))
                att = torch.stack([a[0] for a in atts])  # (L, H, T, T)
                q = torch.arange(1, T - 1)  # non-special query tokens
                prev += att[:, :, q, q - 1].sum(-1)
                nxt += att[:, :, q, q + 1].sum(-1)
                self_ += att[:, :, q, q].sum(-1)
                q2 = torch.arange(1, T - 2)  # queries with a token two ahead (possibly [SEP])
                next2 += att[:, :, q2, q2 + 2].sum(-1)
                n_next2 += len(q2)
                to_cls += att[:, :, q, 0].sum(-1)
                to_sep += att[:, :, q, T - 1].sum(-1)
                n_queries += len(q)

                tokens_of = {}
                for t, w in enumerate(word_of):
                    tokens_of.setdefault(w, []).append(t)
                argmax = att.argmax(-1)  # (L, H, T): the most-attended token of each query
                for d, n in det_noun_pairs([tag for _, tag in sent]):
                    dt, nt = tokens_of[d][0], tokens_of[n]
                    d2n_mass += att[:, :, dt, nt].sum(-1)
                    d2n_top += torch.isin(argmax[:, :, dt], torch.tensor(nt)).float()
                    # Noun → determiner, queried from the noun's first piece.
                    n2d_mass += att[:, :, nt[0], dt]
                    n2d_top += (argmax[:, :, nt[0]] == dt).float()
                    n_pairs += 1
                    for k in range(1, 6):
                        offset_hits[k] += int(dt + k in nt)

    def best(m, label):
        l, h = divmod(int(m.argmax()), H)
        return {"metric": label, "layer": l, "head": h, "value": float(m[l, h]),
                "mean_over_heads": float(m.mean())}

    stats = {k: v / n_queries for k, v in
             {"prev": prev, "next": nxt, "self": self_, "cls": to_cls, "sep": to_sep}.items()}
    pair_stats = {k: v / n_pairs for k, v in
                  {"det_to_noun_mass": d2n_mass, "det_to_noun_top1": d2n_top,
                   "noun_to_det_mass": n2d_mass, "noun_to_det_top1": n2d_top}.items()}
    stats["next2"] = next2 / max(1, n_next2)
    sink = stats["cls"] + stats["sep"]
    offset_accuracy = {k: offset_hits[k] / max(1, n_pairs) for k in range(1, 6)}
    best_offset = max(offset_accuracy, key=offset_accuracy.get)
    result = {
        "sentences": n_sent, "query_tokens": n_queries, "det_noun_pairs": n_pairs,
        "baseline_best_fixed_offset": best_offset,
        "baseline_best_fixed_offset_accuracy": offset_accuracy[best_offset],
        "baseline_offset_accuracy": offset_accuracy,
        "best": [best(stats["prev"], "mean attention to the previous token"),
                 best(stats["next"], "mean attention to the next token"),
                 best(stats["next2"], "mean attention two tokens ahead"),
                 best(sink, "mean attention to [CLS]+[SEP] (sink)"),
                 best(stats["sep"], "mean attention to [SEP]"),
                 best(stats["cls"], "mean attention to [CLS]"),
                 best(pair_stats["det_to_noun_top1"], "determiner's most-attended token is its noun"),
                 best(pair_stats["det_to_noun_mass"], "determiner → noun attention mass"),
                 best(pair_stats["noun_to_det_top1"], "noun's most-attended token is its determiner"),
                 best(pair_stats["noun_to_det_mass"], "noun → determiner attention mass")],
        "per_head": {k: v.tolist() for k, v in {**stats, **pair_stats}.items()},
    }
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
    print(f"{n_sent} held-out sentences, {n_queries} query tokens, {n_pairs} determiner-noun pairs "
          f"(baseline: the noun is {result['baseline_best_fixed_offset']} token(s) after its determiner "
          f"in {result['baseline_best_fixed_offset_accuracy']:.3f} of pairs)")
    print("  noun k tokens after its determiner: " + ", ".join(
        f"k={k} {v:.3f}" for k, v in result["baseline_offset_accuracy"].items()))
    for b in result["best"]:
        print(f"  {b['metric']}: layer {b['layer']} head {b['head']} = {b['value']:.3f} "
              f"(mean over all heads {b['mean_over_heads']:.3f})")
    print("per head [layer][head]:")
    for k in ("prev", "next", "next2", "self", "cls", "sep", "det_to_noun_top1", "noun_to_det_top1"):
        rows = result["per_head"][k]
        print(f"  {k:18s} " + " | ".join(" ".join(f"{x:.2f}" for x in row) for row in rows))


if __name__ == "__main__":
    main()
