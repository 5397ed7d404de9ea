# Trains the bundled decoder (model_causal.GPT2LMHeadModel) on the Brown training split's token
# stream (encode_causal.mjs) and exports model-causal/ in Hugging Face GPT2LMHeadModel layout at
# every checkpoint, so a run stopped early still leaves a usable model. The schedule, the
# data-parallel --ranks recipe and the checkpoint cadence are train.py's. `--bench N` only
# measures throughput.
import argparse
import json
import struct
import os
import shutil
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
import causal_data  # noqa: E402
import safetensors_io  # noqa: E402
import shipped_causal  # noqa: E402
from model_causal import GPT2Config, GPT2LMHeadModel  # noqa: E402
from train import add_run_args, average_gradients, launch, lr_at, progress, resume_state, seq_len_at, synced  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TOKENIZER_FILES = ("tokenizer.json", "vocab.json", "merges.txt", "tokenizer_config.json")


def parse_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--work", default=os.path.join(ROOT, "build", "train-causal"))
    p.add_argument("--out", default=os.path.join(ROOT, "model-causal"))
    p.add_argument("--n-embd", type=int, default=128)
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--n-positions", type=int, default=256)
    p.add_argument("--seq-len", type=int, default=0, help="training window (default: n_positions)")
    p.add_argument("--batch", type=int, default=16, help="windows per step, over all ranks")
    add_run_args(p, steps=20000, lr=2e-3, warmup=300, weight_decay=0.1, seed=20261201, threads=1,
                 checkpoint_minutes=4.0)
    p.add_argument("--bench", type=int, default=0, help="run N steps, print tokens/s, write nothing")
    p.add_argument("--qk-init-std", type=float, default=0.0,
                   help="initial std of the query/key columns of c_attn (default 0.02 like the rest). As in "
                        "train.py: attention logits are bilinear in W_q and W_k, so with both at 0.02 every "
                        "head starts uniform with a vanishing gradient; a first run sat at the bigram level "
                        "(loss 5.2) for 650 steps with all 16 heads uniform")
    p.add_argument("--teacher", action="append", default=[],
                   help="an exported model folder (repeatable): distil their mean next-token distribution")
    p.add_argument("--distill", type=float, default=0.0,
                   help="weight of the teachers' soft targets in the loss (0: plain next-token loss)")
    p.add_argument("--len-schedule", default="",
                   help="window-length warm-up as LEN:UNTIL,... (train.py's): e.g. 32:0.15,64:0.35 trains on "
                        "32-token windows until 15%% of the run, 64 until 35%%, then --seq-len; the batch grows "
                        "so a step sees as many tokens. Short windows make even uniform attention informative")
    args = p.parse_args(argv)
    if not 0 <= args.distill <= 1 or (args.distill > 0) != bool(args.teacher):
        p.error("--distill takes a weight in [0, 1] and needs --teacher (and --teacher needs --distill > 0)")
    args.max_len = args.seq_len or args.n_positions  # the final window length, as train.seq_len_at expects
    return args


def main():
    launch(run, parse_args(), 29541)


def build(args, vocab_size, eot):
    config = GPT2Config(vocab_size=vocab_size, n_positions=args.n_positions, n_embd=args.n_embd,
                        n_layer=args.layers, n_head=args.heads, dropout=args.dropout,
                        bos_token_id=eot, eos_token_id=eot)
    torch.manual_seed(args.seed)
    return GPT2LMHeadModel(config)


