# Grows a trained encoder-decoder folder into a deeper one that still fits the 8 MB limit, so a
# deeper model starts from what the shallow one learnt instead of from scratch (400 training
# minutes on two cores):
#   - encoder blocks are appended after the last one as identities: T5's blocks are residual
#     (x + o(attention(norm x)), x + wo(relu(wi(norm x)))), so with o and wo zero the new block
#     passes its input through and the grown model computes what the old one did; training then
#     moves o and wo away from zero (their gradients are not zero: the block's input is);
#   - every feed-forward is cut to --d-ff units (the bytes a block costs), keeping the units that
#     carry the most (|wi row| x |wo column|: a relu unit's output is at most their product times
#     the input's norm); the dropped units' share of that is printed.
# The folder is written as train_seq2seq.py exports it, with step 0 in its metadata: RESUME=1 from it
# starts a fresh schedule (warm-up included).
#   python3 grow_seq2seq.py SRC_FOLDER DST_FOLDER [--encoder-layers 3] [--d-ff 384]
import argparse
import dataclasses
import json
import os
import shutil
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import safetensors_io  # noqa: E402
from export import write_json  # noqa: E402
from model_seq2seq import T5Config, T5ForConditionalGeneration  # noqa: E402

COPIED = ("tokenizer.json", "tokenizer_config.json", "heldout.jsonl")


def grow(tensors, old, new):
    """The new model's Hugging Face state dict from the old one's tensors."""
    model = T5ForConditionalGeneration(new)  # T5's initialisation for what is not copied
    state = {k: v.float() for k, v in model.hf_state_dict().items()}
    dropped = []
    for name, value in tensors.items():
        value = value.float()
        if name.endswith("DenseReluDense.wi.weight"):
            wo_name = name.replace(".wi.", ".wo.")
            wo = tensors[wo_name].float()
            keep = ff_units(value, wo, new.d_ff, dropped)
            value = value[keep]
            state[wo_name] = wo[:, keep]  # the same units' output columns
        elif name.endswith("DenseReluDense.wo.weight"):
            continue  # cut with its wi, above
        if state[name].shape != value.shape:
            raise ValueError(f"{name}: {tuple(value.shape)} does not fit {tuple(state[name].shape)}")
        state[name] = value
    for b in range(old.num_layers, new.num_layers):
        state[f"encoder.block.{b}.layer.0.SelfAttention.o.weight"].zero_()
        state[f"encoder.block.{b}.layer.1.DenseReluDense.wo.weight"].zero_()
    if dropped:
        print(f"feed-forward units kept {new.d_ff} of {old.d_ff} per block; dropped share of "
              f"|wi row| x |wo column| per block: " + ", ".join(f"{d:.1%}" for d in dropped))
    return state


def ff_units(wi, wo, d_ff, dropped):
    """Sorted indices of the d_ff units of a feed-forward with the largest |wi row| x |wo column|
    (the share of that sum the others had is appended to dropped)."""
    weight = wi.norm(dim=1) * wo.norm(dim=0)
    keep = weight.topk(d_ff).indices.sort().values
    dropped.append(1 - (weight[keep].sum() / weight.sum()).item())
    return keep


def main():
    p = argparse.ArgumentParser()
    p.add_argument("src")
    p.add_argument("dst")
    p.add_argument("--encoder-layers", type=int, default=3)
    p.add_argument("--d-ff", type=int, default=384)
    args = p.parse_args()
    with open(os.path.join(args.src, "config.json"), encoding="utf-8") as f:
        hf = json.load(f)
    old = T5Config.from_hf_json(hf)
    if args.encoder_layers < old.num_layers or args.d_ff > old.d_ff:
        raise SystemExit(f"grow only: {old.num_layers} encoder blocks, d_ff {old.d_ff} → "
                         f"{args.encoder_layers}, {args.d_ff}")
    new = dataclasses.replace(old, num_layers=args.encoder_layers, d_ff=args.d_ff)
    torch.manual_seed(0)
    state = grow(safetensors_io.load(os.path.join(args.src, "model.safetensors")), old, new)
    os.makedirs(args.dst, exist_ok=True)
    safetensors_io.save({k: v.half() for k, v in state.items()}, os.path.join(args.dst, "model.safetensors"),
                        metadata={"format": "pt", "step": "0", "train_seconds": "0",
                                  "grown_from": os.path.abspath(args.src)})
    write_json(new.to_hf_json(), os.path.join(args.dst, "config.json"))
    for name in COPIED:
        shutil.copyfile(os.path.join(args.src, name), os.path.join(args.dst, name))
    n = sum(v.numel() for v in state.values())
    print(f"{args.dst}: {new.num_layers} + {new.num_decoder_layers} blocks, d_ff {new.d_ff}, {n} parameters; "
          f"{sum(os.path.getsize(os.path.join(args.dst, x)) for x in os.listdir(args.dst))} bytes")


if __name__ == "__main__":
    main()
