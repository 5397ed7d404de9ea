# Held-out evaluation of the shipped model/ on the 50 held-out Brown files: masked-token top-1
# accuracy and masked perplexity exp(mean cross-entropy) over a fixed 15% of tokens, each replaced
# by [MASK]; and on the same positions a unigram baseline (training-split token frequencies).
import argparse
import json
import math
import os
import random
import sys
from collections import Counter

import torch

sys.path.insert(0, os.path.dirname(__file__))
import brown  # noqa: E402
import data  # noqa: E402
import shipped  # noqa: E402
from wordpiece import SPECIALS  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
EVAL_SEED = 12345


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model", default=os.path.join(ROOT, "model"))
    p.add_argument("--out", default=os.path.join(ROOT, "build", "train", "eval.json"))
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--pack-len", type=int, default=0,
                   help="pack held-out text into sequences of this many tokens (default: the model's "
                        "max_position_embeddings, 128; the model card's numbers use the default)")
    args = p.parse_args()
    torch.set_num_threads(args.threads)

    model, wp = shipped.load(args.model)
    V = len(wp.vocab)
    train_files, held_files = brown.split_files()

    # Unigram model from the training split: add-one smoothed over the non-special vocabulary.
    counts = Counter(t for d in data.file_sentences(train_files, wp) for s in d for t in s)
    total = sum(counts.values())
    n_words = V - len(SPECIALS)
    unigram_logp = torch.tensor([math.log((counts.get(i, 0) + 1) / (total + n_words))
                                 if i >= len(SPECIALS) else -math.inf for i in range(V)])
    most_frequent = max(counts, key=lambda i: (counts[i], -i))

    seqs = data.pack(data.file_sentences(held_files, wp), wp, args.pack_len or model.config.max_position_embeddings,
                     random.Random(EVAL_SEED))
    gen = torch.Generator().manual_seed(EVAL_SEED)
    n, correct, top5, ce_sum, uni_correct, uni_nll = 0, 0, 0, 0.0, 0, 0.0
    n_tokens = 0
    with torch.no_grad():
        for i in range(0, len(seqs), 64):
            ids, types, mask = data.collate(seqs[i:i + 64])
            inputs, labels = data.mask_tokens(ids, mask, len(SPECIALS), V, gen, mask_id=wp.ids["[MASK]"],
                                              mask_frac=1.0, random_frac=0.0)
            hidden, _ = model(inputs, types, mask)
            sel = labels != -100
            logits = model.mlm_logits(hidden[sel])
            gold = labels[sel]
            n += len(gold)
            n_tokens += int(((ids >= len(SPECIALS)) & (mask == 1)).sum())
            correct += int((logits.argmax(-1) == gold).sum())
            top5 += int((logits.topk(5, -1).indices == gold[:, None]).any(-1).sum())
            ce_sum += float(torch.nn.functional.cross_entropy(logits, gold, reduction="sum"))
            uni_correct += int((gold == most_frequent).sum())
            uni_nll -= float(unigram_logp[gold].sum())

    result = {
        "held_out_files": held_files, "sequences": len(seqs), "tokens": n_tokens, "masked_tokens": n,
        "seed": EVAL_SEED, "top1": correct / n, "top5": top5 / n, "perplexity": math.exp(ce_sum / n),
        "unigram_top1": uni_correct / n, "unigram_most_frequent_token": wp.vocab[most_frequent],
        "unigram_perplexity": math.exp(uni_nll / n),
    }
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=2)
    print(f"held-out: {len(held_files)} files, {len(seqs)} sequences, {n_tokens} tokens, {n} masked")
    print(f"model:   top-1 {result['top1']:.4f}  top-5 {result['top5']:.4f}  perplexity {result['perplexity']:.1f}")
    print(f"unigram: top-1 {result['unigram_top1']:.4f} (always '{result['unigram_most_frequent_token']}')  "
          f"perplexity {result['unigram_perplexity']:.1f}")


if __name__ == "__main__":
    main()