def run(rank, args):
    ranks = args.ranks
    if ranks > 1:
        import torch.distributed as dist
        dist.init_process_group("gloo", rank=rank, world_size=ranks)
    if rank != 0:
        sys.stdout = open(os.devnull, "w")
    torch.set_num_threads(args.threads)
    print(f"torch {torch.__version__}, threads {torch.get_num_threads()}, args {vars(args)}", flush=True)
    train, index = causal_data.load_stream(args.work, "train")
    held, held_index = causal_data.load_stream(args.work, "held_out")
    model = build(args, index["vocab_size"], index["eot"])
    if args.qk_init_std > 0:
        C = args.n_embd
        with torch.no_grad():
            for block in model.h:  # rows [0, 2C) of nn.Linear's [3C, C] weight are W_q and W_k
                torch.nn.init.normal_(block.attn.c_attn.weight[:2 * C], std=args.qk_init_std)
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": args.weight_decay},
                             {"params": no_decay, "weight_decay": 0.0}], lr=args.lr, betas=(0.9, 0.95))
    teachers = [shipped_causal.load(d)[0] for d in args.teacher] if args.distill > 0 else []
    print(f"train stream {len(train)} tokens, held out {len(held)}; parameters "
          f"{sum(p.numel() for p in model.parameters())}", flush=True)
    # A fixed slice of held-out text for the per-checkpoint curve (evaluate_causal.py does it all).
    full = [c for c in causal_data.eval_chunks(held, held_index, args.n_positions) if len(c) == args.n_positions]
    probe = torch.stack(full[::len(full) // 32][:32])

    ckpt_path = os.path.join(args.work, "checkpoint.pt")
    step, train_seconds = 0, 0.0
    if args.resume and checkpoint_layers(ckpt_path) == args.layers:
        step, train_seconds = resume_state(model, opt, ckpt_path)
    if args.resume and step == 0:
        step, train_seconds = resume_from_export(model, args.out)

    total_steps = args.bench or args.steps
    per_rank = args.batch // ranks
    t_start, t_checkpoint, t_log = time.time() - train_seconds, time.time(), time.time()
    loss_sum, acc_sum, n_sum, tokens_since = 0.0, 0, 0, 0
    model.train()
    while step < total_steps:
        done = progress(step, time.time() - t_start, args) if not args.bench else step / total_steps
        if ranks > 1:
            done = synced(done)  # rank 0's clock decides, so every rank stops at the same step
        if done >= 1.0:
            break
        # Each (step, rank) its own windows, so a resumed run draws what the original would have.
        gen = torch.Generator().manual_seed(args.seed + 1_000_003 * rank + 7919 * step)
        seq_len = seq_len_at(done, args)
        inputs, targets = causal_data.random_windows(train, per_rank * args.max_len // seq_len, seq_len, gen)
        for g in opt.param_groups:
            g["lr"] = lr = lr_at(step, done, args)
        hidden, _ = model(inputs)
        logits = model.logits(hidden)
        loss = ce = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))
        if args.distill > 0:
            loss = (1 - args.distill) * ce + args.distill * soft_target_loss(logits, teachers, inputs)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        if ranks > 1:
            average_gradients(model, ranks)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        step += 1
        train_seconds = time.time() - t_start
        tokens_since += targets.numel() * ranks
        loss_sum += ce.item() * targets.numel()  # the next-token loss, distilling or not
        acc_sum += int((logits.argmax(-1) == targets).sum())
        n_sum += targets.numel()
        if step % args.log_every == 0:
            dt = time.time() - t_log
            print(f"step {step}/{total_steps} len {seq_len} lr {lr:.2e} progress {done:.3f} loss {loss_sum / n_sum:.3f} "
                  f"top1 {acc_sum / n_sum:.3f} {tokens_since / dt:.0f} tok/s, train {train_seconds / 60:.1f} min",
                  flush=True)
            loss_sum, acc_sum, n_sum, tokens_since, t_log = 0.0, 0, 0, 0, time.time()
        if not args.bench and rank == 0 and time.time() - t_checkpoint > 60 * args.checkpoint_minutes:
            save_checkpoint(model, opt, step, train_seconds, args, ckpt_path, probe)
            t_checkpoint = time.time()
    if not args.bench and rank == 0:
        save_checkpoint(model, opt, step, train_seconds, args, ckpt_path, probe)
    print(f"done: {step} steps, {train_seconds / 60:.1f} min of training", flush=True)


def soft_target_loss(logits, teachers, inputs):
    """Cross-entropy of the student's next-token distribution against the mean of the teachers'
    (distillation at temperature 1; KL up to the teachers' constant entropy): their full
    distributions say which other tokens were plausible, which one-hot targets cannot. With Brown
    seen 100+ times by every model it gained nothing here (MODEL.md "Decoder status")."""
    with torch.no_grad():
        p = torch.stack([F.softmax(t.logits(t(inputs)[0]), dim=-1) for t in teachers]).mean(0)
    return -(p * F.log_softmax(logits, dim=-1)).sum(-1).mean()


def checkpoint_layers(ckpt_path):
    """The layer count of the model in checkpoint.pt (None if there is none): a checkpoint of a
    shallower model is not resumed directly but grown from its export (resume_from_export)."""
    if not os.path.exists(ckpt_path):
        return None
    return torch.load(ckpt_path, map_location="cpu")["args"]["layers"]


@torch.no_grad()
def resume_from_export(model, out_dir):
    """--resume with no usable checkpoint.pt (build/ did not survive, e.g. a new machine, or
    --layers asks for more layers than it has): continue from the shipped fp16 weights and the
    step and training time their metadata records. The AdamW moments start again from zero; the
    learning-rate schedule goes on from that step. A shallower export is grown (grow_depth)."""
    path = os.path.join(out_dir, "model.safetensors")
    if not os.path.exists(path):
        return 0, 0.0
    grow_depth(model, safetensors_io.load(path))
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        metadata = json.loads(f.read(n)).get("__metadata__", {})
    step, seconds = int(metadata.get("step", 0)), float(metadata.get("train_seconds", 0))
    print(f"resumed from {path} at step {step}, {seconds / 60:.1f} min (fresh optimizer state)", flush=True)
    return step, seconds


@torch.no_grad()
def grow_depth(model, tensors):
    """Loads HF tensors of a model with k ≤ n_layer blocks: blocks 0..k-1 take them, and each
    further block (on top, below ln_f) starts as the identity — its attention and MLP output
    projections zeroed, so x + attn(ln_1(x)) = x and x + mlp(ln_2(x)) = x — and the grown model
    computes exactly what the shipped one did, then learns with the extra depth."""
    stored = sorted({int(name.split(".")[2]) for name in tensors if name.startswith("transformer.h.")})
    k, n = len(stored), model.config.n_layer
    if stored != list(range(k)) or k > n:
        raise ValueError(f"cannot grow blocks {stored} into {n} layers")
    if k == n:
        model.load_hf_state_dict(tensors)
        return
    full = dict(model.hf_state_dict())  # the new blocks' initial values
    full.update({name: t for name, t in tensors.items() if name != "lm_head.weight"})
    model.load_hf_state_dict(full)
    for block in model.h[k:]:
        for proj in (block.attn.c_proj, block.mlp.c_proj):
            proj.weight.zero_()
            proj.bias.zero_()
    # Check the claim on 64 tokens: the shipped k-layer model and the grown one give the same logits.
    shallow = GPT2LMHeadModel(GPT2Config(**{**vars(model.config), "n_layer": k, "dropout": 0.0}))
    shallow.load_hf_state_dict(tensors)
    ids = torch.arange(64).unsqueeze(0) * 37 % model.config.vocab_size
    was_training = model.training
    model.eval()
    shallow.eval()
    diff = (model.logits(model(ids)[0]) - shallow.logits(shallow(ids)[0])).abs().max().item()
    model.train(was_training)
    if diff > 1e-4:
        raise RuntimeError(f"growing {k} → {n} layers changed the logits by {diff}")
    print(f"grew the model from {k} to {n} layers: blocks {k}..{n - 1} start as the identity "
          f"(logits unchanged: max |diff| {diff:.1e})", flush=True)


def probe_eval(model, probe):
    """(mean loss, top-1) of next-token prediction on the fixed held-out probe chunks."""
    model.eval()
    hidden, _ = model(probe[:, :-1])
    logits = model.logits(hidden)
    model.train()
    loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), probe[:, 1:].reshape(-1)).item()
    return loss, (logits.argmax(-1) == probe[:, 1:]).float().mean().item()


