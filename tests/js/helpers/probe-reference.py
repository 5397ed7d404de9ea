"""Independent recomputations for probe.test.js with numpy.
stdin: {"kind": "pca", "vectors": [[...]]} → {"components": [[...], [...]], "variance": [a, b]}
       {"kind": "pos", "runs": [{"attentions": flat (L,H,T,T), "shape": [...], "classes": [T]}], "n": C}
         (classes: each token's class, -1 for none) → {"mass": flat (L*H, C, C), "queries": [C]}
Run with /usr/bin/python3."""
import json
import sys

import numpy as np

r = json.load(sys.stdin)
if r["kind"] == "pca":
    x = np.asarray(r["vectors"], dtype=np.float64)
    x = x - x.mean(axis=0)
    values, vectors = np.linalg.eigh(x.T @ x)
    order = np.argsort(values)[::-1][:2]
    comps = vectors[:, order].T
    for c in comps:  # the same sign convention: the largest |entry| positive
        if c[np.argmax(np.abs(c))] < 0:
            c *= -1
    json.dump({"components": comps.tolist(), "variance": (values[order] / values.sum()).tolist()}, sys.stdout)
else:
    n = r["n"]
    mass, queries = None, np.zeros(n)
    for run in r["runs"]:
        L, H, T, _ = run["shape"]
        a = np.asarray(run["attentions"]).reshape(L * H, T, T)
        c = np.asarray(run["classes"])
        onehot = np.zeros((T, n))
        onehot[c >= 0, c[c >= 0]] = 1
        m = np.einsum("ia,hij,jb->hab", onehot, a, onehot)
        mass = m if mass is None else mass + m
        queries += onehot.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mass = np.where(queries[None, :, None] > 0, mass / queries[None, :, None], 0.0)
    json.dump({"mass": mass.flatten().tolist(), "queries": queries.tolist()}, sys.stdout)
