# Trains the bundled encoder-decoder (model_seq2seq.T5ForConditionalGeneration) on the SOV task
# (seq2seq_data.py → seq2seq_tokenizer.py → WORK/{train,held_out}.jsonl) and exports it in Hugging
# Face T5 layout at every checkpoint (model.safetensors fp16, config.json, tokenizer.json,
# tokenizer_config.json, heldout.jsonl), so a run stopped early still leaves a usable model.
# Schedule, data-parallel --ranks recipe (gloo, one flat all-reduce per step), --time-budget and
# checkpoint cadence are train.py's / train_causal.py's. --resume continues WORK/checkpoint.pt, or,
# where there is none, the export in --out (its metadata's step and training time; fresh optimizer).
import argparse
import json
import os
import shutil
import struct
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
import safetensors_io  # noqa: E402
from model_seq2seq import T5Config, T5ForConditionalGeneration  # noqa: E402
from train import add_run_args, average_gradients, launch, lr_at, progress, resume_state, synced  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json")
HELDOUT_SHIPPED = 500  # examples in heldout.jsonl, evenly spaced over the held-out documents


def parse_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--work", default=os.path.join(ROOT, "build", "train-seq2seq"))
    p.add_argument("--out", default=os.path.join(ROOT, "build", "train-seq2seq", "export"))
    p.add_argument("--d-model", type=int, default=256)
    p.add_argument("--d-kv", type=int, default=64)
    p.add_argument("--d-ff", type=int, default=512)
    p.add_argument("--layers", type=int, default=2, help="encoder blocks")
    p.add_argument("--decoder-layers", type=int, default=2)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--batch", type=int, default=64, help="sentence pairs per step, over all ranks")
    p.add_argument("--micro", type=int, default=8,
                   help="pairs per forward pass: a rank's pairs go through in length order, so each "
                        "pass pads to similar lengths (gradients are the same as one pass; padding "
                        "was ~45%% of a 32-pair pass's rows)")
    add_run_args(p, steps=20000, lr=1e-3, warmup=200, weight_decay=0.01, seed=20261202, threads=1,
                 checkpoint_minutes=4.0)
    args = p.parse_args(argv)
    args.len_schedule = ""
    return args


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def pad_batch(rows, key, pad=0):
    n = max(len(r[key]) for r in rows)
    return torch.tensor([r[key] + [pad] * (n - len(r[key])) for r in rows])


def make_batch(rows, config):
    """(src, src_mask, tgt_in, labels): tgt_in = decoder_start + target[:-1]; labels -100 on padding."""
    src = pad_batch(rows, "src_ids", config.pad_token_id)
    mask = src != config.pad_token_id
    tgt = [[config.decoder_start_token_id] + r["tgt_ids"] for r in rows]
    n = max(len(t) for t in tgt)
    tgt_in = torch.tensor([t[:-1] + [config.pad_token_id] * (n - len(t)) for t in tgt])
    labels = torch.tensor([t[1:] + [-100] * (n - len(t)) for t in tgt])
    return src, mask, tgt_in, labels


def build(args, vocab_size):
    config = T5Config(vocab_size=vocab_size, d_model=args.d_model, d_kv=args.d_kv, d_ff=args.d_ff,
                      num_layers=args.layers, num_decoder_layers=args.decoder_layers, num_heads=args.heads,
                      dropout_rate=args.dropout)
    torch.manual_seed(args.seed)
    return T5ForConditionalGeneration(config)


def vocab_size(work):
    with open(os.path.join(work, "tokenizer", "tokenizer.json"), encoding="utf-8") as f:
        return len(json.load(f)["model"]["vocab"])


def main():
    launch(run, parse_args(), 29547)


