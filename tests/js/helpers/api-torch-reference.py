"""PyTorch reference for the API tests: a plain BERT forward pass written from the paper's
equations with torch ops (not our C++ and not `transformers`), reading a Hugging Face folder.
RoBERTa folders (model_type roberta): positions from pad_token_id + 1, one token type, and
RobertaLMHead (dense, exact GELU, layer_norm, tied decoder, lm_head.bias).
stdin: {"model": DIR, "ids": [...], "token_type_ids": [...], "mask_positions": [...],
        "f16_matrices": false}   (true: round the layers' linear weights and the word embeddings
        to f16 first, with torch's own .half(), as a model loaded with weightPrecision 'f16' keeps them)
stdout: {"attentions": flat (L,H,T,T), "hidden": flat (T,C), "mlm_logits": flat (len(mask_positions), V)}
Run with /usr/bin/python3 (Debian's python3-torch)."""
import json
import math
import struct
import sys

import numpy as np
import torch
import torch.nn.functional as F


def read_safetensors(path):
    data = open(path, "rb").read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    base = 8 + n
    tensors = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        start, end = t["data_offsets"]
        raw = np.frombuffer(data[base + start:base + end], dtype=np.uint8)
        if t["dtype"] == "F32":
            arr = raw.view("<f4")
        elif t["dtype"] == "F16":
            arr = raw.view("<f2").astype(np.float32)
        elif t["dtype"] == "BF16":
            arr = (raw.view("<u2").astype(np.uint32) << 16).view(np.float32)
        else:
            raise ValueError(t["dtype"])
        tensors[name.removeprefix("bert.").removeprefix("roberta.")] = torch.from_numpy(arr.reshape(t["shape"]).astype(np.float64))
    return tensors


def main():
    request = json.load(sys.stdin)
    config = json.load(open(request["model"] + "/config.json"))
    w = read_safetensors(request["model"] + "/model.safetensors")
    if request.get("f16_matrices"):
        for name, t in w.items():
            if t.dim() == 2 and (name.endswith("word_embeddings.weight")
                                 or (".layer." in "." + name and name.endswith(".weight"))):
                w[name] = t.float().half().double()
    ids = torch.tensor(request["ids"])
    types = torch.tensor(request.get("token_type_ids") or [0] * len(ids))
    T, C, H = len(ids), config["hidden_size"], config["num_attention_heads"]
    dh = C // H
    eps = config.get("layer_norm_eps", 1e-12)
    act = {"gelu": lambda x: F.gelu(x), "relu": F.relu,
           "gelu_new": lambda x: F.gelu(x, approximate="tanh")}[config.get("hidden_act", "gelu")]

    def ln(x, prefix):
        return F.layer_norm(x, (C,), w[prefix + ".weight"], w[prefix + ".bias"], eps)

    def linear(x, prefix):
        return x @ w[prefix + ".weight"].T + w[prefix + ".bias"]

    roberta = config.get("model_type") == "roberta"
    first = config.get("pad_token_id", 1) + 1 if roberta else 0  # the inputs here hold no padding id
    x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][first:first + T]
         + w["embeddings.token_type_embeddings.weight"][types])
    x = ln(x, "embeddings.LayerNorm")
    attentions = []
    for l in range(config["num_hidden_layers"]):
        p = f"encoder.layer.{l}."
        heads = lambda y: y.view(T, H, dh).transpose(0, 1)  # (H, T, dh)
        q, k, v = (heads(linear(x, p + "attention.self." + m)) for m in ("query", "key", "value"))
        probs = torch.softmax(q @ k.transpose(1, 2) / math.sqrt(dh), dim=-1)  # (H, T, T)
        attentions.append(probs)
        context = (probs @ v).transpose(0, 1).reshape(T, C)
        x = ln(x + linear(context, p + "attention.output.dense"), p + "attention.output.LayerNorm")
        x = ln(x + linear(act(linear(x, p + "intermediate.dense")), p + "output.dense"), p + "output.LayerNorm")
    out = {"attentions": torch.stack(attentions).flatten().tolist(), "hidden": x.flatten().tolist()}
    positions = request.get("mask_positions") or []
    if positions and "lm_head.bias" in w:
        h = F.gelu(linear(x[positions], "lm_head.dense"))
        h = F.layer_norm(h, (C,), w["lm_head.layer_norm.weight"], w["lm_head.layer_norm.bias"], eps)
        out["mlm_logits"] = (h @ w["embeddings.word_embeddings.weight"].T + w["lm_head.bias"]).flatten().tolist()
    if positions and "cls.predictions.bias" in w:
        h = act(linear(x[positions], "cls.predictions.transform.dense"))
        h = F.layer_norm(h, (C,), w["cls.predictions.transform.LayerNorm.weight"],
                         w["cls.predictions.transform.LayerNorm.bias"], eps)
        decoder = w.get("cls.predictions.decoder.weight", w["embeddings.word_embeddings.weight"])
        out["mlm_logits"] = (h @ decoder.T + w["cls.predictions.bias"]).flatten().tolist()
    json.dump(out, sys.stdout)


main()