def export(model, tokenizer_dir, out_dir, metadata):
    """model-causal/ in GPT2LMHeadModel layout → {file: bytes}. Each file is written under a
    temporary name and renamed, so readers never see half a file."""
    os.makedirs(out_dir, exist_ok=True)

    def replace(name, write):
        tmp = os.path.join(out_dir, name + ".tmp")
        write(tmp)
        os.replace(tmp, os.path.join(out_dir, name))

    tensors = {k: v.half() for k, v in model.hf_state_dict().items()}
    replace("model.safetensors", lambda tmp: safetensors_io.save(
        tensors, tmp, metadata={"format": "pt", **{k: str(v) for k, v in metadata.items()}}))

    def write_config(tmp):
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(model.config.to_hf_json(), f, indent=2)
            f.write("\n")
    replace("config.json", write_config)
    for name in TOKENIZER_FILES:
        replace(name, lambda tmp, name=name: shutil.copyfile(os.path.join(tokenizer_dir, name), tmp))
    return {n: os.path.getsize(os.path.join(out_dir, n)) for n in sorted(os.listdir(out_dir)) if not n.endswith(".tmp")}


def save_checkpoint(model, opt, step, train_seconds, args, ckpt_path, probe):
    torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step,
                "train_seconds": train_seconds, "args": vars(args)}, ckpt_path + ".tmp")
    os.replace(ckpt_path + ".tmp", ckpt_path)
    sizes = export(model, os.path.join(args.work, "tokenizer"), args.out,
                   {"step": step, "train_seconds": round(train_seconds)})
    line = {"step": step, "train_minutes": round(train_seconds / 60, 2), "bytes": sum(sizes.values())}
    line["probe_loss"], line["probe_top1"] = probe_eval(model, probe)
    with open(os.path.join(args.work, "curve.jsonl"), "a") as f:
        f.write(json.dumps(line) + "\n")
    print(f"checkpoint {line}: exported {args.out} {sizes}", flush=True)


if __name__ == "__main__":
    main()
