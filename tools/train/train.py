# Trains the bundled BERT masked-LM on the Brown training split and exports it to model/ (HF
# layout) at every checkpoint, so a run stopped early still leaves a usable model. Learns the
# vocabulary first if the work folder has none. `--bench N` only measures throughput.
import argparse
import json
import os
import random
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(__file__))
import brown  # noqa: E402
import data  # noqa: E402
import export  # noqa: E402
import learn_vocab  # noqa: E402
from model import BertConfig, BertForMaskedLM  # noqa: E402
from wordpiece import SPECIALS, WordPiece  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--work", default=os.path.join(ROOT, "build", "train"))
    p.add_argument("--out", default=os.path.join(ROOT, "model"))
    p.add_argument("--vocab-size", type=int, default=8000)
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--max-len", type=int, default=128)
    p.add_argument("--batch", type=int, default=32)
    add_run_args(p, steps=6000, lr=1e-3, warmup=300, weight_decay=0.01, seed=20261130, threads=2,
                 checkpoint_minutes=5.0)
    p.add_argument("--checkpoint-every", type=int, default=250)
    p.add_argument("--bench", type=int, default=0, help="run N steps, print tokens/s, write nothing")
    p.add_argument("--qk-init-std", type=float, default=0.0,
                   help="initial std of the query/key weights (default: initializer_range 0.02). "
                        "Attention logits are bilinear in W_q and W_k, so with both at 0.02 every head "
                        "starts near-uniform with a vanishing gradient (a saddle); ~1/sqrt(hidden) gives "
                        "logits of unit scale, and heads become position-selective early")
    p.add_argument("--len-schedule", default="",
                   help="sequence-length warm-up as LEN:UNTIL,... e.g. 32:0.2,64:0.45 trains on 32-token "
                        "sequences until 20%% of the run, then 64 until 45%%, then --max-len; the batch grows "
                        "so every step sees about as many tokens. Short sequences give the masked token "
                        "a bag of *nearby* words even while attention is still uniform, which gets the "
                        "model past the unigram plateau far sooner")
    return p.parse_args()


def add_run_args(p, *, steps, lr, warmup, weight_decay, seed, threads, checkpoint_minutes):
    """The options every trainer here (train.py, train_causal.py, train_seq2seq.py) shares: its
    schedule, seed, processes, logging and checkpoints; the defaults are each trainer's own."""
    p.add_argument("--steps", type=int, default=steps)
    p.add_argument("--lr", type=float, default=lr)
    p.add_argument("--warmup", type=int, default=warmup)
    p.add_argument("--weight-decay", type=float, default=weight_decay)
    p.add_argument("--dropout", type=float, default=0.1)
    p.add_argument("--seed", type=int, default=seed)
    p.add_argument("--threads", type=int, default=threads)
    p.add_argument("--ranks", type=int, default=1,
                   help="data-parallel processes (one core each, gloo all-reduce of the gradients); each "
                        "step's batch is split between them, so a step means the same as with 1. On this "
                        "2-core VM a second torch thread gained 7%%, a second process nearly doubles steps/s "
                        "(but where the other core is busy, the ranks wait for each other at every step)")
    p.add_argument("--time-budget", type=float, default=0,
                   help="minutes of wall-clock training; the schedule follows whichever of steps or time "
                        "runs out first (the machine is shared, so throughput varies)")
    p.add_argument("--checkpoint-minutes", type=float, default=checkpoint_minutes)
    p.add_argument("--log-every", type=int, default=50)
    p.add_argument("--resume", action="store_true")


def launch(run, args, port):
    """run(rank, args) on args.ranks processes (gloo over 127.0.0.1:port; each trainer has its own
    port, so two can run at once), or in this process for one rank."""
    if args.ranks > 1:
        import torch.multiprocessing
        os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
        os.environ.setdefault("MASTER_PORT", str(port))
        torch.multiprocessing.spawn(run, args=(args,), nprocs=args.ranks, join=True)
    else:
        run(0, args)


def ensure_vocab(work, vocab_size):
    path = os.path.join(work, "vocab.txt")
    if not os.path.exists(path):
        t0 = time.time()
        train_files, _ = brown.split_files()
        sentences = [s for n in train_files for s in brown.read_sentences(n)]
        counts = learn_vocab.word_counts(sentences)
        vocab = learn_vocab.learn(counts, vocab_size)
        learn_vocab.write_vocab(vocab, path)
        print(f"vocab: {len(vocab)} tokens from {len(counts)} word types "
              f"({sum(counts.values())} words) in {time.time() - t0:.1f} s", flush=True)
    return path


