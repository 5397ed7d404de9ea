# PyTorch reference for the page's decoder tests: runs a GPT-2 folder (model-causal/ layout) through
# tools/train/model_causal.py, the training code's own GPT-2 (plain PyTorch, not our engine), in
# float64, and prints every attention probability and, per position, the top-k next tokens and the
# rank of the token that follows. Request on stdin: {"model": dir, "ids": [...], "top_k": 5}.
import json
import os
import sys

import torch

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools", "train"))
from shipped_causal import load  # noqa: E402

request = json.load(sys.stdin)
model, _vocab = load(request["model"], dtype=torch.float64)
ids = torch.tensor([request["ids"]], dtype=torch.long)
k = int(request.get("top_k", 5))
with torch.no_grad():
    hidden, attentions = model(ids)
    probs = torch.softmax(model.logits(hidden)[0], dim=-1)
next_by_position = []
T = ids.shape[1]
for p in range(T):
    top = torch.topk(probs[p], k)
    entry = {"position": p, "top": [int(i) for i in top.indices], "probs": [float(x) for x in top.values]}
    if p + 1 < T:
        actual = int(ids[0, p + 1])
        entry["actual"] = actual
        entry["rank"] = int((probs[p] > probs[p, actual]).sum())
        entry["actual_prob"] = float(probs[p, actual])
    next_by_position.append(entry)
json.dump({
    "attentions": torch.stack([a[0] for a in attentions]).flatten().tolist(),   # (L, H, T, T)
    "next_by_position": next_by_position,
}, sys.stdout)
