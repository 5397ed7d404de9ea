# What the shipped decoder's heads do, measured on held-out Brown text and random tokens, plus
# sample generations. Per head (layer.head):
#  prev   mean attention from token i to token i-1 (queries i >= 2, so the first token is not it)
#  first  mean attention to the first token of the window (queries i >= 8): "attention sinks"
#  self   mean attention from token i to itself (queries i >= 1)
#  induct on R random ordinary tokens repeated twice (after one <|endoftext|>), mean attention
#         from each token of the second copy to the token AFTER its previous occurrence; the
#         uniform-attention value for the same queries is printed as the baseline.
# Generations: greedy, and sampled (temperature 0.8, top-k 40, fixed seed) from three prompts.
import argparse
import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
import causal_data  # noqa: E402
import shipped_causal  # noqa: E402
from learn_bpe import EOT, bytes_to_unicode  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
WORK = os.path.join(ROOT, "build", "train-causal")
PROMPTS = ["The river", "In the morning", "The committee said that"]
SEED = 20261201


def decoder(vocab):
    inverse = {v: k for k, v in vocab.items()}
    byte_of = {c: b for b, c in bytes_to_unicode().items()}

    def decode(ids):
        out = bytearray()
        for i in ids:
            tok = inverse[int(i)]
            out.extend(tok.encode() if tok == EOT else bytes(byte_of[c] for c in tok))
        return out.decode("utf-8", errors="replace")
    return decode


@torch.no_grad()
def attention(model, x):
    _, atts = model(x)
    return torch.stack(atts, 1)  # (B, L, H, T, T)


def text_scores(model, chunks):
    a = attention(model, chunks)
    T = a.shape[-1]
    i = torch.arange(T)
    prev = a[..., i[2:], i[2:] - 1].mean((0, -1))  # (L, H)
    first = a[..., 8:, 0].mean((0, -1))
    self_ = a[..., i[1:], i[1:]].mean((0, -1))
    uniform_prev = (1.0 / (i[2:] + 1).double()).mean().item()
    uniform_first = (1.0 / (i[8:] + 1).double()).mean().item()
    return prev, first, self_, uniform_prev, uniform_first


def induction_scores(model, eot, n_seq=24, R=48):
    g = torch.Generator().manual_seed(SEED)
    rand = torch.randint(256, eot, (n_seq, R), generator=g)  # merged tokens only: no single bytes
    x = torch.cat([torch.full((n_seq, 1), eot), rand, rand], 1)  # positions: 0 eot, 1..R, R+1..2R
    a = attention(model, x)
    q = torch.arange(R + 1, 2 * R)  # second copy, except its last token (nothing comes after it)
    k = q - R + 1  # the token after the previous occurrence of x[q]
    induct = a[..., q, k].mean((0, -1))
    uniform = (1.0 / (q + 1).double()).mean().item()
    hidden, _ = model(x[:, :-1])
    pred = model.logits(hidden).argmax(-1)
    gold = x[:, 1:]
    first_copy = (pred[:, 1:R] == gold[:, 1:R]).float().mean().item()  # predicting x_2..x_R
    second_copy = (pred[:, R + 1:] == gold[:, R + 1:]).float().mean().item()
    return induct, uniform, first_copy, second_copy


@torch.no_grad()
def generate(model, ids, n, temperature=0.0, top_k=0, generator=None):
    ids = list(ids)
    for _ in range(n):
        x = torch.tensor([ids[-model.config.n_positions:]])
        hidden, _ = model(x)
        logits = model.logits(hidden[0, -1])
        if temperature == 0:
            nxt = int(logits.argmax())
        else:
            logits = logits / temperature
            if top_k:
                kth = logits.topk(top_k).values[-1]
                logits = logits.masked_fill(logits < kth, float("-inf"))
            nxt = int(torch.multinomial(logits.softmax(-1), 1, generator=generator))
        ids.append(nxt)
    return ids


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model", default=os.path.join(ROOT, "model-causal"))
    p.add_argument("--work", default=WORK)
    p.add_argument("--out", default=os.path.join(WORK, "heads.json"))
    p.add_argument("--chunks", type=int, default=48)
    p.add_argument("--new-tokens", type=int, default=40)
    args = p.parse_args()
    torch.set_num_threads(1)
    model, vocab = shipped_causal.load(args.model)
    decode = decoder(vocab)
    eot = vocab[EOT]
    held, index = causal_data.load_stream(args.work, "held_out")
    full = [c for c in causal_data.eval_chunks(held, index, model.config.n_positions)
            if len(c) == model.config.n_positions]
    chunks = torch.stack(full[::max(1, len(full) // args.chunks)][:args.chunks])
    prev, first, self_, u_prev, u_first = text_scores(model, chunks)
    induct, u_induct, copy1, copy2 = induction_scores(model, eot)

    L, H = prev.shape
    print(f"heads on {len(chunks)} held-out chunks of {chunks.shape[1]} tokens; uniform causal attention would give "
          f"prev {u_prev:.3f}, first {u_first:.3f}; induction on 24 random 48-token sequences repeated "
          f"(uniform {u_induct:.3f})")
    print("head   prev  first   self  induct")
    heads = []
    for l in range(L):
        for h in range(H):
            row = {"layer": l, "head": h, "prev": prev[l, h].item(), "first": first[l, h].item(),
                   "self": self_[l, h].item(), "induction": induct[l, h].item()}
            heads.append(row)
            print(f"{l}.{h}   {row['prev']:.3f}  {row['first']:.3f}  {row['self']:.3f}  {row['induction']:.3f}")
    best = lambda key: max(heads, key=lambda r: r[key])  # noqa: E731
    for key in ("prev", "first", "induction"):
        b = best(key)
        print(f"strongest {key}: head {b['layer']}.{b['head']} ({b[key]:.3f})")
    print(f"random-sequence next-token top-1: first copy {100 * copy1:.1f}%, second copy {100 * copy2:.1f}% "
          f"(in-context copying)")

    generations = []
    for prompt, (ids, _tokens) in zip(PROMPTS, hf_encode(args.model, PROMPTS)):
        greedy = generate(model, ids, args.new_tokens)
        sampled = generate(model, ids, args.new_tokens, temperature=0.8, top_k=40,
                           generator=torch.Generator().manual_seed(SEED))
        g = {"prompt": prompt, "prompt_ids": ids, "greedy": decode(greedy), "sampled": decode(sampled)}
        generations.append(g)
        print(f"\nprompt {prompt!r} ids {ids}\n  greedy:  {g['greedy']!r}\n  sampled: {g['sampled']!r}")
    with open(args.out, "w") as f:
        json.dump({"uniform": {"prev": u_prev, "first": u_first, "induction": u_induct}, "heads": heads,
                   "random_copy_top1": {"first_copy": copy1, "second_copy": copy2},
                   "generations": generations}, f, indent=1)


def hf_encode(model_dir, texts):
    """[(ids, tokens)] from @huggingface/tokenizers (encode_texts.mjs) on the folder's tokenizer.json."""
    import subprocess
    out = subprocess.run(["node", os.path.join(os.path.dirname(__file__), "encode_texts.mjs"), model_dir,
                          json.dumps(texts)], cwd=ROOT, check=True, capture_output=True, text=True).stdout
    return [(r["ids"], r["tokens"]) for r in json.loads(out)]


if __name__ == "__main__":
    main()