def progress(step, seconds, args):
    """Fraction of the run done: by steps, or by wall-clock time when a budget is set."""
    p = step / args.steps
    if args.time_budget > 0:
        p = max(p, seconds / (60 * args.time_budget))
    return min(1.0, p)


def lr_at(step, done, args):
    """Linear warm-up over args.warmup steps, then linear decay to 0 as progress reaches 1."""
    if step < args.warmup:
        return args.lr * (step + 1) / args.warmup
    return args.lr * max(0.0, 1.0 - done)


def seq_len_at(done, args):
    """The packing length for this point of the run (see --len-schedule)."""
    for item in filter(None, args.len_schedule.split(",")):
        length, until = item.split(":")
        if done < float(until):
            return int(length)
    return args.max_len


def main():
    launch(run, parse_args(), 29533)


def run(rank, args):
    """One training process; with --ranks > 1, rank 0 logs and writes checkpoints."""
    ranks = args.ranks
    if ranks > 1:
        import torch.distributed as dist
        dist.init_process_group("gloo", rank=rank, world_size=ranks)
    if rank != 0:
        sys.stdout = open(os.devnull, "w")  # one log
    torch.set_num_threads(args.threads)
    os.makedirs(args.work, exist_ok=True)
    print(f"torch {torch.__version__}, threads {torch.get_num_threads()}, args {vars(args)}", flush=True)

    vocab_path = ensure_vocab(args.work, args.vocab_size)
    wp = WordPiece.from_file(vocab_path)
    train_files, held_files = brown.split_files()
    t0 = time.time()
    docs = data.file_sentences(train_files, wp)
    n_tokens = sum(len(s) for d in docs for s in d)
    print(f"train: {len(train_files)} files, {n_tokens} wordpieces (tokenized in {time.time() - t0:.1f} s); "
          f"held out: {len(held_files)} files", flush=True)

    config = BertConfig(vocab_size=len(wp.vocab), hidden_size=args.hidden, num_hidden_layers=args.layers,
                        num_attention_heads=args.heads, intermediate_size=4 * args.hidden,
                        max_position_embeddings=args.max_len, hidden_dropout_prob=args.dropout,
                        attention_probs_dropout_prob=args.dropout)
    torch.manual_seed(args.seed)
    model = BertForMaskedLM(config)
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": args.weight_decay},
                             {"params": no_decay, "weight_decay": 0.0}], lr=args.lr, betas=(0.9, 0.98), eps=1e-6)
    print(f"parameters: {sum(p.numel() for p in model.parameters())}", flush=True)

    if args.qk_init_std > 0:
        with torch.no_grad():
            for layer in model.bert.encoder.layer:
                torch.nn.init.normal_(layer.attention.self.query.weight, std=args.qk_init_std)
                torch.nn.init.normal_(layer.attention.self.key.weight, std=args.qk_init_std)
    ckpt_path = os.path.join(args.work, "checkpoint.pt")
    step, train_seconds = resume_state(model, opt, ckpt_path) if args.resume else (0, 0.0)

    gen = torch.Generator().manual_seed(args.seed + step + 1_000_003 * rank)  # each rank its own masks
    epoch = 0
    total_steps = args.bench or args.steps
    tokens_since, t_log = 0, time.time()
    loss_sum, acc_sum, n_sum = 0.0, 0, 0
    model.train()
    t_start, t_checkpoint = time.time() - train_seconds, time.time()
    done = progress(step, train_seconds, args)
    while step < total_steps and done < 1.0:
        rng = random.Random(args.seed * 1000 + epoch)
        seq_len = seq_len_at(done, args)
        batch = args.batch * args.max_len // seq_len
        seqs = data.pack(docs, wp, seq_len, rng, pair_prob=0.3, short_prob=0.1)
        print(f"epoch {epoch}: {len(seqs)} sequences of up to {seq_len} tokens, batch {batch}", flush=True)
        for ids, types, mask in data.batches(seqs, batch, rng):
            done = progress(step, time.time() - t_start, args) if not args.bench else step / total_steps
            if ranks > 1:  # every rank must take the same branch below: rank 0's clock decides
                done = synced(done)
                if len(ids) < ranks:
                    continue  # an epoch's last, tiny batch: not enough rows to give every rank one
                ids, types, mask = ids[rank::ranks], types[rank::ranks], mask[rank::ranks]
            if step >= total_steps or done >= 1.0:
                break
            if seq_len_at(done, args) != seq_len:
                break  # next stage of the length schedule: repack
            inputs, labels = data.mask_tokens(ids, mask, len(SPECIALS), len(wp.vocab), gen,
                                              mask_id=wp.ids["[MASK]"])
            for g in opt.param_groups:
                g["lr"] = lr = lr_at(step, done, args)
            hidden, _ = model(inputs, types, mask)
            selected = labels != -100
            logits = model.mlm_logits(hidden[selected])  # decoder only where there is a label
            if selected.any():
                loss = torch.nn.functional.cross_entropy(logits, labels[selected])
            else:  # nothing masked in this (rank's part of the) batch: a zero gradient, not NaN
                loss = hidden.sum() * 0.0
            opt.zero_grad(set_to_none=True)
            loss.backward()
            if ranks > 1:
                average_gradients(model, ranks)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            step += 1
            train_seconds = time.time() - t_start
            tokens_since += int(mask.sum()) * ranks
            loss_sum += loss.item() * int(selected.sum())
            acc_sum += int((logits.argmax(-1) == labels[selected]).sum())
            n_sum += int(selected.sum())
            if step % args.log_every == 0:
                dt = time.time() - t_log
                print(f"step {step}/{total_steps} epoch {epoch} lr {lr:.2e} progress {done:.3f} "
                      f"loss {loss_sum / n_sum:.3f} masked-acc {acc_sum / n_sum:.3f} "
                      f"{tokens_since / dt:.0f} tok/s, train {train_seconds / 60:.1f} min", flush=True)
                tokens_since, t_log = 0, time.time()
                loss_sum, acc_sum, n_sum = 0.0, 0, 0
            if not args.bench and rank == 0 and (step % args.checkpoint_every == 0
                                                 or time.time() - t_checkpoint > 60 * args.checkpoint_minutes):
                t_checkpoint = time.time()
                save_checkpoint(model, opt, step, train_seconds, args, ckpt_path, vocab_path)
        epoch += 1
    if not args.bench and rank == 0:
        save_checkpoint(model, opt, step, train_seconds, args, ckpt_path, vocab_path)
    print(f"done: {step} steps, {train_seconds / 60:.1f} min of training", flush=True)


