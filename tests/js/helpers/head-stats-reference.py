"""Independent recomputation of the head table's statistics with numpy, for head-stats.test.js.
stdin: {"runs": [{"attentions": flat (L,H,T,T), "shape": [L,H,T,T], "special": [T]}]}
stdout: {"entropy": [L*H], "mean_distance": ..., "previous": ..., "next": ..., "self": ...,
         "first": ..., "cls": ..., "sep": ...}  (each the mean over every query row of every run)
Run with /usr/bin/python3."""
import json
import sys

import numpy as np

request = json.load(sys.stdin)
totals, rows = None, 0
for run in request["runs"]:
    L, H, T, _ = run["shape"]
    a = np.asarray(run["attentions"], dtype=np.float64).reshape(L * H, T, T)
    special = np.asarray(run["special"], dtype=bool)
    i, j = np.meshgrid(np.arange(T), np.arange(T), indexing="ij")
    with np.errstate(divide="ignore", invalid="ignore"):
        plogp = np.where(a > 0, a * np.log(a), 0.0)
    cls_keys = special & (np.arange(T) == 0)
    sep_keys = special & (np.arange(T) > 0)
    stats = {
        "entropy": -plogp.sum(axis=(1, 2)),
        "mean_distance": (a * np.abs(i - j)).sum(axis=(1, 2)),
        "previous": np.trace(a, offset=-1, axis1=1, axis2=2),
        "next": np.trace(a, offset=1, axis1=1, axis2=2),
        "self": np.trace(a, axis1=1, axis2=2),
        "first": a[:, :, 0].sum(axis=1),
        "cls": a[:, :, cls_keys].sum(axis=(1, 2)),
        "sep": a[:, :, sep_keys].sum(axis=(1, 2)),
    }
    totals = stats if totals is None else {k: totals[k] + v for k, v in stats.items()}
    rows += T
json.dump({k: (v / rows).tolist() for k, v in totals.items()}, sys.stdout)
