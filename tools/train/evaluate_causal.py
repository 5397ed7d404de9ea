# Held-out evaluation of the shipped decoder (model-causal/) on the 50 held-out Brown files:
# next-token top-1 / top-5 accuracy and perplexity exp(mean cross-entropy), two ways:
# - "sliding": each held-out document read through n_positions-token windows moved n_positions / 2
#   at a time, so every token after the document's first is predicted once, with at least half a
#   window of the document before it (Hugging Face's "perplexity of fixed-length models");
# - "chunks": each document cut into n_positions-token chunks (no overlap), every token after a
#   chunk's first predicted from the chunk before it; half the tokens then see under half a window.
# On exactly the same positions: a unigram and a bigram model fitted on the training split's id
# stream (add-one unigram; bigram interpolated with it by Witten-Bell, which needs no tuning on
# held-out data).
import argparse
import json
import math
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
import causal_data  # noqa: E402
import shipped_causal  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
WORK = os.path.join(ROOT, "build", "train-causal")
# Context-length buckets for accuracy by position: how much the model uses longer context.
BUCKETS = [(1, 4), (4, 16), (16, 64), (64, 256)]


def baselines(train, V):
    """→ (unigram log-probs (V,), bigram log-probs (V, V) indexed [previous, next]) as float64."""
    t = train.numpy()
    uni_counts = np.bincount(t, minlength=V).astype(np.float64)
    p_uni = (uni_counts + 1) / (uni_counts.sum() + V)
    pair = np.bincount(t[:-1] * V + t[1:], minlength=V * V).reshape(V, V).astype(np.float64)
    c_prev = pair.sum(1, keepdims=True)
    types_after = (pair > 0).sum(1, keepdims=True)  # N1+(prev ·): distinct continuations seen
    with np.errstate(invalid="ignore", divide="ignore"):
        p_bi = (pair + types_after * p_uni[None, :]) / (c_prev + types_after)
    p_bi[c_prev[:, 0] == 0] = p_uni  # a context never seen in training: back off fully
    return torch.from_numpy(np.log(p_uni)), torch.from_numpy(np.log(p_bi))


class Scores:
    def __init__(self):
        self.n, self.top1, self.top5, self.nll = 0, 0, 0, 0.0
        self.by_pos = {b: [0, 0] for b in BUCKETS}

    def add(self, logp, gold, positions):
        """logp (N, V) log-probabilities, gold (N,), positions (N,) of the predicting token."""
        top = logp.topk(5, dim=-1).indices
        hit1 = top[:, 0] == gold
        self.n += len(gold)
        self.top1 += int(hit1.sum())
        self.top5 += int((top == gold[:, None]).any(-1).sum())
        self.nll -= float(logp.gather(1, gold[:, None]).sum())
        for lo, hi in BUCKETS:
            sel = (positions + 1 >= lo) & (positions + 1 < hi)  # context length = position + 1
            self.by_pos[(lo, hi)][0] += int(sel.sum())
            self.by_pos[(lo, hi)][1] += int(hit1[sel].sum())

    def summary(self):
        return {"positions": self.n, "top1": self.top1 / self.n, "top5": self.top5 / self.n,
                "perplexity": math.exp(self.nll / self.n),
                "top1_by_context": {f"{lo}-{hi - 1}": h / max(n, 1) for (lo, hi), (n, h) in self.by_pos.items()}}


def batches(windows, size=16):
    """causal_data.eval_windows' (window, first) grouped by both (no padding) → (x (B, L), first,
    gold (B·(L-1-first),), positions (B·(L-1-first),)): the scored targets x[:, first + 1:]."""
    groups = {}
    for w, first in windows:
        groups.setdefault((len(w), first), []).append(w)
    for (length, first), group in sorted(groups.items()):
        for i in range(0, len(group), size):
            x = torch.stack(group[i:i + size])
            yield x, first, x[:, first + 1:].reshape(-1), torch.arange(first, length - 1).repeat(len(x))


def next_token_logp(model, x, first=0):
    """float64 log-probabilities (B·(L-1-first), V) of the next tokens of x (B, L) from x[:, first + 1] on."""
    hidden, _ = model(x[:, :-1])
    return F.log_softmax(model.logits(hidden[:, first:]).double(), dim=-1).reshape(-1, model.config.vocab_size)


def schemes(length):
    """The two readings of the held-out documents (see the top of this file) → ((name, stride), …)."""
    return (("sliding", length // 2), ("chunks", length))


def evaluate(model, uni_logp, bi_logp, windows):
    """{"model" | "bigram" | "unigram": Scores} on the scored targets of windows."""
    V = model.config.vocab_size
    scores = {"model": Scores(), "bigram": Scores(), "unigram": Scores()}
    with torch.no_grad():
        for x, first, gold, pos in batches(windows):
            scores["model"].add(next_token_logp(model, x, first), gold, pos)
            scores["bigram"].add(bi_logp[x[:, first:-1].reshape(-1)], gold, pos)
            scores["unigram"].add(uni_logp.expand(len(gold), V), gold, pos)
    return scores


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model", default=os.path.join(ROOT, "model-causal"))
    p.add_argument("--work", default=WORK)
    p.add_argument("--out", default=os.path.join(WORK, "eval.json"))
    p.add_argument("--threads", type=int, default=1)
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    model, vocab = shipped_causal.load(args.model)
    V = len(vocab)
    train, _ = causal_data.load_stream(args.work, "train")
    held, index = causal_data.load_stream(args.work, "held_out")
    uni_logp, bi_logp = baselines(train, V)
    L = model.config.n_positions
    result = {}
    for scheme, stride in schemes(L):
        windows = causal_data.eval_windows(held, index, L, stride)
        scores = evaluate(model, uni_logp, bi_logp, windows)
        result[scheme] = {"stride": stride, "windows": len(windows), **{n: s.summary() for n, s in scores.items()}}
    curve_path = os.path.join(args.work, "curve.jsonl")
    if os.path.exists(curve_path):
        with open(curve_path) as f:
            result["checkpoints"] = [json.loads(ln) for ln in f if ln.strip()]
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
    for scheme, _ in schemes(L):
        r = result[scheme]
        print(f"held-out Brown next-token prediction (50 files), {scheme}: {r['model']['positions']} positions in "
              f"{r['windows']} windows of <= {L} tokens, stride {r['stride']}:")
        for name in ("model", "bigram", "unigram"):
            m = r[name]
            print(f"  {name:8s} top-1 {100 * m['top1']:.2f}%  top-5 {100 * m['top5']:.2f}%  perplexity {m['perplexity']:.1f}"
                  f"  top-1 by context length {{{', '.join(f'{k}: {100 * v:.1f}%' for k, v in m['top1_by_context'].items())}}}")
    for c in result.get("checkpoints", []):
        print(f"  checkpoint step {c['step']:6d} at {c['train_minutes']:6.1f} min: probe loss {c['probe_loss']:.3f}, "
              f"probe top-1 {100 * c['probe_top1']:.1f}%")


if __name__ == "__main__":
    main()
