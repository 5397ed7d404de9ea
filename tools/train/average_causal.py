# Averages the weights of several training checkpoints of the decoder (uniformly, in float32) and
# exports the result in model-causal/'s layout. Why: at the end of a long run on a small corpus the
# last checkpoints differ mostly by the noise of their last steps; their mean usually generalises a
# little better than any one of them (Izmailov et al. 2018, "Averaging Weights Leads to Wider
# Optima"). The checkpoints must come from one run (same shape, same basin); train_causal.py
# writes one every 4 minutes to build/train-causal/checkpoint.pt — keep copies (hard links) to
# average them.
#   python3 tools/train/average_causal.py --out DIR CKPT.pt [CKPT.pt ...]
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
import causal_data  # noqa: E402
import train_causal  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True, help="folder for the averaged model (model-causal/ layout)")
    p.add_argument("--work", default=os.path.join(train_causal.ROOT, "build", "train-causal"))
    p.add_argument("checkpoints", nargs="+")
    a = p.parse_args()
    states = [torch.load(path, map_location="cpu") for path in a.checkpoints]
    first = states[0]
    for path, s in zip(a.checkpoints, states):
        if s["model"].keys() != first["model"].keys() or any(
                s["model"][k].shape != v.shape for k, v in first["model"].items()):
            raise SystemExit(f"{path}: not the same model as {a.checkpoints[0]}")
    mean = {k: sum(s["model"][k].float() for s in states) / len(states) for k in first["model"]}
    args = train_causal.parse_args([])
    vars(args).update(first["args"])
    _, index = causal_data.load_stream(a.work, "held_out")
    model = train_causal.build(args, index["vocab_size"], index["eot"])
    model.load_state_dict(mean)
    last = max(states, key=lambda s: s["step"])
    steps = f"{min(s['step'] for s in states)}-{last['step']}"
    sizes = train_causal.export(model, os.path.join(a.work, "tokenizer"), a.out,
                                {"step": last["step"], "train_seconds": round(last["train_seconds"]),
                                 "averaged_checkpoints": len(states), "averaged_steps": steps})
    print(f"averaged {len(states)} checkpoints, steps {steps}: exported {a.out} {sizes}")


if __name__ == "__main__":
    main()