def run(rank, args):
    ranks = args.ranks
    if ranks > 1:
        import torch.distributed as dist
        dist.init_process_group("gloo", rank=rank, world_size=ranks)
    if rank != 0:
        sys.stdout = open(os.devnull, "w")
    torch.set_num_threads(args.threads)
    print(f"torch {torch.__version__}, threads {torch.get_num_threads()}, args {vars(args)}", flush=True)
    train = read_jsonl(os.path.join(args.work, "train.jsonl"))
    held = read_jsonl(os.path.join(args.work, "held_out.jsonl"))
    model = build(args, vocab_size(args.work))
    opt = torch.optim.AdamW(scaled_groups(model, args), lr=args.lr, betas=(0.9, 0.98))
    n_params = sum(p.numel() for p in model.parameters())
    print(f"train {len(train)} pairs, held out {len(held)}; parameters {n_params} ({2 * n_params / 1e6:.2f} MB fp16)",
          flush=True)
    probe = make_batch(held[::max(1, len(held) // 256)][:256], model.config)

    ckpt_path = os.path.join(args.work, "checkpoint.pt")
    step, train_seconds = 0, 0.0
    fresh_moments_from = 0  # the step AdamW's moments were last zeroed at
    if args.resume:
        step, train_seconds = resume_state(model, opt, ckpt_path)
        if step == 0:
            step, train_seconds = resume_from_export(model, args.out)
            fresh_moments_from = step

    per_rank = args.batch // ranks
    t_start, t_checkpoint, t_log = time.time() - train_seconds, time.time(), time.time()
    loss_sum, acc_sum, n_sum = 0.0, 0, 0
    model.train()
    while step < args.steps:
        done = progress(step, time.time() - t_start, args)
        if ranks > 1:
            done = synced(done)  # rank 0's clock decides, so every rank stops at the same step
        if done >= 1.0:
            break
        # Each (step, rank) its own pairs, so a resumed run draws what the original would have.
        gen = torch.Generator().manual_seed(args.seed + 1_000_003 * rank + 7919 * step)
        idx = torch.randint(len(train), (per_rank,), generator=gen).tolist()
        for g in opt.param_groups:
            lr = lr_at(step, done, args) * rewarm(step, fresh_moments_from, args)
            g["lr"] = lr * g["lr_scale"]
        rows = sorted((train[i] for i in idx), key=lambda r: len(r["src_ids"]))
        n_rank = sum(len(r["tgt_ids"]) for r in rows)
        opt.zero_grad(set_to_none=True)
        for j in range(0, len(rows), args.micro):
            src, mask, tgt_in, labels = make_batch(rows[j:j + args.micro], model.config)
            real = labels != -100
            logits = model.decode(model.encode(src, mask), mask, tgt_in, rows=real)
            target = labels[real]
            # Summed over the micro-batch, divided by the rank's tokens: the mean over its batch.
            loss = F.cross_entropy(logits, target, reduction="sum") / n_rank
            loss.backward()
            loss_sum += loss.item() * n_rank
            acc_sum += int((logits.argmax(-1) == target).sum())
        n_sum += n_rank
        if ranks > 1:
            average_gradients(model, ranks)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        step += 1
        train_seconds = time.time() - t_start
        if step % args.log_every == 0:
            dt = time.time() - t_log
            print(f"step {step}/{args.steps} lr {lr:.2e} progress {done:.3f} loss {loss_sum / n_sum:.3f} "
                  f"token acc {acc_sum / n_sum:.3f} {n_sum * ranks / dt:.0f} target tok/s, "
                  f"train {train_seconds / 60:.1f} min", flush=True)
            loss_sum, acc_sum, n_sum, t_log = 0.0, 0, 0, time.time()
        if rank == 0 and time.time() - t_checkpoint > 60 * args.checkpoint_minutes:
            save_checkpoint(model, opt, step, train_seconds, args, ckpt_path, probe, held)
            t_checkpoint = time.time()
    if rank == 0:
        save_checkpoint(model, opt, step, train_seconds, args, ckpt_path, probe, held)
    print(f"done: {step} steps, {train_seconds / 60:.1f} min of training", flush=True)


def rewarm(step, fresh_moments_from, args):
    """A run resumed from exported weights starts AdamW's moments at zero, and Adam's first
    bias-corrected steps are full-sized whatever the gradient's scale: ramp the rate up again over
    --warmup steps so they do not knock a trained model off its minimum."""
    if fresh_moments_from == 0:
        return 1.0  # lr_at's own warm-up covers a fresh run
    return min(1.0, (step - fresh_moments_from + 1) / args.warmup)


def scaled_groups(model, args):
    """One AdamW group per parameter, its learning rate scaled by the parameter's size at
    initialisation (the RMS of a freshly initialised matrix, 1 for norm weights), as Adafactor's
    relative steps do. T5's initialisation spans 1.0 (embeddings) to 0.008 (the query matrices,
    which stand in for the 1/sqrt(d_kv) T5 does not apply): one plain Adam rate moved the embeddings
    by 0.2% a step and the queries by 25%, and the run stayed a unigram model for 1,400 steps
    (probe loss 5.70); scaled, the same data reached 3.97 in 700 steps of 32 pairs. --lr is then
    the relative step (1e-2: 1% of a weight's scale)."""
    groups = []
    for p in model.parameters():
        matrix = p.dim() >= 2
        groups.append({"params": [p], "lr_scale": float(p.detach().pow(2).mean().sqrt()) if matrix else 1.0,
                       "weight_decay": args.weight_decay if matrix else 0.0})
    return groups


@torch.no_grad()
def resume_from_export(model, out_dir):
    """--resume without WORK/checkpoint.pt (build/ did not survive): the exported fp16 weights and
    the step and training time their metadata records; the AdamW moments restart from zero."""
    path = os.path.join(out_dir, "model.safetensors")
    if not os.path.exists(path):
        return 0, 0.0
    model.load_hf_state_dict(safetensors_io.load(path))
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        metadata = json.loads(f.read(n)).get("__metadata__", {})
    step, seconds = int(metadata.get("step", 0)), float(metadata.get("train_seconds", 0))
    print(f"resumed from {path} at step {step}, {seconds / 60:.1f} min (fresh optimizer state)", flush=True)
    return step, seconds


@torch.no_grad()
def probe_eval(model, probe):
    """(loss, token accuracy) teacher-forced on a fixed slice of held-out pairs."""
    model.eval()
    src, mask, tgt_in, labels = probe
    logits = model(src, mask, tgt_in)
    model.train()
    loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), labels.reshape(-1), ignore_index=-100).item()
    real = labels != -100
    return loss, (((logits.argmax(-1) == labels) & real).sum() / real.sum()).item()


def heldout_lines(held):
    """heldout.jsonl: HELDOUT_SHIPPED pairs evenly spaced over the held-out documents."""
    every = max(1, len(held) // HELDOUT_SHIPPED)
    return [json.dumps({"source": h["source"], "target": h["target"], "alignment": h["alignment"]},
                       ensure_ascii=False) + "\n" for h in held[::every][:HELDOUT_SHIPPED]]


def export(model, work, out_dir, metadata, held):
    """The model folder in T5ForConditionalGeneration layout → {file: bytes}; each file written
    under a temporary name and renamed, so readers never see half a file."""
    os.makedirs(out_dir, exist_ok=True)

    def replace(name, write):
        tmp = os.path.join(out_dir, name + ".tmp")
        write(tmp)
        os.replace(tmp, os.path.join(out_dir, name))

    tensors = {k: v.half() for k, v in model.hf_state_dict().items()}
    replace("model.safetensors", lambda tmp: safetensors_io.save(
        tensors, tmp, metadata={"format": "pt", **{k: str(v) for k, v in metadata.items()}}))

    def write_json(obj):
        def write(tmp):
            with open(tmp, "w", encoding="utf-8") as f:
                json.dump(obj, f, indent=2)
                f.write("\n")
        return write
    replace("config.json", write_json(model.config.to_hf_json()))
    for name in TOKENIZER_FILES:
        replace(name, lambda tmp, name=name: shutil.copyfile(os.path.join(work, "tokenizer", name), tmp))

    def write_heldout(tmp):
        with open(tmp, "w", encoding="utf-8") as f:
            f.writelines(heldout_lines(held))
    replace("heldout.jsonl", write_heldout)
    return {n: os.path.getsize(os.path.join(out_dir, n)) for n in sorted(os.listdir(out_dir)) if not n.endswith(".tmp")}


def save_checkpoint(model, opt, step, train_seconds, args, ckpt_path, probe, held):
    torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step,
                "train_seconds": train_seconds, "args": vars(args)}, ckpt_path + ".tmp")
    os.replace(ckpt_path + ".tmp", ckpt_path)
    sizes = export(model, args.work, args.out, {"step": step, "train_seconds": round(train_seconds)}, held)
    line = {"step": step, "train_minutes": round(train_seconds / 60, 2), "bytes": sum(sizes.values())}
    line["probe_loss"], line["probe_token_acc"] = probe_eval(model, probe)
    with open(os.path.join(args.work, "curve.jsonl"), "a") as f:
        f.write(json.dumps(line) + "\n")
    print(f"checkpoint {line}: exported {args.out} {sizes}", flush=True)


if __name__ == "__main__":
    main()