def synced(value):
    """Rank 0's value on every rank."""
    import torch.distributed as dist
    t = torch.tensor([value], dtype=torch.float64)
    dist.broadcast(t, 0)
    return float(t[0])


def average_gradients(model, ranks):
    """All-reduce every gradient (one flat buffer: one message per step) and divide by the ranks."""
    import torch.distributed as dist
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    flat = torch.cat([g.reshape(-1) for g in grads])
    dist.all_reduce(flat)
    flat /= ranks
    at = 0
    for g in grads:
        g.copy_(flat[at:at + g.numel()].view_as(g))
        at += g.numel()


def resume_state(model, opt, ckpt_path):
    """Loads model and optimizer state from a checkpoint if there is one; (step, train_seconds)."""
    if not os.path.exists(ckpt_path):
        return 0, 0.0
    ck = torch.load(ckpt_path)
    model.load_state_dict(ck["model"])
    opt.load_state_dict(ck["opt"])
    print(f"resumed at step {ck['step']}", flush=True)
    return ck["step"], ck["train_seconds"]


def save_checkpoint(model, opt, step, train_seconds, args, ckpt_path, vocab_path):
    """Training state for --resume, and the model exported to args.out in HF layout."""
    torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step,
                "train_seconds": train_seconds, "args": vars(args)}, ckpt_path)
    sizes = export.export(model, vocab_path, args.out,
                          metadata={"step": step, "train_seconds": round(train_seconds)})
    with open(os.path.join(args.work, "train_state.json"), "w") as f:
        json.dump({"step": step, "steps": args.steps, "train_seconds": train_seconds,
                   "args": vars(args), "sizes": sizes}, f, indent=2)
    print(f"checkpoint step {step}: exported {args.out} {sizes} total {sum(sizes.values())} bytes", flush=True)


if __name__ == "__main__":
    main()
